"""networkx and igraph conversions, against the libraries' own view of the graph."""
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
    assert g.vertex_ids.tolist() == [7, 55, 100, 3000, 10**9]
    assert breadth_edge_set(g, g.vertex_ids.tolist()) == edge_set(G)
    r = breadth.bfs(g, 2)                               # vertex 2 is original id 100
    assert r.depth.tolist() == [1, 1, 0, 2, -1]
    back = g.to_networkx()
    assert set(back.nodes) == set(G.nodes) and edge_set(back) == edge_set(G)


def test_from_networkx_string_labels_and_nodelist():
    G = nx.les_miserables_graph()
    g = Graph.from_networkx(G)
    labels = list(G)
    assert g.vertex_ids is None
    assert breadth_edge_set(g, labels) == edge_set(G)
    order = sorted(G)
    g2 = Graph.from_networkx(G, nodelist=order)
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


def test_to_igraph_keeps_original_ids():
    g = breadth.Graph.from_edges([0], [1])
    g.vertex_ids = np.array([4, 8])
    assert g.to_igraph().vs["id"] == [4, 8]
