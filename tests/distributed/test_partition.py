"""1D partition: contiguous, 64-aligned, edge-balanced ranges; owner and local/global ids."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import breadth
from breadth.distributed.one_d.partition import OneD
from breadth.distributed.owned.partition import BLOCK, balanced_bounds, block_weights
from breadth.errors import InputError


def _check_bounds(bounds, n, P):
    assert bounds.shape == (P + 1,) and bounds[0] == 0 and bounds[-1] == n
    assert np.all(np.diff(bounds) >= 0)
    inner = bounds[1:-1]
    assert np.all((inner % BLOCK == 0) | (inner == n))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 3000), P=st.integers(1, 12), seed=st.integers(0, 2**31))
def test_bounds_are_contiguous_aligned_and_cover(n, P, seed):
    rng = np.random.default_rng(seed)
    nblocks = (n + 63) // 64
    weights = rng.integers(0, 100, nblocks) * (rng.random(nblocks) < 0.7)
    bounds = balanced_bounds(weights, n, P)
    _check_bounds(bounds, n, P)
    part = [OneD(bounds, r) for r in range(P)]
    v = np.arange(n)
    owners = part[0].owner(v)
    for r, p in enumerate(part):
        mine = v[owners == r]
        assert np.array_equal(mine, np.arange(p.lo, p.hi))
        assert np.array_equal(p.to_global(p.to_local(mine)), mine)
        assert p.num_local == mine.size
    assert part[0].word_counts().sum() == (n + 63) // 64


def test_kronecker_split_is_edge_balanced():
    src, dst = breadth.kronecker_edges(14, 16, 3)
    n = 1 << 14
    w = block_weights(src, dst, n)
    loops = src == dst
    assert w.sum() == 2 * np.count_nonzero(~loops)
    for P in (2, 3, 4, 8):
        bounds = balanced_bounds(w, n, P)
        deg = np.bincount(src[~loops], minlength=n) + np.bincount(dst[~loops], minlength=n)
        share = np.array([deg[a:b].sum() + (b - a) for a, b in zip(bounds[:-1], bounds[1:])])
        # within one block's weight of the ideal share (plus the heaviest block)
        ideal = share.sum() / P
        heaviest = max(int((w + 64).max()), 1)
        assert np.all(np.abs(share - ideal) <= heaviest), (P, share, ideal)


def test_hub_leaves_some_ranks_empty_but_valid():
    n = 640
    w = np.zeros(10, dtype=np.int64)
    w[3] = 10**6                       # one block holds almost every edge
    bounds = balanced_bounds(w, n, 8)
    _check_bounds(bounds, n, 8)
    sizes = np.diff(bounds)
    assert (sizes == 0).any() and sizes.sum() == n


def test_even_split_without_edges():
    b = OneD.even(6400, 4, 0).bounds
    assert np.array_equal(b, [0, 1600, 3200, 4800, 6400])


@pytest.mark.parametrize("bounds", [[0, 10, 64], [1, 64], [0, 128, 64], [0]])
def test_invalid_bounds_refused(bounds):
    with pytest.raises(InputError):
        OneD(np.array(bounds), 0)
