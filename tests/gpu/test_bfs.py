"""Single-source GPU BFS (LRB top-down, bottom-up, direction-optimizing) against the CPU on the zoo."""
import numpy as np
import pytest

import breadth
from zoo import graphs, reference_depth

ZOO = list(graphs())
# Hundreds of levels cost minutes each in the simulator (a level is a few kernel launches of
# Python threads): these zoo graphs are searched to DEEP_LEVELS levels, and whole paths and
# cycles of a few dozen vertices are searched to the end (test_short_paths_and_cycles_to_the_end).
DEEP = {"path-1000", "path-1000-mid", "path-1000-directed", "path-1000-directed-rev", "cycle-301",
        "cycle-301-directed", "grid-30x20", "binary-tree-leaf"}
DEEP_LEVELS = 12
ALGORITHMS = ["do", "td", "bu"]


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


@pytest.mark.parametrize("entry", ZOO, ids=[z[0] for z in ZOO])
def test_zoo_depths_equal_cpu_and_validate(gpu, uploaded, entry):
    name, s, d, n, directed, root = entry
    dg = _device_graph(gpu, uploaded, name, s, d, n, directed)
    limit = DEEP_LEVELS if name in DEEP else None
    expected = reference_depth(s, d, n, directed, root)
    if limit is not None:
        expected[expected > limit] = -1
    for algorithm in ALGORITHMS:
        r = gpu.bfs(dg, root, algorithm, max_depth=limit)
        cpu = breadth.bfs(dg.graph, root, algorithm, max_depth=limit)
        np.testing.assert_array_equal(r.depth, cpu.depth, err_msg=algorithm)
        np.testing.assert_array_equal(r.depth, expected, err_msg=algorithm)
        np.testing.assert_array_equal(r.parent >= 0, r.depth >= 0)
        assert r.parent.dtype == np.int64 and r.depth.dtype == np.int64
        assert r.parent[root] == root and r.engine == "cuda"
        if limit is None:
            breadth.validate(dg.graph, root, r.parent, r.depth)
        else:                               # a truncated tree: every parent is one level up, an edge
            child = np.flatnonzero(r.depth > 0)
            p = r.parent[child]
            np.testing.assert_array_equal(r.depth[p], r.depth[child] - 1)
            in_lists = [p[k] in dg.graph.in_neighbors(int(v)) for k, v in enumerate(child)]
            assert all(in_lists)
        # the same policy on the same counts takes the same directions as the CPU driver
        assert [lv.direction for lv in r.levels] == [lv.direction for lv in cpu.levels]
        for field in ("frontier", "edges_examined", "discovered"):
            assert [getattr(lv, field) for lv in r.levels] == [getattr(lv, field) for lv in cpu.levels], field


@pytest.mark.parametrize("n", [17])
@pytest.mark.parametrize("directed", [False, True])
def test_short_paths_and_cycles_to_the_end(gpu, n, directed):
    v = np.arange(n)
    for name, s, d, root in (("path", v[:-1], v[1:], 0), ("path-mid", v[:-1], v[1:], n // 2),
                             ("path-rev", v[1:], v[:-1], 0), ("cycle", v, (v + 1) % n, 3)):
        g = breadth.Graph.from_edges(s, d, n, directed=directed)
        dg = gpu.DeviceGraph(g)
        for algorithm in ALGORITHMS:
            r = gpu.bfs(dg, root, algorithm)
            np.testing.assert_array_equal(r.depth, reference_depth(s, d, n, directed, root), err_msg=name)
            breadth.validate(g, root, r.parent, r.depth)


def _lrb_graph():
    """Hubs of every LRB granularity: degrees 1..31 (thread), 32..1023 (warp), >= 1024 (block)."""
    hubs = [1, 2, 3, 5, 17, 31, 32, 33, 100, 1023, 1024, 3000]
    src, dst, nxt = [], [], 1 + len(hubs)
    for k, deg in enumerate(hubs):          # vertex 0 -> hub k+1 -> deg leaves
        src.append(0)
        dst.append(k + 1)
        src.extend([k + 1] * deg)
        dst.extend(range(nxt, nxt + deg))
        nxt += deg // 2 + 1                 # neighbouring hubs share half their leaves: CAS races
    leaves = nxt + max(hubs) // 2
    extra = np.arange(leaves, leaves + 2000)          # one level further: a frontier of leaves
    src = np.concatenate([src, extra])
    dst = np.concatenate([dst, 1 + len(hubs) + extra % (leaves - 1 - len(hubs))])
    return src, dst, int(extra[-1]) + 1, hubs


class _Recorder:
    """Wraps a kernel: records each launch (kernel[grid, block](*args)) with its arguments and runs it."""

    def __init__(self, kernel, log, name):
        self.kernel, self.log, self.name = kernel, log, name

    def __getitem__(self, config):
        def launch(*args):
            self.log.append((self.name, args, config))
            return self.kernel[config](*args)

        return launch


def test_host_bins_are_the_bit_lengths_of_the_degrees(gpu):
    from breadth.gpu.primitives import NBINS, degree_bins, host_bins

    rng = np.random.default_rng(5)
    powers = 1 << np.arange(53, dtype=np.int64)
    for degrees in ([0], [1, 2, 3, 4, 7, 8, 1023, 1024, 1025], powers, powers - 1, rng.integers(0, 1 << 40, 1000), []):
        want = np.bincount([int(d).bit_length() for d in degrees], minlength=NBINS)
        np.testing.assert_array_equal(host_bins(np.asarray(degrees, dtype=np.int64)), want)
        assert degree_bins(degrees).tolist() == [int(d).bit_length() for d in degrees]


def test_lrb_bins_every_granularity(gpu, monkeypatch):
    from breadth.gpu import lrb, search

    s, d, n, hubs = _lrb_graph()
    g = breadth.Graph.from_edges(s, d, n)
    deg = g.degree()[1:1 + len(hubs)]
    bins = {int(x).bit_length() for x in deg}
    assert min(bins) <= 5 and any(6 <= b <= 10 for b in bins) and max(bins) >= 11
    dg = gpu.DeviceGraph(g)
    log = []
    monkeypatch.setattr(lrb, "lrb_scatter", _Recorder(lrb.lrb_scatter, log, "lrb_scatter"))
    monkeypatch.setattr(search, "td_lrb", _Recorder(search.td_lrb, log, "td_lrb"))   # search.py passes it to lrb
    for algorithm in ALGORITHMS:
        r = gpu.bfs(dg, 0, algorithm)
        np.testing.assert_array_equal(r.depth, breadth.bfs(g, 0, algorithm).depth)
        breadth.validate(g, 0, r.parent, r.depth)
        assert np.all(r.depth[1:1 + len(hubs)] == 1)
    # level 1 (the hubs) is binned, then expanded at all three granularities in one launch
    assert "lrb_scatter" in [name for name, _, _ in log]
    counts = [(args[7], args[10], args[13]) for name, args, _ in log if name == "td_lrb"]   # t_count, w_count, k_count
    assert any(min(c) > 0 for c in counts), counts


@pytest.mark.parametrize("slots", [None, 1])
def test_few_large_hubs_are_split_among_blocks(gpu, monkeypatch, slots):
    """A block part with many more blocks than hubs splits the hubs' edges among its blocks: end to
    end, evenly (up to ``HUB_SLOTS`` hubs), or each hub among its share of the blocks (``slots=1``:
    more hubs than slots)."""
    from breadth.gpu import lrb, search
    from breadth.gpu.device import Launch

    s, d, n, _ = _lrb_graph()
    g = breadth.Graph.from_edges(s, d, n)
    dg = gpu.DeviceGraph(g)
    log = []
    monkeypatch.setattr(lrb, "HUB_EDGES_PER_BLOCK", 64)
    if slots is not None:
        monkeypatch.setattr(lrb, "HUB_SLOTS", slots)
    monkeypatch.setattr(search, "td_lrb", _Recorder(search.td_lrb, log, "td_lrb"))
    r = gpu.bfs(dg, 0, "td", launch=Launch(thread_tpb=32, warp_tpb=64, max_blocks=16))
    np.testing.assert_array_equal(r.depth, breadth.bfs(g, 0, "td").depth)
    breadth.validate(g, 0, r.parent, r.depth)
    # grid minus the thread and warp parts' blocks: at least twice the hubs (the 1024 and 3000 of level 1)
    split = [(config[0] - args[8] - args[11], args[13]) for _, args, config in log if args[13] > 0]
    assert any(k_blocks >= 2 * hubs for k_blocks, hubs in split), split


@pytest.mark.parametrize("slots", [None, 1])
def test_unequal_hubs_reach_each_leaf_from_its_own_hub(gpu, monkeypatch, slots):
    """Directed hubs of unequal degree with leaves of their own, expanded by many blocks in one
    level: every leaf's parent is its hub (an edge taken across a hub boundary would give
    another hub as parent, or miss a leaf)."""
    from breadth.gpu import lrb
    from breadth.gpu.device import Launch

    degrees = [1100, 1500, 5000, 1030]
    src, dst, nxt = [0] * len(degrees), list(range(1, len(degrees) + 1)), len(degrees) + 1
    for k, deg in enumerate(degrees):
        src += [k + 1] * deg
        dst += range(nxt, nxt + deg)
        nxt += deg
    g = breadth.Graph.from_edges(src, dst, nxt, directed=True)
    monkeypatch.setattr(lrb, "HUB_EDGES_PER_BLOCK", 256)
    if slots is not None:
        monkeypatch.setattr(lrb, "HUB_SLOTS", slots)
    r = gpu.bfs(gpu.DeviceGraph(g), 0, "td", launch=Launch(thread_tpb=32, warp_tpb=64, max_blocks=24))
    breadth.validate(g, 0, r.parent, r.depth)
    hub_of = np.repeat(np.arange(1, len(degrees) + 1), degrees)
    np.testing.assert_array_equal(r.parent[len(degrees) + 1:], hub_of)
    assert (r.depth[len(degrees) + 1:] == 2).all()


def test_production_launch_shape(gpu):
    """The block sizes a real GPU uses (128 threads, several blocks) give the same answers."""
    from breadth.gpu.device import Launch

    s, d, n, _ = _lrb_graph()
    g = breadth.Graph.from_edges(s, d, n)
    dg = gpu.DeviceGraph(g)
    launch = Launch(thread_tpb=128, warp_tpb=128, max_blocks=4)
    for algorithm in ALGORITHMS:
        r = gpu.bfs(dg, 0, algorithm, launch=launch)
        np.testing.assert_array_equal(r.depth, breadth.bfs(g, 0, algorithm).depth)
        breadth.validate(g, 0, r.parent, r.depth)


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
        if max_depth is None:
            breadth.validate(g, seeds, r.parent, r.depth)


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
