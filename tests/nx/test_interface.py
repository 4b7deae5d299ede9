"""Registration, dispatch decisions (can_run, should_run), conversion and its cache."""
import inspect
import subprocess
import sys
from importlib.metadata import entry_points

import numpy as np
import pytest

import _breadth_nx
import breadth
import networkx as nx
from breadth.nx import interface
from breadth.nx.graph import BreadthGraph
from breadth.nx.registry import CALLS, CONVERSIONS, FUNCTIONS
from networkx.utils.backends import _registered_algorithms


def test_entry_points_are_installed():
    backends = {ep.name: ep.value for ep in entry_points(group="networkx.backends")}
    infos = {ep.name: ep.value for ep in entry_points(group="networkx.backend_info")}
    assert backends.get("breadth") == "breadth.nx.interface"
    assert infos.get("breadth") == "_breadth_nx:get_info"
    assert "breadth" in nx.utils.backends.backends


def test_info_lists_exactly_what_is_implemented():
    info = _breadth_nx.get_info()
    assert set(info["functions"]) == set(FUNCTIONS)
    for name in FUNCTIONS:
        assert callable(getattr(interface, name)), name
        assert "breadth" in _registered_algorithms[name].backends, name
    public = {n for n in dir(interface) if n in _registered_algorithms}
    assert public == set(FUNCTIONS)                       # nothing dispatchable left unlisted
    assert info["backend_name"] == "breadth" and info["default_config"]["min_nodes"] > 0
    assert nx.config.backends.breadth.min_nodes == info["default_config"]["min_nodes"]


def test_signatures_are_networkx_own():
    for name, func in FUNCTIONS.items():
        assert inspect.signature(func) == inspect.signature(_registered_algorithms[name].orig_func), name


def test_info_package_imports_neither_breadth_nor_numba():
    code = ("import sys, _breadth_nx; info = _breadth_nx.get_info(); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('breadth', 'numba', 'numpy')]; "
            "assert not bad, bad; print(len(info['functions']))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == len(FUNCTIONS)


def test_can_run_binds_positional_arguments():
    G = nx.path_graph(5)
    assert interface.can_run("bfs_edges", (G, 0), {}) is True
    assert "sort_neighbors" in interface.can_run("bfs_edges", (G, 0, False, None, sorted), {})
    assert "sort_neighbors" in interface.can_run("bfs_tree", (G, 0), {"sort_neighbors": sorted})
    assert "weight" in interface.can_run("shortest_path_length", (G, 0, 1, "weight"), {})
    assert "distance" in interface.can_run("closeness_centrality", (G, None, "w"), {})
    assert "distance" in interface.can_run("harmonic_centrality", (G,), {"distance": "w"})
    assert "sp=" in interface.can_run("eccentricity", (G, None, {0: {0: 0}}), {})
    assert "e=" in interface.can_run("diameter", (G, {0: 1}), {})
    assert "weight" in interface.can_run("radius", (G,), {"weight": "w"})
    assert "cutoff" in interface.can_run("single_source_shortest_path_length", (G, 0, "2"), {})
    assert "distance" in interface.can_run("descendants_at_distance", (G, 0, 1j), {})
    assert interface.can_run("bfs_edges", (G,), {"bogus": 1}) is True      # networkx's TypeError follows
    assert "does not implement" in interface.can_run("pagerank", (G,), {})


def test_declined_calls_raise_not_implemented_with_backend_keyword():
    G = nx.path_graph(5)
    with pytest.raises(NotImplementedError, match="breadth"):
        list(nx.bfs_edges(G, 0, False, None, sorted, backend="breadth"))
    with pytest.raises(NotImplementedError):
        nx.shortest_path_length(G, 0, 4, "weight", backend="breadth")
    with pytest.raises(TypeError, match="bogus"):
        nx.bfs_edges(G, 0, bogus=1, backend="breadth")


def test_conversion_is_cached_until_the_graph_changes():
    G = nx.gnm_random_graph(300, 900, seed=2)
    before = CONVERSIONS["networkx"]
    first = nx.single_source_shortest_path_length(G, 0, backend="breadth")
    for _ in range(3):
        assert nx.single_source_shortest_path_length(G, 0, backend="breadth") == first
        nx.closeness_centrality(G, backend="breadth")
    assert CONVERSIONS["networkx"] == before + 1          # converted once for the unchanged graph
    far = max(first, key=first.get)
    G.add_edge(0, far)                                    # networkx clears G.__networkx_cache__
    assert nx.single_source_shortest_path_length(G, 0, backend="breadth")[far] == 1
    assert CONVERSIONS["networkx"] == before + 2


def test_automatic_dispatch_uses_priority_and_min_nodes():
    big = nx.gnm_random_graph(2000, 6000, seed=3)
    small, tiny = nx.path_graph(10), nx.path_graph(12)
    want = nx.closeness_centrality(small, backend="networkx")
    calls = CALLS.copy()
    sssp = "single_source_shortest_path_length"
    with nx.config(backend_priority=["breadth"]):
        assert nx.closeness_centrality(small) == want
        assert CALLS["closeness_centrality"] == calls["closeness_centrality"] + 1      # all sources: always
        nx.single_source_shortest_path_length(tiny, 0)                                # too small: networkx
        assert CALLS[sssp] == calls[sssp]
        nx.single_source_shortest_path_length(small, 0)        # small, but converted already: breadth
        assert CALLS[sssp] == calls[sssp] + 1
        nx.single_source_shortest_path_length(big, 0)
        assert CALLS[sssp] == calls[sssp] + 2
        old = nx.config.backends.breadth.min_nodes
        nx.config.backends.breadth.min_nodes = 0
        try:
            nx.single_source_shortest_path_length(tiny, 0)
        finally:
            nx.config.backends.breadth.min_nodes = old
        assert CALLS[sssp] == calls[sssp] + 3
        # declined arguments and functions breadth lacks run in networkx, as without the backend
        calls = CALLS.copy()
        assert list(nx.bfs_edges(big, 0, sort_neighbors=sorted)) == \
            list(nx.bfs_edges(big, 0, sort_neighbors=sorted, backend="networkx"))
        assert nx.average_clustering(small) == 0.0
        assert CALLS == calls
    assert "fewer than" in interface.should_run("has_path", (nx.path_graph(3), 0, 1), {})
    assert interface.should_run("eccentricity", (tiny,), {}) is True


def test_backend_graph_can_be_passed_directly():
    G = nx.les_miserables_graph()
    bg = interface.convert_from_nx(G)
    assert isinstance(bg, BreadthGraph) and len(bg) == len(G) and "Valjean" in bg and [1] not in bg
    assert list(nx.bfs_edges(bg, "Valjean")) == list(nx.bfs_edges(G, "Valjean"))
    assert nx.is_connected(bg) and nx.diameter(bg) == nx.diameter(G)
    back = interface.convert_to_nx(bg)
    assert list(back) == list(G) and set(map(frozenset, back.edges)) == set(map(frozenset, G.edges))
    assert interface.convert_to_nx({"a": 1}) == {"a": 1}


def test_backend_and_from_networkx_share_the_conversion():
    G = nx.DiGraph()
    G.add_edges_from([("c", "a"), ("a", "b"), ("c", "b"), ("b", "b"), ("d", "c")])
    bg = interface.convert_from_nx(G)
    g = breadth.Graph.from_networkx(G)
    for name in ("indptr", "indices", "in_indptr", "in_indices"):
        assert np.array_equal(getattr(bg.graph, name), getattr(g, name)), name
    assert bg.graph.vertex_ids.tolist() == g.vertex_ids.tolist() == list(G) == bg.nodes
    assert bg.graph._in_indptr is not None            # built by the comparison above, lazily


def test_directed_conversion_reads_in_edges_only_when_needed():
    G = nx.gnp_random_graph(200, 0.03, seed=4, directed=True)
    bg = interface.convert_from_nx(G)
    nx.single_source_shortest_path_length(bg, 0)
    list(nx.bfs_edges(bg, 0))
    nx.descendants(bg, 0)
    assert bg.graph._in_indptr is None                 # out-edge searches never read G._pred
    assert list(nx.bfs_edges(bg, 0, reverse=True)) == list(nx.bfs_edges(G, 0, reverse=True))
    assert bg.graph._in_indptr is not None
