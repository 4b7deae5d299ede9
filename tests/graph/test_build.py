"""CSR construction against scipy, and refusal of bad edge arrays."""
import numpy as np
import pytest
import scipy.sparse as sp

import breadth


def scipy_csr(src, dst, n, directed):
    a = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    if not directed:
        a = a + a.T
    a = a.tolil()
    a.setdiag(0)
    a = a.tocsr()
    a.eliminate_zeros()
    a.sort_indices()
    return a


def assert_same_csr(g, ref, directed):
    """g's out-CSR equals scipy's ``ref`` (and, directed, its in-CSR the transpose's)."""
    np.testing.assert_array_equal(g.indptr, ref.indptr)
    np.testing.assert_array_equal(g.indices, ref.indices)
    if directed:
        t = ref.T.tocsr()
        t.sort_indices()
        np.testing.assert_array_equal(g.in_indptr, t.indptr)
        np.testing.assert_array_equal(g.in_indices, t.indices)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_matches_scipy(seed, directed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 500))
    m = int(rng.integers(0, 3000))
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    g = breadth.Graph.from_edges(s, d, n, directed=directed)
    ref = scipy_csr(s, d, n, directed)
    assert_same_csr(g, ref, directed)
    if directed:
        assert g.num_edges == ref.nnz
    else:
        assert g.num_edges == ref.nnz // 2
    info = g.build_info
    assert info.tuples == m
    assert info.self_loops == int(np.sum(s == d))


def test_counts_self_loops_and_duplicates():
    g = breadth.Graph.from_edges([0, 0, 1, 1, 2, 2], [1, 1, 0, 1, 2, 0], 4)
    assert g.num_edges == 2                      # {0,1}, {0,2}
    assert g.build_info.self_loops == 2
    assert g.build_info.duplicates == 2          # (0,1) twice more
    np.testing.assert_array_equal(g.neighbors(0), [1, 2])
    assert g.degree().tolist() == [2, 1, 1, 0]   # isolated vertex 3 kept


def test_empty_and_isolated_tail():
    g = breadth.Graph.from_edges([], [], 0)
    assert g.num_vertices == 0 and g.num_edges == 0
    g = breadth.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert g.num_vertices == 0
    g = breadth.Graph.from_edges([0], [1], 10)
    assert g.num_vertices == 10 and g.degree()[9] == 0


def test_ids_beyond_int32_use_wide_neighbour_ids():
    from breadth.graph.memory import choose_index_dtype

    assert choose_index_dtype(2**31 - 1, None) is np.int32
    assert choose_index_dtype(2**31, None) is np.int64
    with pytest.raises(breadth.InputError, match="int32"):
        choose_index_dtype(2**31, np.int32)
    # a graph with 3e9 vertices is refused up front on this machine, never half-allocated
    with pytest.raises(breadth.MemoryEstimateError, match="GiB"):
        breadth.Graph.from_edges([0, 2_999_999_999], [5, 1], 3_000_000_000)


@pytest.mark.parametrize("src,dst,n,msg", [
    ([0, -1], [1, 2], None, "negative"),
    ([0, 5], [1, 2], 3, "out of range"),
    ([0, 1], [1], None, "equal length"),
    ([0.5], [1.0], None, "integers"),
    ([[0, 1]], [[1, 2]], None, "1-D"),
    ([0], [1], -1, "num_vertices"),
])
def test_bad_edges(src, dst, n, msg):
    with pytest.raises(breadth.InputError, match=msg):
        breadth.Graph.from_edges(np.array(src), np.array(dst), n)


def test_graph_constructor_checks_structure():
    with pytest.raises(breadth.InputError):
        breadth.Graph(np.array([0, 2, 1], dtype=np.int64), np.array([1, 0], dtype=np.int32))
    with pytest.raises(breadth.InputError):
        breadth.Graph(np.array([0, 1], dtype=np.int64), np.array([5], dtype=np.int32))
    with pytest.raises(breadth.InputError):
        breadth.Graph(np.array([0, 1], dtype=np.int32), np.array([0], dtype=np.int32))
    with pytest.raises(breadth.InputError, match="in-edge"):
        breadth.Graph(np.array([0, 1, 1], dtype=np.int64), np.array([1], dtype=np.int32), directed=True)


def test_scipy_round_trip_and_vertex_errors():
    s, d = breadth.kronecker_edges(8, 4, 1)
    g = breadth.Graph.from_edges(s, d, 256)
    h = breadth.Graph.from_scipy(g.to_scipy())
    assert not h.directed
    np.testing.assert_array_equal(g.indices, h.indices)
    with pytest.raises(breadth.InputError, match="does not exist"):
        g.neighbors(256)
    with pytest.raises(breadth.InputError):
        breadth.Graph.from_scipy(np.eye(3))
    assert "undirected" in repr(g)


@pytest.mark.parametrize("directed", [False, True])
def test_skewed_graph_same_for_every_thread_count(directed):
    """Hubs make the transposition's row chunks uneven; the CSR must not depend on the chunking."""
    import numba

    s, d = breadth.kronecker_edges(10, 16, 3)
    n = 1 << 10
    ref = scipy_csr(s, d, n, directed)
    before = numba.get_num_threads()
    try:
        for threads in sorted({1, min(2, numba.config.NUMBA_NUM_THREADS), numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            assert_same_csr(breadth.Graph.from_edges(s, d, n, directed=directed), ref, directed)
    finally:
        numba.set_num_threads(before)
