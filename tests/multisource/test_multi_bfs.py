"""multi_bfs (joint bitwise traversal) against independent single-source references."""
import numpy as np
import pytest
import scipy.sparse.csgraph as csg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import breadth
import zoo
from breadth.multisource import multi_bfs, msbfs, unreachable

GRAPHS = list(zoo.graphs())
# (W, group size): every valid pair of W = 1, 2, 4 and group sizes 1, 63, 64, 65, 130
SHAPES = [(w, gs) for w in (1, 2, 4) for gs in (1, 63, 64, 65, 130) if gs <= 64 * w]


def _graph(entry):
    name, s, d, n, directed, root = entry
    return breadth.Graph.from_edges(s, d, num_vertices=n, directed=directed)


def _sources(n, count, seed=0):
    """count sources spread over the graph (repeats when n < count), the zoo root first."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, count).astype(np.int64)


def csgraph_depths(g, sources, max_depth=None):
    """Reference: scipy's unweighted shortest paths, one row per source."""
    d = csg.shortest_path(g.to_scipy(), directed=g.directed, unweighted=True, indices=sources)
    d = np.atleast_2d(d)
    if max_depth is not None:
        d[d > max_depth] = np.inf
    return d


def check(depths, ref):
    assert depths.shape == ref.shape
    top = unreachable(depths.dtype)
    np.testing.assert_array_equal(depths == top, np.isinf(ref))
    fin = ~np.isinf(ref)
    np.testing.assert_array_equal(depths[fin].astype(np.int64), ref[fin].astype(np.int64))


@pytest.mark.parametrize("words,group_size", SHAPES)
@pytest.mark.parametrize("entry", GRAPHS, ids=[e[0] for e in GRAPHS])
def test_depths_equal_single_bfs(entry, words, group_size):
    g = _graph(entry)
    n = g.num_vertices
    sources = _sources(n, min(130, 2 * group_size + 20))     # several groups, the last one partial
    sources[0] = entry[5]
    depths = multi_bfs(g, sources, words=words, group_size=group_size)
    check(depths, csgraph_depths(g, sources))
    if (words, group_size) == SHAPES[-1]:                    # and breadth's own single-source BFS
        single = breadth.bfs(g, int(sources[0])).depth
        np.testing.assert_array_equal(np.where(single < 0, unreachable(depths.dtype), single), depths[0])


@pytest.mark.parametrize("name", ["two-components-isolated-tail", "sparse-random-directed-1", "star-directed-in",
                                  "path-1000-directed-rev", "kronecker-10-directed", "self-loops-mixed"])
def test_depths_equal_plain_queue_bfs(name):
    entry = next(e for e in GRAPHS if e[0] == name)
    _, s, d, n, directed, root = entry
    g = _graph(entry)
    sources = np.concatenate([[root], _sources(n, 69, seed=3)])
    depths = multi_bfs(g, sources, words=2)
    for i, r in enumerate(sources):
        ref = zoo.reference_depth(s, d, n, directed, int(r))
        got = depths[i].astype(np.int64)
        got[depths[i] == unreachable(depths.dtype)] = -1
        np.testing.assert_array_equal(got, ref, err_msg=f"source {r}")


@pytest.mark.parametrize("algorithm", ["td", "bu", "do"])
@pytest.mark.parametrize("groupby", ["rules", "random"])
@pytest.mark.parametrize("name", ["kronecker-10", "kronecker-10-directed", "grid-30x20", "two-components-b"])
def test_directions_and_groupings_agree(name, algorithm, groupby):
    entry = next(e for e in GRAPHS if e[0] == name)
    g = _graph(entry)
    sources = _sources(g.num_vertices, 200, seed=5)
    depths = multi_bfs(g, sources, algorithm=algorithm, groupby=groupby, words=2, seed=7)
    check(depths, csgraph_depths(g, sources))


@pytest.mark.parametrize("words", [1, 8])
def test_settled_vertices_leave_the_bottom_up_levels(words):
    """A source in a two-vertex component: no vertex of the long path is ever full, but once
    that search has ended (idle) every path vertex the other search has reached is settled,
    and later bottom-up levels no longer visit it."""
    n = 300
    s = np.r_[np.arange(n - 3), n - 2]
    d = np.r_[np.arange(1, n - 2), n - 1]
    g = breadth.Graph.from_edges(s, d, num_vertices=n)
    sources = np.array([0, n - 2])
    res = msbfs(g, sources, algorithm="bu", words=words, keep_depths=True)
    check(res.depths, csgraph_depths(g, sources))
    stats = res.group_results[0].stats
    frontier = stats[1:, 2]         # a bottom-up level's frontier: the vertices it may still change
    assert frontier.size == n - 2 and frontier[0] == n      # n - 3 levels of the path, one that finds nothing
    assert frontier[-1] <= 2 and (np.diff(frontier[3:]) == -1).all()


@pytest.mark.parametrize("max_depth", [0, 1, 3])
def test_max_depth(max_depth):
    entry = next(e for e in GRAPHS if e[0] == "kronecker-12-ef8")
    g = _graph(entry)
    sources = _sources(g.num_vertices, 100, seed=2)
    depths = multi_bfs(g, sources, max_depth=max_depth)
    check(depths, csgraph_depths(g, sources, max_depth))


def test_deep_graph_widens_dtype():
    s = np.arange(999)
    g = breadth.Graph.from_edges(s, s + 1, num_vertices=1001)     # vertex 1000 isolated
    sources = np.array([0, 500, 999, 1000, 3])
    depths = multi_bfs(g, sources, group_size=2, words=1)
    assert depths.dtype == np.uint16
    assert depths[0, 999] == 999 and depths[0, 1000] == 65535 and depths[3, 1000] == 0
    check(depths, csgraph_depths(g, sources))
    shallow = multi_bfs(g, sources, max_depth=200)
    assert shallow.dtype == np.uint8
    check(shallow, csgraph_depths(g, sources, 200))


def test_widening_traverses_once_within_the_next_dtype(monkeypatch):
    """The planes hold depths of the next wider dtype: a group deeper than uint8 is traversed
    once and only its output widened; a group deeper than uint16 is traversed again."""
    from breadth.multisource import runner

    calls = []
    real = runner.ibfs.traverse
    monkeypatch.setattr(runner.ibfs, "traverse", lambda *a: calls.append(a[-1]) or real(*a))
    s = np.arange(999)
    g = breadth.Graph.from_edges(s, s + 1, num_vertices=1000)
    depths = multi_bfs(g, np.array([0, 10]), words=1)
    assert depths.dtype == np.uint16 and calls == [65534]
    check(depths, csgraph_depths(g, np.array([0, 10])))
    calls.clear()
    n = 70_000
    s = np.arange(n - 1)
    g = breadth.Graph.from_edges(s, s + 1, num_vertices=n)
    depths = multi_bfs(g, np.array([0, n - 1]), words=1)
    assert depths.dtype == np.uint32 and calls == [65534, 2**32 - 2]
    assert depths[0, n - 1] == depths[1, 0] == n - 1 and depths[0, 0] == depths[1, n - 1] == 0
    np.testing.assert_array_equal(depths[0], np.arange(n))


def test_scratch_is_kept_with_the_graph_and_reused(monkeypatch):
    """A run leaves its workspace with the graph (runner.take_workspace): the next run on it
    reuses it and gets the same answers (the depth planes a deep run used are clean again);
    another W gets a new one; a failed run keeps none; the graph takes it along when freed."""
    import gc
    import pickle
    import weakref

    from breadth.multisource import runner

    runner.release_workspaces()          # earlier tests' graphs may still be alive
    s = np.arange(399)
    g = breadth.Graph.from_edges(np.r_[s, 500 + s[:50]], np.r_[s + 1, 501 + s[:50]], num_vertices=600)
    deep, shallow = np.array([0, 399, 200]), np.array([500, 520, 3, 599])
    ref_deep, ref_shallow = csgraph_depths(g, deep), csgraph_depths(g, shallow)
    check(multi_bfs(g, deep, words=1), ref_deep)          # 399 levels: uint16 planes
    ws = runner._KEPT[g]
    assert ws.planes_touched >= 8
    check(multi_bfs(g, shallow, words=1), ref_shallow)
    assert runner._KEPT[g] is ws
    check(multi_bfs(g, deep, words=1), ref_deep)
    assert msbfs(g, shallow, words=1).reached.tolist() == (~np.isinf(ref_shallow)).sum(axis=1).tolist()
    assert runner._KEPT[g] is ws
    check(multi_bfs(g, shallow, words=2), ref_shallow)
    assert runner._KEPT[g] is not ws and runner._KEPT[g].words == 2

    monkeypatch.setattr(runner, "decode", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        multi_bfs(g, deep, words=2)
    assert g not in runner._KEPT            # its planes were left written
    monkeypatch.undo()
    check(multi_bfs(g, deep, words=2), ref_deep)

    monkeypatch.setattr(runner, "KEEP_SHARE", 0.0)      # larger than it may hold: not kept
    runner.release_workspaces()
    multi_bfs(g, shallow, words=1)
    assert g not in runner._KEPT
    monkeypatch.undo()

    multi_bfs(g, shallow, words=1)
    copy = pickle.loads(pickle.dumps(g))                   # the weak-reference slot is not state
    check(multi_bfs(copy, shallow, words=1), ref_shallow)
    alive = weakref.ref(g)
    del g
    gc.collect()
    assert alive() is None and copy in runner._KEPT and len(runner._KEPT) == 1
    runner.release_workspaces()
    assert len(runner._KEPT) == 0


@pytest.mark.parametrize("groupby", ["rules", "random"])
def test_unreached_vertices_across_groups_and_widening(groupby):
    """Vertices no source reaches (no in-edge, no source) are unreachable in every row, whichever
    group writes it, also after a later group widened the dtype (earlier rows are converted)."""
    s = np.arange(299)
    src = np.concatenate([s, [400]])
    dst = np.concatenate([s + 1, [401]])
    g = breadth.Graph.from_edges(src, dst, num_vertices=420, directed=True)   # 301..399, 402..419 isolated
    sources = np.array([297, 298, 296, 299, 0, 1, 400, 350])   # shallow groups, deep ones, a dead source
    depths = multi_bfs(g, sources, group_size=2, words=1, groupby=groupby, seed=3)
    assert depths.dtype == np.uint16
    check(depths, csgraph_depths(g, sources))
    assert (depths[:, 410] == 65535).all() and depths[7, 350] == 0 and (np.delete(depths[:, 350], 7) == 65535).all()
    wide = multi_bfs(g, sources, words=8)                     # one group
    check(wide, csgraph_depths(g, sources))


def test_repeated_sources_and_layout():
    g = breadth.kronecker(8, seed=4)
    sources = np.array([5, 5, 17, 5, 200])
    depths = multi_bfs(g, sources)
    assert depths.shape == (5, g.num_vertices)
    assert depths.flags.c_contiguous and depths.ctypes.data % 64 == 0      # row i = sources[i], aligned
    np.testing.assert_array_equal(depths[0], depths[1])
    np.testing.assert_array_equal(depths[0], depths[3])
    check(depths, csgraph_depths(g, sources))


def test_sharing_degree_is_reported():
    g = breadth.kronecker(10, seed=2)
    res = msbfs(g, np.arange(300), words=2)
    sd = res.sharing_degrees
    assert sd.shape == (len(res.groups),)
    # SD is at least 1 and at most the group size (eq. 1 of the paper)
    assert np.all(sd >= 1.0) and np.all(sd <= res.group_size)
    summary = res.summary()
    assert summary["groups"] == len(res.groups) and summary["sharing_degree"]["max"] == sd.max()
    assert summary["group_sharing_degree"] == sd.tolist()


def test_bad_input():
    g = breadth.kronecker(6)
    with pytest.raises(breadth.InputError, match="does not exist"):
        multi_bfs(g, [0, 64])
    with pytest.raises(breadth.InputError, match="integer"):
        multi_bfs(g, [0.5])
    with pytest.raises(breadth.InputError, match="exceeds"):
        multi_bfs(g, [0, 1], words=1, group_size=65)
    with pytest.raises(breadth.InputError, match="max_depth"):
        multi_bfs(g, [0], max_depth=-1)
    with pytest.raises(breadth.InputError, match="algorithm"):
        multi_bfs(g, [0], algorithm="xx")
    with pytest.raises(breadth.InputError, match="grouping"):
        multi_bfs(g, [0], groupby="alphabetical")
    with pytest.raises(breadth.InputError, match="alpha and beta must be positive"):
        multi_bfs(g, [0], alpha=0)
    with pytest.raises(breadth.InputError, match="alpha and beta must be numbers"):
        breadth.closeness(g, [0], beta="fast")
    with pytest.raises(breadth.InputError, match="words must be a positive integer"):
        multi_bfs(g, [0], words=0)
    with pytest.raises(breadth.InputError, match="source must be a vertex id or a 1-D array"):
        multi_bfs(g, [[0, 1], [2, 3]])
    with pytest.raises(breadth.InputError):
        multi_bfs([[0, 1]], [0])
    assert multi_bfs(g, []).shape == (0, 64)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 90), m=st.integers(0, 300), directed=st.booleans(), seed=st.integers(0, 2**31),
       words=st.sampled_from([1, 2, 3]), nsrc=st.integers(1, 200), algorithm=st.sampled_from(["do", "td", "bu"]))
def test_random_graphs(n, m, directed, seed, words, nsrc, algorithm):
    rng = np.random.default_rng(seed)
    g = breadth.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), num_vertices=n, directed=directed)
    sources = rng.integers(0, n, nsrc)
    group = int(rng.integers(1, 64 * words + 1))
    depths = multi_bfs(g, sources, words=words, group_size=group, algorithm=algorithm,
                       groupby=["rules", "random"][seed % 2])
    check(depths, csgraph_depths(g, sources))
