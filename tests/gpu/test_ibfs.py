"""iBFS on the GPU (``device="cuda"``): depths, histograms, statistics, reach sets and centralities
equal the CPU path's."""
import numpy as np
import pytest

import breadth
from breadth.multisource import closeness, harmonic_centrality, khop_reachability, msbfs, multi_bfs

GROUP_SIZES = [1, 63, 64, 65, 130]


@pytest.fixture(scope="module")
def gpu(cuda):
    from breadth import gpu

    return gpu


def _run_on_gpu(gpu, graph, sources, **options):
    return msbfs(graph, np.asarray(sources), device="cuda", **options)


@pytest.fixture(scope="module")
def kron():
    s, d = breadth.kronecker_edges(8, 8, 11)
    return breadth.Graph.from_edges(s, d, 256), breadth.Graph.from_edges(s, d, 256, directed=True)


@pytest.mark.parametrize("group_size", GROUP_SIZES)
def test_depths_equal_cpu_multi_bfs(gpu, kron, group_size):
    undirected, directed = kron
    rng = np.random.default_rng(group_size)
    for g in (undirected, directed):
        sources = rng.integers(0, g.num_vertices, group_size)
        res = _run_on_gpu(gpu, g, sources, keep_depths=True, group_size=group_size)
        expected = multi_bfs(g, sources, group_size=group_size)
        np.testing.assert_array_equal(res.depths, expected)
        np.testing.assert_array_equal(multi_bfs(g, sources, group_size=group_size, device="cuda"), expected)
        cpu = msbfs(g, sources, group_size=group_size)
        np.testing.assert_array_equal(res.reached, cpu.reached)
        np.testing.assert_array_equal(res.distance_sum, cpu.distance_sum)
        np.testing.assert_array_equal(res.eccentricity, cpu.eccentricity)
        for a, b in zip(res.group_results, cpu.group_results):   # same levels, same directions
            np.testing.assert_array_equal(a.hist, b.hist)
            np.testing.assert_array_equal(a.stats, b.stats)


@pytest.mark.parametrize("algorithm", ["td", "bu"])
def test_pinned_directions_and_max_depth(gpu, kron, algorithm):
    g = kron[1]
    sources = np.arange(0, 256, 4)
    for max_depth in (None, 2):
        res = _run_on_gpu(gpu, g, sources, keep_depths=True, algorithm=algorithm, max_depth=max_depth)
        np.testing.assert_array_equal(res.depths, multi_bfs(g, sources, max_depth=max_depth, algorithm=algorithm))
        directions = {int(x) for r in res.group_results for x in r.stats[1:, 1]}
        assert directions == ({0} if algorithm == "td" else {1})


def test_reach_sets_and_centralities(gpu, kron):
    g = kron[1]
    sources = np.array([0, 5, 9, 9, 200])
    got = khop_reachability(g, sources, 2, device="cuda")
    assert (got != khop_reachability(g, sources, 2)).nnz == 0 and got.shape == (5, 256)
    np.testing.assert_allclose(closeness(g, sources, device="cuda"), closeness(g, sources))
    np.testing.assert_allclose(harmonic_centrality(g, sources, device="cuda"), harmonic_centrality(g, sources))
    np.testing.assert_array_equal(breadth.eccentricity(g, sources, device="cuda"), breadth.eccentricity(g, sources))


def test_checkpoint_resumes_across_devices(gpu, kron, tmp_path):
    g = kron[0]
    sources = np.arange(0, 200, 3)
    cpu = msbfs(g, sources, group_size=16, checkpoint=tmp_path / "ck")
    res = msbfs(g, sources, group_size=16, checkpoint=tmp_path / "ck", device="cuda")
    assert res.resumed == len(cpu.groups) > 1
    np.testing.assert_array_equal(res.distance_sum, cpu.distance_sum)


@pytest.mark.slow
def test_deep_graph_widens_depth_dtype_on_the_device(gpu):
    from breadth.gpu.ibfs_kernels import IROW

    n = 258                                  # a directed path: from its end nothing is reached (uint8),
    v = np.arange(n - 1)                     # from its start depths pass 254, so the matrix widens on the
    g = breadth.Graph.from_edges(v, v + 1, n, directed=True)    # device (unreachable kept), the group
    with gpu.count_transfers() as t:                             # reruns, and the matrix comes back once
        got = multi_bfs(g, [n - 1, 0], group_size=1, device="cuda", algorithm="bu")
    assert got.dtype == np.uint16 and got[0, 0] == np.iinfo(np.uint16).max and got[1, n - 1] == n - 1
    assert [size for size in t.sizes_to_host if size != 8 * IROW] == [got.nbytes]
    np.testing.assert_array_equal(got, multi_bfs(g, [n - 1, 0]))


def test_joint_frontier_at_the_beta_limit_stays_bottom_up_as_on_the_cpu(gpu, kron):
    """A JFQ of exactly n / beta vertices after a bottom-up level stays bottom-up on both devices
    (``stay_bottom_up(..., stay_at_limit=True)``, the CPU traversal's rule)."""
    g = kron[1]
    sources = np.random.default_rng(4).integers(0, 256, 8)
    beta = 32.0                                # n / beta = 8 = the JFQ after level 3 (bottom-up)
    cpu = msbfs(g, sources, group_size=64, beta=beta).group_results[0].stats
    assert cpu[4, 1] == 1 and cpu[4, 5] == 256 / beta < cpu[3, 5]
    assert cpu[5, 1] == 1                      # stayed bottom-up at the limit (GAP's rule would go top-down)
    res = _run_on_gpu(gpu, g, sources, group_size=64, beta=beta)
    np.testing.assert_array_equal(res.group_results[0].stats, cpu)


@pytest.mark.parametrize("group_size", [1, 65])
def test_device_depth_matrix_equals_the_host_one(gpu, kron, group_size):
    g = kron[0]
    sources = np.random.default_rng(7).integers(0, g.num_vertices, 70)
    got = multi_bfs(g, sources, group_size=group_size, device="cuda", to_host=False)
    assert not isinstance(got, np.ndarray) and hasattr(got, "copy_to_host")
    assert got.shape == (70, g.num_vertices) and np.dtype(got.dtype) == np.uint8
    np.testing.assert_array_equal(got.copy_to_host(), multi_bfs(g, sources, group_size=group_size))


@pytest.mark.parametrize("fits", [True, False])
def test_host_depths_come_back_in_one_copy_unless_they_do_not_fit(gpu, kron, monkeypatch, fits):
    """Host results are assembled on the GPU and copied back once; a matrix that does not fit
    beside the graph and a group comes back group by group."""
    from breadth.gpu import multisource
    from breadth.gpu.ibfs_kernels import IROW

    if not fits:
        monkeypatch.setattr(multisource, "staged", lambda *args: None)
    g = kron[1]
    sources = np.random.default_rng(3).integers(0, g.num_vertices, 70)
    with gpu.count_transfers() as t:
        res = msbfs(g, sources, group_size=32, keep_depths=True, device="cuda")
    blocks = [size for size in t.sizes_to_host if size != 8 * IROW]       # less the levels' counter rows
    per_group = [g.num_vertices * len(members) for members in res.groups]
    assert len(per_group) == 3 and blocks == ([res.depths.nbytes] if fits else per_group)
    np.testing.assert_array_equal(res.depths, multi_bfs(g, sources, group_size=32))


def test_staging_fits_three_matrices_beside_the_graph_and_a_group(gpu, monkeypatch):
    from breadth.gpu import depth_matrix

    monkeypatch.setattr(depth_matrix.device, "free_memory", lambda: 1000.0)
    share = depth_matrix.STAGED_SHARE                  # 10 x 20 uint8 cells, 3 times: 600 bytes
    assert depth_matrix.staged(20, 10, np.uint8, 100, 1000 * share - 700) is not None
    assert depth_matrix.staged(20, 10, np.uint8, 101, 1000 * share - 700) is None
    assert depth_matrix.staged(20, 10, np.uint16, 0, 0) is None          # 1200 bytes


def test_device_depth_matrix_refuses_what_it_cannot_keep(gpu, kron, tmp_path):
    from breadth.errors import InputError

    g = kron[0]
    with pytest.raises(InputError, match="keep_depths"):
        msbfs(g, [0, 1], device="cuda", to_host=False)
    with pytest.raises(InputError, match="checkpoint"):
        multi_bfs(g, [0, 1], device="cuda", to_host=False, checkpoint=str(tmp_path / "ck"))
    with pytest.raises(InputError, match="device='cuda'"):
        multi_bfs(g, [0, 1], to_host=False)
