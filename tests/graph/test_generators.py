"""Kronecker and uniform generators: determinism, slicing, and Graph500 statistics."""
import numba
import numpy as np
import pytest

import breadth
from breadth.graph import generators


def octave_kronecker(scale, edgefactor, seed):
    """Independent generator: the Graph500 Octave spec (kronecker_generator.m), vectorised numpy."""
    rng = np.random.default_rng(seed)
    m = edgefactor << scale
    A, B, C = 0.57, 0.19, 0.19
    ab = A + B
    c_norm = C / (1 - ab)
    a_norm = A / ab
    i = np.zeros(m, dtype=np.int64)
    j = np.zeros(m, dtype=np.int64)
    for ib in range(scale):
        ii = rng.random(m) > ab
        jj = rng.random(m) > np.where(ii, c_norm, a_norm)
        i += ii.astype(np.int64) << ib
        j += jj.astype(np.int64) << ib
    return i, j


def summary(src, dst, n):
    keep = src != dst
    lo = np.minimum(src, dst)[keep]
    hi = np.maximum(src, dst)[keep]
    distinct = np.unique(lo * n + hi).size
    deg = np.bincount(np.concatenate([lo, hi]), minlength=n)
    return distinct, int(np.count_nonzero(deg)), int(keep.size - keep.sum())


def test_same_seed_same_graph_with_one_and_two_threads():
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        s1, d1 = breadth.kronecker_edges(14, 16, 42)
        g1 = breadth.Graph.from_edges(s1, d1, 1 << 14)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        s2, d2 = breadth.kronecker_edges(14, 16, 42)
        g2 = breadth.Graph.from_edges(s2, d2, 1 << 14)
    finally:
        numba.set_num_threads(old)
    np.testing.assert_array_equal(s1, s2)
    np.testing.assert_array_equal(d1, d2)
    np.testing.assert_array_equal(g1.indptr, g2.indptr)
    np.testing.assert_array_equal(g1.indices, g2.indices)


def test_different_seeds_differ_and_slices_are_independent():
    s, d = breadth.kronecker_edges(10, 16, 1)
    s2, _ = breadth.kronecker_edges(10, 16, 2)
    assert not np.array_equal(s, s2)
    a, b = breadth.kronecker_edges(10, 16, 1, start=1000, stop=5000)
    np.testing.assert_array_equal(a, s[1000:5000])
    np.testing.assert_array_equal(b, d[1000:5000])


def test_scramble_is_a_permutation():
    for scale in (1, 5, 13):
        mask = np.uint64((1 << scale) - 1)
        keys = generators._keys(7, 2)[:4]
        out = {int(generators._scramble(np.uint64(v), scale, mask, keys)) for v in range(1 << scale)}
        assert out == set(range(1 << scale))


def test_kronecker_scale16_matches_graph500_statistics():
    scale, ef = 16, 16
    n = 1 << scale
    s, d = breadth.kronecker_edges(scale, ef, 5)
    assert s.size == ef * n and s.min() >= 0 and max(s.max(), d.max()) < n
    ours = summary(s, d, n)
    ref = summary(*octave_kronecker(scale, ef, 11), n)
    # distinct undirected edges, non-isolated vertices, self-loops: same distribution
    assert abs(ours[0] - ref[0]) / ref[0] < 0.005, (ours, ref)
    assert abs(ours[1] - ref[1]) / ref[1] < 0.01, (ours, ref)
    assert abs(ours[2] - ref[2]) < 6 * np.sqrt(ref[2]) + 10, (ours, ref)
    g = breadth.Graph.from_edges(s, d, n)
    assert g.num_edges == ours[0]
    # heavy tail: the largest degree is far above the mean, as R-MAT graphs have
    deg = g.degree()
    assert deg.max() > 50 * deg.mean()
    # scrambled labels: hubs are not clustered at small ids
    top = np.argsort(deg)[-100:]
    assert top.mean() > n / 8


def test_clip_and_flip_orders_unscrambled_endpoints():
    # with scrambling disabled (identity keys: add 0, multiply 1, but bit reversal twice)
    scale = 8
    keys = np.zeros(4, dtype=np.uint64)
    src = np.empty(5000, dtype=np.int64)
    dst = np.empty(5000, dtype=np.int64)
    generators._kronecker_range(scale, 0, 5000, generators._keys(3, 1)[0], keys, src, dst)
    assert np.all(src <= dst)


def test_uniform_random_statistics():
    scale, k = 14, 8
    s, d = breadth.uniform_random_edges(scale, k, 3)
    n = 1 << scale
    assert s.size == k * n
    deg = np.bincount(np.concatenate([s, d]), minlength=n)
    assert abs(deg.mean() - 2 * k) < 1e-9
    assert deg.max() < 4 * 2 * k         # no heavy tail
    g = breadth.uniform_random(scale, k, 3)
    assert g.num_vertices == n


@pytest.mark.parametrize("scale", [-1, 2.5, "3", True])
def test_bad_scale(scale):
    with pytest.raises(breadth.InputError):
        breadth.kronecker(scale)


def test_too_large_scale_refused_with_estimate():
    with pytest.raises(breadth.MemoryEstimateError, match="GiB"):
        breadth.kronecker(36)
    with pytest.raises(breadth.InputError, match="largest supported"):
        breadth.kronecker(60)


def test_return_edges_and_directed():
    g, (s, d) = breadth.kronecker(9, 4, seed=2, return_edges=True)
    h = breadth.Graph.from_edges(s, d, 512)
    np.testing.assert_array_equal(g.indices, h.indices)
    gd = breadth.kronecker(9, 4, seed=2, directed=True)
    assert gd.directed and gd.num_edges >= g.num_edges
