"""The radix CSR build (breadth/graph/radix.py) against scipy, with buckets made tiny so that small
graphs exercise the many-bucket, insertion-sort, radix-sort and big-bucket paths."""
import numba
import numpy as np
import pytest
import scipy.sparse as sp

import breadth
from breadth.graph import radix


def reference(src, dst, n, symmetric):
    """(indptr, indices) of the arcs, both ways when symmetric, deduplicated, no self-loops."""
    keep = src != dst
    s, d = src[keep], dst[keep]
    if symmetric:
        s, d = np.concatenate((s, d)), np.concatenate((d, s))
    a = sp.csr_array((np.ones(s.size), (s, d)), shape=(n, n))
    a.sum_duplicates()
    a.sort_indices()
    return a.indptr.astype(np.int64), a.indices.astype(np.int64)


def assert_matches(src, dst, n, symmetric, index_dtype=np.int32):
    indptr, indices, loops = radix.radix_csr(src, dst, n, symmetric, index_dtype)
    ref_ptr, ref_idx = reference(src, dst, n, symmetric)
    np.testing.assert_array_equal(indptr, ref_ptr)
    np.testing.assert_array_equal(indices, ref_idx)
    assert indptr.dtype == np.int64 and indices.dtype == index_dtype
    assert loops == int(np.sum(src == dst))


@pytest.fixture(params=[True, False], ids=["32-bit keys", "64-bit keys"])
def tiny_buckets(monkeypatch, request):
    """Buckets of ~32 keys: every graph here spans many buckets, some sorted by insertion, some
    by radix, and hubs overflow into the big-bucket path; keys 32-bit or 64-bit."""
    monkeypatch.setattr(radix, "TARGET_BUCKET", 32)
    monkeypatch.setattr(radix, "KEY32", request.param)
    monkeypatch.setattr(radix, "SMALL", 8)
    calls = []
    real = radix._sort_big

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(radix, "_sort_big", counting)
    return calls


def shapes():
    rng = np.random.default_rng(7)
    out = {}
    n = 3000
    out["uniform"] = (rng.integers(0, n, 20000), rng.integers(0, n, 20000), n)
    s, d = breadth.kronecker_edges(11, 16, 5)
    out["kronecker"] = (s, d, 1 << 11)
    hub = np.zeros(5000, dtype=np.int64)
    out["star"] = (hub, rng.integers(0, 4000, 5000), 4000)
    out["empty rows, isolated tail"] = (rng.integers(0, 50, 4000) * 7, rng.integers(0, 50, 4000) * 7, 1000)
    loops = rng.integers(0, 300, 3000)
    out["self-loops and duplicates"] = (np.concatenate((loops, loops[:900])), np.concatenate((loops, loops[:900][::-1])), 300)
    out["one vertex"] = (np.zeros(10, dtype=np.int64), np.zeros(10, dtype=np.int64), 1)
    out["no edges"] = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), 17)
    return out


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("name", list(shapes()))
def test_many_buckets_match_scipy(tiny_buckets, name, symmetric):
    src, dst, n = shapes()[name]
    assert_matches(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), n, symmetric)


def test_hub_bucket_takes_the_big_bucket_path(tiny_buckets):
    src, dst, n = shapes()["star"]
    assert_matches(src, dst, n, True)
    assert tiny_buckets, "the hub's bucket should exceed the per-thread scratch"


def test_default_buckets_on_a_graph_of_several_buckets():
    """Default layout with more than one bucket (slots > 2 * TARGET_BUCKET)."""
    rng = np.random.default_rng(3)
    n = 1 << 15
    src, dst = rng.integers(0, n, 200_000), rng.integers(0, n, 200_000)
    assert radix.key_layout(n, 2 * src.size)[2] > 1
    assert_matches(src, dst, n, True)
    assert_matches(src, dst, n, False, np.int64)


def test_layout_prefers_32_bit_keys_up_to_the_bucket_cap():
    bits, shift, nb = radix.key_layout(1 << 22, 1 << 27)     # Kronecker scale 22: 2^22 ids, 2^27 arcs
    assert shift + bits == 32 and nb == radix.MAX_BUCKETS
    bits, shift, nb = radix.key_layout(1 << 23, 1 << 28)     # one scale more: 64-bit keys
    assert shift + bits > 32 and nb <= radix.MAX_BUCKETS


@pytest.mark.parametrize("symmetric", [True, False])
def test_same_for_every_thread_count_and_edge_order(tiny_buckets, symmetric):
    src, dst, n = shapes()["kronecker"]
    perm = np.random.default_rng(1).permutation(src.size)
    before = numba.get_num_threads()
    results = []
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS), numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            results.append(radix.radix_csr(src, dst, n, symmetric, np.int32))
            results.append(radix.radix_csr(src[perm], dst[perm], n, symmetric, np.int32))
    finally:
        numba.set_num_threads(before)
    for indptr, indices, loops in results[1:]:
        np.testing.assert_array_equal(indptr, results[0][0])
        np.testing.assert_array_equal(indices, results[0][1])
        assert loops == results[0][2]


@pytest.mark.parametrize("n", [1, 2, 1000, 2**22, 2**31 - 1, 2**31, 2**35, 2**40])
@pytest.mark.parametrize("slots", [0, 10, 10**6, 2**31, 2**40])
def test_key_layout_fits_every_id(n, slots):
    """Keys (local source << bits | target) stay below 2^62 and the buckets cover every vertex,
    also for int64 ids beyond 2^31."""
    bits, shift, nb = radix.key_layout(n, slots)
    assert (n - 1) >> bits == 0
    assert shift + bits <= 62 and shift >= 0
    assert nb << shift >= n and (nb - 1) << shift < max(n, 1)
    assert nb <= radix.MAX_BUCKETS or shift == 62 - bits


def test_from_edges_int64_ids_and_input_dtypes():
    rng = np.random.default_rng(5)
    n = 5000
    src, dst = rng.integers(0, n, 30000), rng.integers(0, n, 30000)
    g = breadth.Graph.from_edges(src.astype(np.uint32), dst.astype(np.int32), n, index_dtype=np.int64)
    ref_ptr, ref_idx = reference(src, dst, n, True)
    assert g.indices.dtype == np.int64
    np.testing.assert_array_equal(g.indptr, ref_ptr)
    np.testing.assert_array_equal(g.indices, ref_idx)


def test_memory_estimate_covers_the_build(monkeypatch):
    """The up-front estimate is at least the radix build's own exact check."""
    from breadth.graph import memory

    seen = []
    monkeypatch.setattr(radix, "check_fits", lambda what, needed: seen.append(needed))
    s, d = breadth.kronecker_edges(12, 16, 2)
    n = 1 << 12
    radix.radix_csr(s, d, n, True, np.int32)
    radix.radix_csr(s, d, n, False, np.int32)
    assert memory.csr_build_bytes(n, s.size, False) >= seen[0] + 16 * s.size
    assert memory.csr_build_bytes(n, s.size, True) >= seen[1] + 16 * s.size
