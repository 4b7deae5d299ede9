"""The W = 8 bottom-up level's two in-neighbour loops (dense: tested edge by edge with prefetch;
sparse: branch-free chunks) against scipy, level by level on a bottom-up-only traversal."""
import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import breadth
from breadth.multisource.bottom_up import bu_identify
from breadth.multisource.status import new_tallies, sum_tallies, unused_pattern

ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


def bottom_up_levels(g, sources, front_edges):
    """Every level of a W = 8 joint BFS by ``bu_identify`` alone; ``front_edges`` forces its loop
    (0: the sparse one, every arc: the dense one). Returns the (n, |S|) depths (-1: unreached)."""
    n, words = g.num_vertices, 8
    pattern = unused_pattern(sources.size, words)
    prev = np.tile(pattern, n)
    for j, s in enumerate(sources):
        prev[s * words + j // 64] |= np.uint64(1) << np.uint64(j % 64)
    status = prev.copy()
    nw = (n + 63) // 64
    bits = np.zeros(nw * 64, dtype=bool)
    bits[:n] = np.diff(g.in_indptr) > 0
    unfull = np.packbits(bits, bitorder="little").view(np.uint64).copy()
    front_bits = np.zeros(nw * 64, dtype=bool)
    front_bits[sources] = True
    front = np.packbits(front_bits, bitorder="little").view(np.uint64).copy()
    next_front = np.zeros(nw, dtype=np.uint64)
    depth = np.full((n, sources.size), -1, dtype=np.int64)
    depth[sources, np.arange(sources.size)] = 0
    tallies = new_tallies(words)
    counts = np.zeros(64 * words, dtype=np.int64)
    idle = pattern.copy()
    dplanes = np.zeros((1, 1), dtype=np.uint64)
    level = 0
    while front.any():
        level += 1
        bu_identify(g.indptr, g.in_indptr, g.in_indices, words, prev, status, unfull, idle, front, next_front,
                    tallies, level, dplanes, False, front_edges)
        sum_tallies(tallies, counts)
        rows = status.reshape(n, words)
        got = np.unpackbits(rows.view(np.uint8), axis=1, bitorder="little")[:, :sources.size].astype(bool)
        new = got & (depth < 0)
        depth[new] = level
        np.testing.assert_array_equal(counts[:sources.size], new.sum(axis=0))
        idle = unused_pattern(sources.size, words) | np.packbits(
            np.concatenate([counts[:sources.size] == 0, np.zeros(64 * words - sources.size, bool)]),
            bitorder="little").view(np.uint64)
        prev, status = status, prev
        front, next_front = next_front, front
    return depth


@pytest.mark.parametrize("scale,count", [(9, 300), (12, 512)])
@pytest.mark.parametrize("directed", [False, True])
def test_both_loops_match_scipy(scale, count, directed):
    g = breadth.kronecker(scale, seed=5)
    if directed:
        keep = np.random.default_rng(3).random(g.indices.size) < 0.5
        src = np.repeat(np.arange(g.num_vertices), np.diff(g.indptr))
        g = breadth.Graph.from_edges(src[keep], g.indices[keep], num_vertices=g.num_vertices, directed=True)
    sources = np.random.default_rng(scale).choice(g.num_vertices, count, replace=False)
    ref = csg.shortest_path(g.to_scipy(), directed=g.directed, unweighted=True, indices=sources)
    want = np.where(np.isinf(ref), -1, ref).astype(np.int64).T
    for front_edges in (0, int(g.indptr[-1])):
        np.testing.assert_array_equal(bottom_up_levels(g, sources, front_edges), want)
