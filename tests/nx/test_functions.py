"""Every backend function against networkx itself: same results, same order, same errors.

Each call runs twice, ``backend="networkx"`` (the reference: networkx's own Python) and
``backend="breadth"``; results are compared exactly (dicts and lists in order, sets as
sets), exceptions by type and message. Graphs: the zoo's shapes with string labels and
shuffled node and edge insertion orders (so ids, node order and adjacency order all
differ), their multigraph versions, and networkx graphs with integer, tuple and mixed labels.
"""
from collections.abc import Iterator

import numpy as np
import pytest

import networkx as nx
from breadth.nx.registry import CALLS
from shapes import labelled, zoo_graphs

ZOO = list(zoo_graphs())
SMALL = [z for z in ZOO if len(z[1]) <= 320]
MULTI = [z for z in zoo_graphs(multigraph=True) if len(z[1]) <= 320]


def other_graphs():
    yield "int-labels", nx.gnm_random_graph(120, 300, seed=5), 3
    yield "int-labels-directed", nx.gnm_random_graph(120, 400, seed=6, directed=True), 7
    yield "sparse-int-labels", nx.relabel_nodes(nx.path_graph(50), {i: 1000 - 7 * i for i in range(50)}), 1000
    yield "tuple-labels", nx.grid_2d_graph(9, 7), (4, 3)
    G = nx.Graph([(-1, "a"), ("a", (0, 1)), ((0, 1), 2.5), (2.5, -1), ("a", None.__class__.__name__)])
    yield "mixed-labels", G, "a"
    yield "karate", nx.karate_club_graph(), 0
    yield "empty-directed-node", nx.DiGraph([(0, 0)]), 0


OTHER = list(other_graphs())


def plain(x, depth=0):
    """Fail on numpy scalars anywhere in a result (networkx returns plain Python objects)."""
    assert not isinstance(x, np.generic), f"numpy scalar {x!r} at depth {depth}"
    if isinstance(x, dict):
        for k, v in x.items():
            plain(k, depth + 1)
            plain(v, depth + 1)
    elif isinstance(x, (list, tuple, set, frozenset)):
        for v in x:
            plain(v, depth + 1)


def canon(x, ordered=True):
    """A comparable form: dicts and lists keep their order (unless ``ordered`` is False), sets don't."""
    if isinstance(x, nx.Graph):
        return ("graph", list(x.nodes), list(x.edges))
    if isinstance(x, dict):
        items = [(k, canon(v, ordered)) for k, v in x.items()]
        return ("dict", items if ordered else sorted(items, key=repr))
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [canon(v, ordered) for v in x]
    return x


def run(fn, G, *args, **kwargs):
    """(kind, value) of calling networkx function ``fn`` (by name) with a backend; generators consumed."""
    try:
        out = getattr(nx, fn)(G, *args, **kwargs)
        if isinstance(out, Iterator):
            out = list(out)
        return "ok", out
    except Exception as exc:          # noqa: BLE001 - compared with networkx's
        return "error", (type(exc), str(exc))


def same(fn, G, *args, ordered=True, approx=False, **kwargs):
    want = run(fn, G, *args, backend="networkx", **kwargs)
    calls = CALLS[fn]
    got = run(fn, G, *args, backend="breadth", **kwargs)
    assert CALLS[fn] == calls + 1, f"{fn} did not run in breadth"
    if want[0] == "ok" and got[0] == "ok":
        plain(got[1])
    if approx and want[0] == got[0] == "ok":
        assert got[1] == pytest.approx(want[1], rel=1e-12), fn
    else:
        assert canon(got, ordered) == canon(want, ordered), f"{fn}{args}{kwargs}"
    return got[1]


def some_nodes(G, source, k=3):
    nodes = list(G)
    return [source] + nodes[:: max(1, len(nodes) // k)][:k]


def order_sensitive(G, source):
    for reverse in (False, True):
        for limit in (None, 0, 1, 2.5, -1):
            same("bfs_edges", G, source, reverse=reverse, depth_limit=limit)
            same("bfs_tree", G, source, reverse, limit)
    for limit in (None, 1, 2):
        same("bfs_predecessors", G, source, depth_limit=limit)
        same("bfs_successors", G, source, limit)
    for cutoff in (None, 0, 2, 1.5, float("inf")):
        same("single_source_shortest_path_length", G, source, cutoff)
        same("single_target_shortest_path_length", G, source, cutoff=cutoff)
    nodes = some_nodes(G, source)
    same("bfs_layers", G, source)
    same("bfs_layers", G, nodes)
    same("shortest_path_length", G, source)
    same("shortest_path_length", G, target=source)
    for t in nodes:
        same("shortest_path_length", G, source, t)
        same("has_path", G, source, t)
        same("has_path", G, t, source)
    same("descendants", G, source)
    same("ancestors", G, source)
    for d in (0, 1, 2, 3, 2.0, 2.5, -1, float("nan")):
        same("descendants_at_distance", G, source, d)


@pytest.mark.parametrize("case", ZOO + OTHER, ids=lambda c: c[0])
def test_order_sensitive_functions(case):
    name, G, source = case
    order_sensitive(G, source)


@pytest.mark.parametrize("case", MULTI[::3], ids=lambda c: c[0])
def test_multigraphs(case):
    name, G, source = case
    order_sensitive(G, source)
    all_sources(G, source)


def all_sources(G, source):
    nodes = some_nodes(G, source, 5)
    same("closeness_centrality", G)
    same("closeness_centrality", G, wf_improved=False)
    same("closeness_centrality", G, source)
    same("harmonic_centrality", G, approx=True)
    same("harmonic_centrality", G, nodes, approx=True)
    same("harmonic_centrality", G, sources=nodes, approx=True)
    same("harmonic_centrality", G, nodes[:2], sources=nodes, approx=True)
    same("all_pairs_shortest_path_length", G, ordered=False)
    same("all_pairs_shortest_path_length", G, cutoff=1, ordered=False)
    same("shortest_path_length", G, ordered=False)
    same("eccentricity", G)
    same("eccentricity", G, source)
    same("eccentricity", G, nodes)
    for fn in ("diameter", "radius", "center", "periphery"):
        same(fn, G)
        same(fn, G, usebounds=True)


@pytest.mark.parametrize("case", SMALL + OTHER, ids=lambda c: c[0])
def test_all_sources_functions(case):
    name, G, source = case
    all_sources(G, source)


def test_all_sources_on_connected_graphs():
    """Eccentricity-based answers (not just the 'not connected' error) on connected graphs of every kind."""
    for G in (nx.path_graph(40), nx.cycle_graph(41), nx.balanced_tree(2, 5), nx.star_graph(9),
              nx.grid_2d_graph(6, 5), nx.les_miserables_graph(), nx.DiGraph(nx.cycle_graph(12)),
              nx.complete_graph(5), nx.Graph([(0, 1)]), nx.empty_graph(1), nx.Graph(), nx.DiGraph()):
        source = next(iter(G), 0)
        all_sources(G, source)
        assert run("diameter", G, backend="breadth")[0] == ("ok" if len(G) else "error")


@pytest.mark.parametrize("case", ZOO + OTHER, ids=lambda c: c[0])
def test_components(case):
    name, G, source = case
    if G.is_directed():
        same("weakly_connected_components", G)
        return
    same("connected_components", G)
    same("number_connected_components", G)
    same("is_connected", G)
    same("node_connected_component", G, source)


@pytest.mark.parametrize("G", [nx.Graph(), nx.DiGraph(), nx.MultiGraph()], ids=["graph", "digraph", "multigraph"])
def test_empty_graphs(G):
    for fn in ("closeness_centrality", "harmonic_centrality", "eccentricity", "diameter", "radius", "center",
               "periphery", "all_pairs_shortest_path_length"):
        same(fn, G)
    for fn in ("diameter", "center"):
        same(fn, G, usebounds=True)
    if G.is_directed():
        same("weakly_connected_components", G)
    else:
        for fn in ("connected_components", "number_connected_components", "is_connected"):
            same(fn, G)


@pytest.mark.parametrize("directed", [False, True])
def test_missing_and_unhashable_nodes(directed):
    G = labelled(np.arange(5), np.arange(1, 6), 6, directed)
    for bad in ("nope", 7, (1, 2)):
        for fn in ("bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors", "bfs_layers",
                   "descendants_at_distance", "single_source_shortest_path_length",
                   "single_target_shortest_path_length", "descendants", "ancestors"):
            args = (bad, 1) if fn == "descendants_at_distance" else (bad,)
            same(fn, G, *args)
        same("bfs_layers", G, ["v1", bad])
        same("shortest_path_length", G, bad)
        same("shortest_path_length", G, target=bad)
        same("shortest_path_length", G, bad, "v1")
        same("shortest_path_length", G, "v1", bad)
        same("has_path", G, bad, "v1")
        same("has_path", G, "v1", bad)
        same("closeness_centrality", G, bad)
        same("eccentricity", G, bad)
        same("harmonic_centrality", G, [bad, "v2"], approx=True)
        if not directed:
            same("node_connected_component", G, bad)
    for unhashable in ([1], {"a": 1}):
        for fn in ("bfs_edges", "single_source_shortest_path_length", "descendants", "node_connected_component"):
            if fn == "node_connected_component" and directed:
                continue
            same(fn, G, unhashable)
        same("eccentricity", G, [unhashable])
        same("harmonic_centrality", G, [[1]])
    same("eccentricity", G, 5)
    same("shortest_path_length", G, "v5", "v0")              # no path (directed) or a path
    same("shortest_path_length", G, "v0", "v5", method="x")


def test_generators_raise_on_iteration_like_networkx():
    G = nx.path_graph(4)
    for fn in ("bfs_edges", "bfs_predecessors", "bfs_successors", "bfs_layers"):
        it = getattr(nx, fn)(G, [99] if fn == "bfs_layers" else 99, backend="breadth")   # no error yet
        with pytest.raises(nx.NetworkXError, match="The node 99 is not in the graph."):
            list(it)


def test_results_are_plain_python():
    G = nx.gnm_random_graph(60, 150, seed=1)
    for fn, args in [("closeness_centrality", ()), ("harmonic_centrality", ()), ("eccentricity", ()),
                     ("single_source_shortest_path_length", (0,)), ("bfs_layers", (0,)),
                     ("connected_components", ()), ("number_connected_components", ()),
                     ("all_pairs_shortest_path_length", ()), ("closeness_centrality", (0,))]:
        out = getattr(nx, fn)(G, *args, backend="breadth")
        plain(list(out) if isinstance(out, Iterator) else out)
    assert type(nx.closeness_centrality(G, 0, backend="breadth")) is float
    assert type(nx.diameter(nx.path_graph(5), backend="breadth")) is int
