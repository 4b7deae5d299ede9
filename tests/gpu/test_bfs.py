"""Single-source GPU BFS (LRB top-down, bottom-up, direction-optimizing) against the CPU on the zoo."""
import numpy as np
import pytest

import breadth
from zoo import graphs, reference_depth

ZOO = list(graphs())
DEEP = {"path-1000", "path-1000-mid", "path-1000-directed", "path-1000-directed-rev", "cycle-301",
        "cycle-301-directed"}       # hundreds of levels: minutes in the simulator
ALGORITHMS = ["do", "td", "bu"]


def _entries():
    for entry in ZOO:
        marks = [pytest.mark.slow] if entry[0] in DEEP else []
        yield pytest.param(entry, id=entry[0], marks=marks)


@pytest.fixture(scope="module")
def gpu(cuda):
    from breadth import gpu

    return gpu


@pytest.fixture(scope="module")
def uploaded(gpu):
    return {}


def _device_graph(gpu, uploaded, name, s, d, n, directed):
    if name not in uploaded:
        uploaded[name] = gpu.DeviceGraph(breadth.Graph.from_edges(s, d, n, directed=directed))
    return uploaded[name]


@pytest.mark.parametrize("entry", list(_entries()))
def test_zoo_depths_equal_cpu_and_validate(gpu, uploaded, entry):
    name, s, d, n, directed, root = entry
    dg = _device_graph(gpu, uploaded, name, s, d, n, directed)
    expected = reference_depth(s, d, n, directed, root)
    for algorithm in ALGORITHMS:
        r = gpu.bfs(dg, root, algorithm)
        cpu = breadth.bfs(dg.graph, root, algorithm)
        np.testing.assert_array_equal(r.depth, cpu.depth, err_msg=algorithm)
        np.testing.assert_array_equal(r.depth, expected, err_msg=algorithm)
        assert r.parent.dtype == np.int64 and r.depth.dtype == np.int64
        assert r.parent[root] == root and r.engine == "cuda"
        breadth.validate(dg.graph, root, r.parent, r.depth)
        # the same policy on the same counts takes the same directions as the CPU driver
        assert [lv.direction for lv in r.levels] == [lv.direction for lv in cpu.levels]
        assert [lv.discovered for lv in r.levels] == [lv.discovered for lv in cpu.levels]


def _lrb_graph():
    """Hubs of every LRB granularity: degrees 1..31 (thread), 32..1023 (warp), >= 1024 (block)."""
    hubs = [1, 2, 3, 5, 17, 31, 32, 33, 100, 1023, 1024, 3000]
    src, dst, nxt = [], [], 1 + len(hubs)
    for k, deg in enumerate(hubs):          # vertex 0 -> hub k+1 -> deg leaves (shared pool beyond)
        src.append(0)
        dst.append(k + 1)
        leaves = np.arange(nxt, nxt + deg)
        src.extend([k + 1] * deg)
        dst.extend(leaves.tolist())
        nxt += deg // 2 + 1                 # neighbouring hubs share half their leaves: CAS races
    n = nxt + 3000
    src, dst = np.array(src), np.array(dst)
    tail = np.arange(nxt - 1, n - 1)        # a path from the last leaf: leaves in later levels
    return np.concatenate([src, tail]), np.concatenate([dst, tail + 1]), n, hubs


def test_lrb_bins_every_granularity(gpu):
    s, d, n, hubs = _lrb_graph()
    g = breadth.Graph.from_edges(s, d, n)
    deg = g.degree()
    bins = {int(np.floor(np.log2(x))) + 1 for x in deg[1:1 + len(hubs)]}
    assert min(bins) <= 5 and any(6 <= b <= 10 for b in bins) and max(bins) >= 11
    dg = gpu.DeviceGraph(g)
    r = gpu.bfs(dg, 0, "td", max_depth=4)
    np.testing.assert_array_equal(r.depth, breadth.bfs(g, 0, "td", max_depth=4).depth)
    breadth.validate(g, 0, r.parent, r.depth) if r.num_reached == n else None
    assert np.all(r.depth[1:1 + len(hubs)] == 1)
    reached = r.depth >= 0
    assert np.all(r.depth[reached] <= 4)
    assert np.all(reached[np.unique(g.indices[g.indptr[1]:g.indptr[1 + len(hubs)]])])


def test_production_launch_shape(gpu):
    """The block sizes a real GPU uses (128/128/256 threads, many blocks) give the same answers."""
    from breadth.gpu.device import Launch

    s, d, n, _ = _lrb_graph()
    g = breadth.Graph.from_edges(s[:6000], d[:6000], n)
    dg = gpu.DeviceGraph(g)
    launch = Launch(thread_tpb=128, warp_tpb=128, block_tpb=256, max_blocks=4)
    for algorithm in ALGORITHMS:
        r = gpu.bfs(dg, 0, algorithm, max_depth=3, launch=launch)
        np.testing.assert_array_equal(r.depth, breadth.bfs(g, 0, algorithm, max_depth=3).depth)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_seed_sets_and_max_depth(gpu, algorithm):
    s, d = breadth.kronecker_edges(9, 8, 5)
    g = breadth.Graph.from_edges(s, d, 512, directed=True)
    dg = gpu.DeviceGraph(g)
    seeds = np.array([3, 400, 3, 77])
    for max_depth in (None, 0, 1, 2):
        r = gpu.bfs(dg, seeds, algorithm, max_depth=max_depth)
        cpu = breadth.bfs(g, seeds, algorithm, max_depth=max_depth)
        np.testing.assert_array_equal(r.depth, cpu.depth)
        assert all(r.parent[x] == x for x in seeds)
    breadth.validate(g, seeds, r.parent, r.depth) if max_depth is None else None


def test_alpha_beta_and_bad_arguments(gpu):
    from breadth.errors import InputError

    g = breadth.kronecker(9, seed=1)
    dg = gpu.DeviceGraph(g)
    root = int(np.argmax(g.degree()))
    r = gpu.bfs(dg, root, alpha=1e-9)
    assert {lv.direction for lv in r.levels} == {"top-down"}
    for bad in (dict(root=-1), dict(root=g.num_vertices), dict(algorithm="xx"), dict(max_depth=-2),
                dict(alpha=0)):
        args = dict(root=root, algorithm="do")
        args.update(bad)
        with pytest.raises(InputError):
            gpu.bfs(dg, **args)
