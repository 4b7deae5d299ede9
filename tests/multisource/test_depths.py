"""Depth planes (breadth.multisource.depths): decode against a per-bit reference, and the
default W = 8 traversal (depth matrix and summaries) against scipy."""
import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import breadth
from breadth.multisource import msbfs, multi_bfs
from breadth.multisource.depths import decode, plane_count, planes_used, streamable
from breadth.multisource.results import aligned_empty
from breadth.multisource.status import DEPTH_BASE


def reference(final, dplanes, used, words, g, n, unreach):
    """Per cell: DEPTH_BASE + the code in the planes where ``final`` has the bit."""
    out = np.full((n, g), unreach, dtype=np.int64)
    for v in range(n):
        for j in range(g):
            q, b = divmod(j, 64)
            if (int(final[v * words + q]) >> b) & 1:
                out[v, j] = DEPTH_BASE + sum(((int(dplanes[p, v * words + q]) >> b) & 1) << p for p in range(used))
    return out


def random_planes(rng, final, planes):
    """Plane words with bits only where ``final`` has them (what a traversal records)."""
    return rng.integers(0, 2**63, (planes, final.size), dtype=np.uint64) & final


def no_edges(n):
    return np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize("words,g", [(1, 1), (1, 64), (2, 100), (3, 129), (8, 512)])
@pytest.mark.parametrize("n", [37, 64, 200])      # a partial tile only, one full tile, both
def test_decode_matches_reference(dtype, words, g, n):
    rng = np.random.default_rng(words * 1000 + g + n)
    unreach = int(np.iinfo(dtype).max)
    planes = plane_count(unreach - 1)
    final = rng.integers(0, 2**63, n * words, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    final[5 * words:9 * words] = 0           # vertices no instance reached
    dplanes = random_planes(rng, final, planes)
    used = planes_used(37)                     # depths up to 37: codes up to 35, planes 0..5
    rows = rng.permutation(g + 5)[:g].astype(np.int64)     # the group's rows, scattered
    sources = rng.integers(0, n, g)
    out = np.zeros((g + 5, n), dtype=dtype)
    want = reference(final, dplanes, used, words, g, n, unreach)
    want[sources, np.arange(g)] = 0
    decode(final, dplanes, used, words, out, rows, unreach, False, *no_edges(n), sources)
    np.testing.assert_array_equal(out[rows], want.T)
    assert not out[np.setdiff1d(np.arange(g + 5), rows)].any()   # other rows untouched


@pytest.mark.parametrize("words,g,n", [(8, 512, 256), (2, 77, 128), (1, 64, 64)])
def test_decode_streams_into_aligned_rows(words, g, n):
    """Non-temporal stores (64-byte aligned uint8 rows) write the same cells as plain ones."""
    rng = np.random.default_rng(g)
    final = rng.integers(0, 2**63, n * words, dtype=np.uint64)
    dplanes = random_planes(rng, final, 3)
    rows = rng.permutation(g).astype(np.int64)
    sources = rng.integers(0, n, g)
    out = aligned_empty((g, n), np.uint8)
    assert streamable(out) and out.ctypes.data % 64 == 0
    want = reference(final, dplanes, 3, words, g, n, 255)
    want[sources, np.arange(g)] = 0
    decode(final, dplanes, 3, words, out, rows, 255, True, *no_edges(n), sources)
    np.testing.assert_array_equal(out[rows], want.T)
    assert not streamable(np.zeros((2, 100), np.uint8)) and not streamable(np.zeros((2, 64), np.uint16))
    assert not streamable(aligned_empty((3, 128), np.uint8)[:, 1:65])


def test_depths_below_the_base_come_from_the_adjacency():
    """Depth 0 (the source) and 1 (its reached out-neighbours, a self-loop included) have no
    code: ``decode`` writes them from the graph; unreached neighbours stay unreached."""
    n, words = 64, 1
    g = breadth.Graph.from_edges([0, 0, 0, 3, 5], [1, 2, 0, 4, 6], num_vertices=n, directed=True)
    sources = np.array([0, 3, 5])
    final = np.zeros(n * words, dtype=np.uint64)
    for j, reached in enumerate([(0, 1, 2, 9), (3, 4), (5,)]):      # source 5 stopped at depth 0
        for v in reached:
            final[v] |= np.uint64(1) << np.uint64(j)
    dplanes = np.zeros((2, n * words), dtype=np.uint64)
    dplanes[0, 9] = 1                          # instance 0 reached 9 at depth 3 (code 1)
    out = np.zeros((3, n), np.uint8)
    decode(final, dplanes, 1, words, out, np.arange(3), 255, False, g.indptr, g.indices, sources)
    want = np.full((3, n), 255)
    want[0, [0, 1, 2, 9]] = [0, 1, 1, 3]
    want[1, [3, 4]] = [0, 1]
    want[2, 5] = 0
    np.testing.assert_array_equal(out, want)


def test_plane_counts():
    assert DEPTH_BASE == 2
    assert plane_count(254) == 8 and plane_count(65534) == 16 and plane_count(1) == 1
    assert planes_used(0) == planes_used(2) == 0 and planes_used(3) == 1 and planes_used(9) == 3


def test_decode_zeroes_the_planes_it_read():
    """The next group starts from zero planes (the workspace is reused without clearing)."""
    rng = np.random.default_rng(5)
    n, words, g = 200, 2, 100
    final = rng.integers(0, 2**63, n * words, dtype=np.uint64)
    final[:64 * words] = 0                      # a tile no instance reached: its planes stay as they are
    dplanes = random_planes(rng, final, 4)
    plane3 = dplanes[3].copy()
    decode(final, dplanes, 3, words, np.zeros((g, n), np.uint8), np.arange(g), 255, False, *no_edges(n),
           np.zeros(g, np.int64))
    assert not dplanes[:3].any()
    np.testing.assert_array_equal(dplanes[3], plane3)       # plane 3 was not read


@pytest.mark.parametrize("directed", [False, True])
def test_default_words_depth_matrix(directed):
    g = breadth.kronecker(10, seed=4)
    if directed:
        keep = np.random.default_rng(1).random(g.indices.size) < 0.6
        src = np.repeat(np.arange(g.num_vertices), np.diff(g.indptr))
        g = breadth.Graph.from_edges(src[keep], g.indices[keep], num_vertices=g.num_vertices, directed=True)
    sources = np.random.default_rng(2).integers(0, g.num_vertices, 700)    # W = 8, two groups
    depths = multi_bfs(g, sources)
    ref = csg.shortest_path(g.to_scipy(), directed=g.directed, unweighted=True, indices=sources)
    want = np.where(np.isinf(ref), 255, ref).astype(np.uint8)
    np.testing.assert_array_equal(depths, want)
    res = msbfs(g, sources)                    # the summaries of the same W = 8 traversal
    reached = np.isfinite(ref)
    np.testing.assert_array_equal(res.reached, reached.sum(axis=1))
    np.testing.assert_array_equal(res.distance_sum, np.where(reached, ref, 0).sum(axis=1).astype(np.int64))
    np.testing.assert_array_equal(res.eccentricity, np.where(reached, ref, 0).max(axis=1).astype(np.int64))
