"""All three BFS algorithms against two independent references on the graph zoo."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import breadth
from zoo import graphs, reference_depth, scipy_depth

ZOO = list(graphs())
ALGORITHMS = ["do", "td", "bu"]


@pytest.fixture(scope="module")
def built():
    return {name: breadth.Graph.from_edges(s, d, n, directed=dr) for name, s, d, n, dr, _ in ZOO}


def test_zoo_is_large_enough():
    assert len(ZOO) >= 30


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("entry", ZOO, ids=[z[0] for z in ZOO])
def test_depths_match_references(built, entry, algorithm):
    name, s, d, n, directed, root = entry
    g = built[name]
    r = breadth.bfs(g, root, algorithm)
    expected = reference_depth(s, d, n, directed, root)
    np.testing.assert_array_equal(r.depth, expected)
    np.testing.assert_array_equal(r.depth, scipy_depth(g, root))
    assert r.parent[root] == root
    assert r.parent.dtype == np.int64 and r.depth.dtype == np.int64
    np.testing.assert_array_equal(r.parent >= 0, r.depth >= 0)
    breadth.validate(g, root, r.parent, r.depth)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_level_statistics_are_consistent(built, algorithm):
    g = built["kronecker-10"]
    root = [z for z in ZOO if z[0] == "kronecker-10"][0][5]
    r = breadth.bfs(g, root, algorithm)
    counts = np.bincount(r.depth[r.depth >= 0])
    assert [lv.level for lv in r.levels] == list(range(len(r.levels)))
    for lv in r.levels:
        assert lv.frontier == counts[lv.level]
        nxt = counts[lv.level + 1] if lv.level + 1 < counts.size else 0
        assert lv.discovered == nxt
        assert lv.seconds >= 0
        if lv.direction == "top-down":
            frontier = np.flatnonzero(r.depth == lv.level)
            assert lv.edges_examined == g.out_degree()[frontier].sum()
    assert sum(lv.discovered for lv in r.levels) == r.num_reached - 1
    if algorithm == "td":
        assert {lv.direction for lv in r.levels} == {"top-down"}
    if algorithm == "bu":
        assert {lv.direction for lv in r.levels} == {"bottom-up"}


def test_direction_optimizing_switches_on_kronecker():
    g = breadth.kronecker(14, seed=2)
    root = int(np.argmax(g.degree()))
    r = breadth.bfs(g, root)
    dirs = [lv.direction for lv in r.levels]
    assert dirs[0] == "top-down" and "bottom-up" in dirs
    # alpha so small that top-down never looks worth leaving; beta irrelevant then
    r2 = breadth.bfs(g, root, alpha=1e-9)
    assert {lv.direction for lv in r2.levels} == {"top-down"}
    np.testing.assert_array_equal(r.depth, r2.depth)
    # bottom-up examines fewer edges than top-down in total on a power-law graph
    r_td = breadth.bfs(g, root, "td")
    assert sum(lv.edges_examined for lv in r.levels) < sum(lv.edges_examined for lv in r_td.levels)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_long_path_deep_bfs(algorithm):
    n = 100_000
    v = np.arange(n - 1)
    g = breadth.Graph.from_edges(v, v + 1, n)
    r = breadth.bfs(g, 0, algorithm)
    np.testing.assert_array_equal(r.depth, np.arange(n))
    np.testing.assert_array_equal(r.parent[1:], np.arange(n - 1))
    assert len(r.levels) == n - 1 or len(r.levels) == n


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_multi_seed_is_bfs_layers(built, algorithm):
    name, s, d, n, directed, _ = [z for z in ZOO if z[0] == "grid-30x20"][0]
    g = built[name]
    seeds = np.array([0, 599, 310, 310])
    r = breadth.bfs(g, seeds, algorithm)
    np.testing.assert_array_equal(r.depth, reference_depth(s, d, n, directed, seeds))
    assert all(r.parent[x] == x for x in seeds)
    breadth.validate(g, seeds, r.parent, r.depth)


def test_multi_seed_matches_networkx_bfs_layers():
    nx = pytest.importorskip("networkx")
    G = nx.gnm_random_graph(400, 700, seed=3)
    s, d = np.array(G.edges()).T
    g = breadth.Graph.from_edges(s, d, 400)
    seeds = [1, 2, 3, 200]
    r = breadth.bfs(g, seeds)
    for depth, layer in enumerate(nx.bfs_layers(G, seeds)):
        assert np.all(r.depth[layer] == depth)
    assert r.num_reached == sum(len(x) for x in nx.bfs_layers(G, seeds))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("max_depth", [0, 1, 2, 5])
def test_max_depth_stops_early(algorithm, max_depth):
    s, d = breadth.kronecker_edges(11, 8, 7)
    g = breadth.Graph.from_edges(s, d, 2048)
    root = int(s[0])
    full = breadth.bfs(g, root, algorithm)
    part = breadth.bfs(g, root, algorithm, max_depth=max_depth)
    expected = np.where(full.depth <= max_depth, full.depth, -1)
    np.testing.assert_array_equal(part.depth, expected)
    assert len(part.levels) <= max_depth
    near = full.depth <= max_depth
    np.testing.assert_array_equal(part.parent[~near], -1)


def test_int64_neighbour_ids_give_same_result():
    s, d = breadth.kronecker_edges(11, 16, 1)
    g32 = breadth.Graph.from_edges(s, d, 2048)
    g64 = breadth.Graph.from_edges(s, d, 2048, index_dtype=np.int64)
    assert g32.indices.dtype == np.int32 and g64.indices.dtype == np.int64
    for alg in ALGORITHMS:
        np.testing.assert_array_equal(breadth.bfs(g32, int(s[0]), alg).depth,
                                      breadth.bfs(g64, int(s[0]), alg).depth)


def test_scipy_matrix_input():
    import scipy.sparse as sp

    a = sp.csr_array((np.ones(3), ([0, 1, 2], [1, 2, 3])), shape=(5, 5))
    r = breadth.bfs(a, 0)   # not symmetric -> directed
    np.testing.assert_array_equal(r.depth, [0, 1, 2, 3, -1])
    r = breadth.bfs(a + a.T, 3)
    np.testing.assert_array_equal(r.depth, [3, 2, 1, 0, -1])


@pytest.mark.parametrize("bad", [-1, 10, 2.5, "x", [], [[1, 2]], [1, 99]])
def test_bad_roots_are_refused(bad):
    g = breadth.Graph.from_edges([0, 1], [1, 2], 10)
    with pytest.raises(breadth.InputError):
        breadth.bfs(g, bad)


def test_bad_arguments_are_refused():
    g = breadth.Graph.from_edges([0], [1], 2)
    with pytest.raises(breadth.InputError, match="algorithm"):
        breadth.bfs(g, 0, "dfs")
    with pytest.raises(breadth.InputError, match="max_depth"):
        breadth.bfs(g, 0, max_depth=-2)
    with pytest.raises(breadth.InputError, match="alpha"):
        breadth.bfs(g, 0, alpha=0)
    with pytest.raises(breadth.InputError, match="breadth.Graph"):
        breadth.bfs([[0, 1]], 0)


@st.composite
def small_graphs(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(0, 120))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    directed = draw(st.booleans())
    roots = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), n, directed, roots


@settings(max_examples=150, deadline=None)
@given(small_graphs(), st.sampled_from(ALGORITHMS), st.floats(0.5, 40), st.floats(0.5, 40))
def test_property_random_small_graphs(case, algorithm, alpha, beta):
    s, d, n, directed, roots = case
    g = breadth.Graph.from_edges(s, d, n, directed=directed)
    r = breadth.bfs(g, roots, algorithm, alpha=alpha, beta=beta)
    np.testing.assert_array_equal(r.depth, reference_depth(s, d, n, directed, roots))
    breadth.validate(g, roots, r.parent, r.depth)


def test_workspace_reuse_gives_fresh_results():
    s, d = breadth.kronecker_edges(11, 8, 2)
    g = breadth.Graph.from_edges(s, d, 2048)
    ws = breadth.BFSWorkspace(g.num_vertices)
    for root in (int(s[0]), int(d[5]), int(s[9])):
        for algorithm in ALGORITHMS:
            r = breadth.bfs(g, root, algorithm, workspace=ws)
            assert r.parent is ws.parent and r.depth is ws.depth
            np.testing.assert_array_equal(r.depth, reference_depth(s, d, 2048, False, root))
            breadth.validate(g, root, r.parent, r.depth)
    with pytest.raises(breadth.InputError, match="workspace"):
        breadth.bfs(breadth.Graph.from_edges([0], [1], 3), 0, workspace=ws)


def test_plain_searches_own_their_results_while_scratch_is_reused():
    """Without a workspace, consecutive searches share scratch (search.BFSWorkspace.fresh_result)
    but never parent/depth: an earlier result stays intact, also after a search on another size."""
    s, d = breadth.kronecker_edges(10, 8, 3)
    g = breadth.Graph.from_edges(s, d, 1024)
    other = breadth.Graph.from_edges(s % 500, d % 500, 500)
    roots = (int(s[0]), int(d[3]), int(s[7]))
    results = []
    for root in roots:
        for algorithm in ALGORITHMS:
            results.append((root, breadth.bfs(g, root, algorithm)))
            breadth.bfs(other, 0, algorithm)
    assert len({id(r.parent) for _, r in results}) == len(results)
    for root, r in results:
        assert r.parent.dtype == r.depth.dtype == np.int64        # widened from the search's int32
        np.testing.assert_array_equal(r.depth, reference_depth(s, d, 1024, False, root))
        breadth.validate(g, root, r.parent, r.depth)


def test_plain_result_reads_as_int64_everywhere():
    """A plain search's int32 arrays are widened on first access, also after pickling and in asdict."""
    import dataclasses
    import pickle

    s, d = breadth.kronecker_edges(9, 8, 4)
    g = breadth.Graph.from_edges(s, d, 512)
    root = int(s[0])
    wide = breadth.bfs(g, root, workspace=breadth.BFSWorkspace(512))
    for r in (breadth.bfs(g, root), pickle.loads(pickle.dumps(breadth.bfs(g, root)))):
        assert r.num_reached == wide.num_reached and r.max_depth == wide.max_depth
        np.testing.assert_array_equal(r.depth, wide.depth)
        assert r.parent.dtype == np.int64 and r.parent is r.parent
    fields = dataclasses.asdict(breadth.bfs(g, root))
    assert fields["parent"].dtype == fields["depth"].dtype == np.int64
    breadth.validate(g, root, fields["parent"], fields["depth"])


def test_plain_search_above_the_spare_limit_is_narrow_and_keeps_no_scratch(monkeypatch):
    """Graphs above SPARE_MAX_VERTICES still search into int32 arrays, but hold no scratch afterwards;
    graphs above NARROW_MAX_VERTICES search into int64 ones."""
    import breadth.search as search
    from breadth.result import NarrowBFSResult

    s, d = breadth.kronecker_edges(8, 8, 5)
    g = breadth.Graph.from_edges(s, d, 256)
    root = int(s[0])
    monkeypatch.setattr(search, "_spare", {})
    monkeypatch.setattr(search, "SPARE_MAX_VERTICES", 255)
    r = breadth.bfs(g, root)
    assert isinstance(r, NarrowBFSResult) and search._spare == {}
    np.testing.assert_array_equal(r.depth, reference_depth(s, d, 256, False, root))
    monkeypatch.setattr(search, "NARROW_MAX_VERTICES", 255)
    wide = breadth.bfs(g, root)
    assert not isinstance(wide, NarrowBFSResult) and wide.parent.dtype == np.int64
    np.testing.assert_array_equal(wide.depth, r.depth)
    breadth.validate(g, root, wide.parent, wide.depth)
