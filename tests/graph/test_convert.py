"""breadth.graph.convert: networkx, igraph and scipy conversions, against the libraries' own view of the graph."""
import numpy as np
import pytest

import breadth
from breadth import Graph, InputError

nx = pytest.importorskip("networkx")
ig = pytest.importorskip("igraph")


def edge_set(G):
    if G.is_directed():
        return {(u, v) for u, v in G.edges() if u != v}
    return {frozenset((u, v)) for u, v in G.edges() if u != v}


def breadth_edge_set(g: Graph, labels=None):
    out = set()
    for u in range(g.num_vertices):
        for v in g.neighbors(u).tolist():
            a, b = (labels[u], labels[v]) if labels is not None else (u, v)
            out.add((a, b) if g.directed else frozenset((a, b)))
    return out


@pytest.mark.parametrize("make", [
    lambda: nx.karate_club_graph(),
    lambda: nx.gnp_random_graph(80, 0.05, seed=1, directed=True),
    lambda: nx.path_graph(30),
    lambda: nx.empty_graph(5),
    lambda: nx.MultiGraph([(0, 1), (0, 1), (1, 1), (2, 3)]),
])
def test_from_networkx_dense_labels(make):
    G = make()
    g = Graph.from_networkx(G)
    assert g.directed == G.is_directed()
    assert g.num_vertices == G.number_of_nodes()
    assert g.vertex_ids is None
    assert breadth_edge_set(g) == edge_set(G)


def test_from_networkx_sparse_int_labels_keep_ids():
    G = nx.Graph([(100, 7), (7, 3000), (55, 100)])
    G.add_node(10**9)                                   # isolated, and the largest id
    g = Graph.from_networkx(G)
    assert g.vertex_ids.dtype == np.int64
    assert g.vertex_ids.tolist() == list(G) == [100, 7, 3000, 55, 10**9]
    assert breadth_edge_set(g, g.vertex_ids.tolist()) == edge_set(G)
    r = breadth.bfs(g, 0)                               # vertex 0 is node 100
    assert r.depth.tolist() == [0, 1, 2, 1, -1]
    back = g.to_networkx()
    assert set(back.nodes) == set(G.nodes) and edge_set(back) == edge_set(G)


def test_from_networkx_keeps_adjacency_order_and_drops_self_loops():
    G = nx.Graph()
    G.add_edges_from([(3, 1), (3, 0), (3, 3), (0, 2), (3, 2), (1, 0)])
    g = Graph.from_networkx(G)
    order = list(G)                                     # [3, 1, 0, 2]
    assert g.vertex_ids.tolist() == order
    for i, u in enumerate(order):
        assert [order[j] for j in g.neighbors(i).tolist()] == [v for v in G[u] if v != u]
    D = nx.MultiDiGraph([("b", "a"), ("b", "c"), ("b", "a"), ("c", "b"), ("a", "a")])
    d = Graph.from_networkx(D)
    names = list(D)
    assert d.vertex_ids.dtype == object and d.vertex_ids.tolist() == names
    for i, u in enumerate(names):
        assert [names[j] for j in d.neighbors(i).tolist()] == [v for v in D.succ[u] if v != u]
        assert [names[j] for j in d.in_neighbors(i).tolist()] == [v for v in D.pred[u] if v != u]


def test_directed_in_edges_are_read_lazily_and_stay_a_snapshot():
    D = nx.gnp_random_graph(60, 0.08, directed=True, seed=3)
    D.add_edges_from([(5, 1), (9, 1), (2, 1)])           # in-edge order differs from node order
    g = Graph.from_networkx(D)
    assert g._in_indptr is None                          # not built yet
    assert [list(D)[j] for j in g.in_neighbors(1).tolist()] == list(D.pred[1])
    assert g._in_edges is None                           # built once, builder released
    h = Graph.from_networkx(D)
    snapshot = {(u, v) for u, v in D.edges() if u != v}
    D.remove_edge(5, 1)                                  # change the networkx graph before the in-edges
    D.add_edge(1, 5)                                     # are read: same counts, other edges
    got = {(u, v) for v in range(60) for u in h.in_neighbors(v).tolist()}
    assert got == snapshot                               # the transpose of the converted out-edges


def test_from_networkx_string_labels_and_nodelist():
    G = nx.les_miserables_graph()
    g = Graph.from_networkx(G)
    labels = list(G)
    assert g.vertex_ids.dtype == object and g.vertex_ids.tolist() == labels
    assert breadth_edge_set(g, labels) == edge_set(G)
    order = sorted(G)
    g2 = Graph.from_networkx(G, nodelist=order)
    assert g2.vertex_ids.tolist() == order
    assert breadth_edge_set(g2, order) == edge_set(G)
    with pytest.raises(InputError, match="nodelist must list every node"):
        Graph.from_networkx(G, nodelist=order[:-1])


def test_from_networkx_direction_overrides():
    D = nx.DiGraph([(0, 1), (1, 2)])
    u = Graph.from_networkx(D, directed=False)
    assert not u.directed and u.neighbors(1).tolist() == [0, 2]
    U = nx.Graph([(0, 1), (1, 2)])
    d = Graph.from_networkx(U, directed=True)
    assert d.directed and d.neighbors(1).tolist() == [0, 2] and d.in_neighbors(1).tolist() == [0, 2]


def test_from_igraph_and_back():
    for g0 in (ig.Graph.Famous("Petersen"), ig.Graph.Erdos_Renyi(n=60, p=0.08, directed=True),
               ig.Graph(n=4)):
        g = Graph.from_igraph(g0)
        assert g.directed == g0.is_directed() and g.num_vertices == g0.vcount()
        expected = {(u, v) if g0.is_directed() else frozenset((u, v)) for u, v in g0.get_edgelist() if u != v}
        assert breadth_edge_set(g) == expected
        back = g.to_igraph()
        assert back.vcount() == g0.vcount() and back.is_directed() == g0.is_directed()
        assert sorted(map(tuple, map(sorted, back.get_edgelist()))) == \
            sorted(map(tuple, map(sorted, set(map(tuple, g0.get_edgelist())))))


def test_bfs_matches_networkx_on_converted_graph():
    G = nx.gnm_random_graph(300, 900, seed=4)
    g = Graph.from_networkx(G)
    r = breadth.bfs(g, 0)
    ref = nx.single_source_shortest_path_length(G, 0)
    assert all(r.depth[v] == ref.get(v, -1) for v in range(300))


def test_wrong_types():
    with pytest.raises(InputError, match="expected a networkx graph"):
        Graph.from_networkx([(0, 1)])
    with pytest.raises(InputError, match="expected an igraph.Graph"):
        Graph.from_igraph(nx.Graph())


def test_negative_and_mixed_labels_are_objects():
    G = nx.Graph([(-1, 5), (5, "x"), ("x", (1, 2))])
    g = Graph.from_networkx(G)
    assert g.vertex_ids.dtype == object and g.vertex_ids.tolist() == [-1, 5, "x", (1, 2)]
    assert g.index_of((1, 2)) == 3 and g.index_of(-1) == 0
    back = g.to_networkx()
    assert set(back.nodes) == set(G.nodes) and edge_set(back) == edge_set(G)
    assert g.to_igraph().vs["id"] == [-1, 5, "x", (1, 2)]


def test_scipy_round_trip():
    G = nx.gnm_random_graph(40, 90, seed=2, directed=True)
    A = nx.to_scipy_sparse_array(G, nodelist=range(40))
    g = Graph.from_scipy(A)
    assert g.directed and breadth_edge_set(g) == edge_set(G)
    assert (g.to_scipy() != (A != 0)).nnz == 0


def test_to_igraph_keeps_original_ids():
    g = breadth.Graph.from_edges([0], [1])
    g.vertex_ids = np.array([4, 8])
    assert g.to_igraph().vs["id"] == [4, 8]
