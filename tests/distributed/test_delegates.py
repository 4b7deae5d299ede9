"""The delegates layout's pieces without MPI: the threshold rule and its histogram, the threshold
check, the partition's delegate numbering, and the edge distributor on one rank (every arc in
exactly one subgraph, transposes exact) against the plain arc list."""
import numpy as np
import pytest

import breadth
from breadth.checks import check_threshold
from breadth.distributed import registry
from breadth.distributed.delegates.partition import (AUTO_DIVISOR, Delegates, auto_threshold, degree_histogram,
                                                     delegates_above)
from breadth.distributed.delegates.search import DelegatesSearch
from breadth.distributed.delegates.subgraphs import Subgraphs
from breadth.distributed.one_d.partition import OneD
from breadth.distributed.owned.build import LocalGraph
from breadth.distributed.search_base import SearchOptions
from breadth.errors import InputError


def test_registered_as_a_partition():
    assert "delegates" in registry.partitions()
    layout = registry.get("delegates")
    assert layout.exchange == "alltoall" and layout.search is DelegatesSearch
    small = layout.estimate_bytes(1 << 10, 1 << 14, 4, SearchOptions(), False)
    assert layout.estimate_bytes(1 << 20, 1 << 24, 4, SearchOptions(), False) > small > 0


@pytest.mark.parametrize("seed", range(4))
def test_histogram_counts_delegates_of_every_power_of_two(seed):
    rng = np.random.default_rng(seed)
    deg = np.concatenate([rng.integers(0, 3, 50), rng.zipf(1.6, 500).clip(max=1 << 20), [1 << 12, (1 << 12) + 1]])
    hist = degree_histogram(deg)
    for k in range(22):
        assert delegates_above(hist, k) == int(np.count_nonzero(deg > (1 << k))), k


def test_auto_threshold_is_the_smallest_power_of_two_within_the_limit():
    rng = np.random.default_rng(7)
    deg = rng.zipf(1.5, 1 << 14).clip(max=1 << 16)
    n, P = deg.size, 4
    hist = degree_histogram(deg)
    th = auto_threshold(hist, n, P)
    limit = n / (P * AUTO_DIVISOR)
    assert th & (th - 1) == 0
    assert np.count_nonzero(deg > th) <= limit
    assert th == 1 or np.count_nonzero(deg > th // 2) > limit
    assert auto_threshold(degree_histogram(np.zeros(10, np.int64)), 10, 2) == 1


@pytest.mark.parametrize("value,ok", [("auto", "auto"), (0, 0), (np.int64(9), 9), (-1, None), ("x", None),
                                      (2.5, None), (True, None)])
def test_check_threshold(value, ok):
    if ok is None:
        with pytest.raises(InputError, match="threshold must be 'auto' or an integer >= 0"):
            check_threshold(value)
    else:
        assert check_threshold(value) == ok


def test_layout_params_threshold_and_mask():
    check = registry.get("delegates").check_params
    assert check({}, 4) == {"threshold": "auto", "mask": "allreduce"}
    assert check({"threshold": 8, "mask": "iallreduce"}, 2) == {"threshold": 8, "mask": "iallreduce"}
    assert check({"mask": "overlap"}, 2)["mask"] == "overlap"
    with pytest.raises(InputError, match="mask must be one of allreduce, iallreduce, overlap, got 'bcast'"):
        check({"mask": "bcast"}, 2)
    with pytest.raises(InputError, match="threshold must be"):
        check({"threshold": -1}, 2)


def test_delegate_index():
    part = Delegates(np.array([0, 128], dtype=np.int64), 0, [5, 64, 3], 7)
    assert part.delegates.tolist() == [3, 5, 64] and part.num_delegates == 3
    assert part.delegate_index([3, 4, 5, 64, 127]).tolist() == [0, -1, 1, 2, -1]
    desc = part.describe()
    assert desc["partition"] == "delegates" and desc["threshold"] == 7 and desc["delegates"] == 3


def _arcs_of(sub, part):
    """Global (src, dst) arcs held by the four subgraphs of a one-rank partition."""
    dels, lo = part.delegates, part.lo
    out = []
    for name, rows_global, cols_global in (("nn", lambda r: r + lo, lambda c: c),
                                           ("nd", lambda r: r + lo, lambda c: dels[c]),
                                           ("dn", lambda r: dels[r], lambda c: c + lo),
                                           ("dd", lambda r: dels[r], lambda c: dels[c])):
        ip, ix = getattr(sub, f"{name}_ip"), getattr(sub, f"{name}_ix")
        rows = np.repeat(np.arange(ip.size - 1), np.diff(ip))
        out += list(zip(rows_global(rows).tolist(), cols_global(np.asarray(ix, dtype=np.int64)).tolist()))
    return out


def _transpose_pairs(ip, ix):
    rows = np.repeat(np.arange(ip.size - 1), np.diff(ip))
    return sorted(zip(np.asarray(ix).tolist(), rows.tolist()))


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("threshold", [0, 2, 5, 1000])
def test_edge_distributor_on_one_rank(directed, threshold):
    rng = np.random.default_rng(3)
    n = 300
    src = np.concatenate([np.zeros(80, np.int64), rng.integers(0, n, 900)])
    dst = np.concatenate([rng.integers(0, n, 80), rng.integers(0, n, 900)])
    g = breadth.Graph.from_edges(src, dst, num_vertices=n, directed=directed)
    part1 = OneD.even(n, 1, 0)
    lg1 = LocalGraph(part1, g.indptr, g.indices, g.in_indptr if directed else None,
                     g.in_indices if directed else None, directed=directed)
    deg = np.diff(g.indptr)
    part = Delegates(part1.bounds, 0, np.flatnonzero(deg > threshold), threshold)
    sub = Subgraphs(lg1, part)
    want = sorted(zip(np.repeat(np.arange(n), deg).tolist(), np.asarray(g.indices).tolist()))
    assert sorted(_arcs_of(sub, part)) == want
    assert int(sub.arc_counts().sum()) == g.indptr[-1]
    assert _transpose_pairs(sub.ndT_ip, sub.ndT_ix) == sorted(
        zip(np.repeat(np.arange(n), np.diff(sub.nd_ip)).tolist(), sub.nd_ix.tolist()))
    assert _transpose_pairs(sub.ddT_ip, sub.ddT_ix) == sorted(
        zip(np.repeat(np.arange(part.num_delegates), np.diff(sub.dd_ip)).tolist(), sub.dd_ix.tolist()))
    assert _transpose_pairs(sub.dnT_ip, sub.dnT_ix) == sorted(
        zip(np.repeat(np.arange(part.num_delegates), np.diff(sub.dn_ip)).tolist(), sub.dn_ix.tolist()))
    assert sub.cut_nn == 0 and sub.nbytes >= sub.forward_nbytes > 0
    for ix in (sub.nd_ix, sub.dn_ix, sub.dd_ix):
        assert ix.dtype == np.int32


@pytest.mark.parametrize("d", [0, 1, 63, 64, 65, 1000, 4099])
def test_mask_list_matches_unpackbits(d):
    from breadth.distributed.delegates.search import mask_list

    rng = np.random.default_rng(d)
    words = (d + 63) // 64
    for density in (0.0, 0.01, 0.5, 1.0):
        bits = (rng.random(words * 64) < density).astype(np.uint8)
        mask = np.packbits(bits, bitorder="little").view(np.uint64)
        assert np.array_equal(mask_list(mask, d), np.flatnonzero(bits[:d]))
