"""breadth.analysis: components against networkx, the double-sweep bound against exact diameters."""
import numpy as np
import pytest
from scipy.sparse import csgraph

import breadth
from breadth import InputError
from zoo import graphs

nx = pytest.importorskip("networkx")

ZOO = list(graphs())


def to_networkx(src, dst, n, directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((int(a), int(b)) for a, b in zip(src, dst) if a != b)
    return G


@pytest.mark.parametrize("name,src,dst,n,directed,root", ZOO, ids=[z[0] for z in ZOO])
def test_components_match_networkx(name, src, dst, n, directed, root):
    g = breadth.Graph.from_edges(src, dst, num_vertices=n, directed=directed)
    G = to_networkx(src, dst, n, directed)
    ref = list(nx.weakly_connected_components(G) if directed else nx.connected_components(G))
    c = breadth.connected_components(g)
    assert c.count == len(ref) and c.labels.shape == (n,) and c.sizes.sum() == n
    assert sorted(c.sizes.tolist()) == sorted(len(s) for s in ref)
    for comp in ref:                       # every networkx component is exactly one label
        labels = np.unique(c.labels[sorted(comp)])
        assert labels.size == 1 and c.sizes[labels[0]] == len(comp)
    largest = max(len(s) for s in ref)
    assert c.sizes[c.largest] == largest and c.members(c.largest).size == largest
    summary = c.summary()
    assert summary["count"] == len(ref) and summary["largest"] == largest
    assert summary["singletons"] == sum(len(s) == 1 for s in ref)


@pytest.mark.parametrize("name,src,dst,n,directed,root", ZOO, ids=[z[0] for z in ZOO])
def test_double_sweep_is_a_realised_lower_bound(name, src, dst, n, directed, root):
    g = breadth.Graph.from_edges(src, dst, num_vertices=n, directed=directed)
    G = to_networkx(src, dst, n, directed)
    est = breadth.estimate_diameter(g, samples=3, seed=2)
    assert est.bfs_runs == 6 and est.method == "double sweep"
    u, v = est.endpoints
    assert nx.shortest_path_length(G, u, v) == est.lower_bound      # a distance that occurs
    c = breadth.connected_components(g)
    assert c.labels[u] == c.labels[v] == c.largest
    members = c.members(c.largest)
    dist = csgraph.shortest_path(g.to_scipy(), directed=directed, unweighted=True, indices=members)
    exact = int(dist[np.isfinite(dist)].max())      # the diameter (directed: largest finite distance)
    assert est.lower_bound <= exact
    sub = G.subgraph(members.tolist())
    if not directed and nx.is_tree(sub):
        assert est.lower_bound == exact                                # exact on trees


def test_exact_on_grids_and_paths():
    grid = nx.convert_node_labels_to_integers(nx.grid_2d_graph(6, 9))
    assert breadth.estimate_diameter(breadth.Graph.from_networkx(grid), samples=2).lower_bound == 13
    path = breadth.Graph.from_edges(np.arange(99), np.arange(1, 100))
    assert breadth.estimate_diameter(path, samples=1).lower_bound == 99


def test_no_sweep_empty_graph_and_scipy_input():
    g = breadth.Graph.from_edges(np.arange(9), np.arange(1, 10), num_vertices=13)
    assert breadth.estimate_diameter(g, samples=0).summary() == {"lower_bound": None, "bfs_runs": 0}
    empty = breadth.Graph.from_edges([], [], num_vertices=0)
    assert breadth.connected_components(empty).count == 0
    assert breadth.connected_components(empty).summary()["largest"] == 0
    assert breadth.estimate_diameter(empty).lower_bound is None
    est = breadth.estimate_diameter(g.to_scipy(), samples=2)
    assert est.lower_bound == 9 and est.summary()["endpoints"] == est.endpoints
    c = breadth.connected_components(g)
    assert breadth.estimate_diameter(g, samples=2, components=c) == est


@pytest.mark.parametrize("samples", [-1, 1.5, "2", True])
def test_bad_samples(samples):
    g = breadth.Graph.from_edges([0], [1])
    with pytest.raises(InputError, match="samples must be a non-negative integer"):
        breadth.estimate_diameter(g, samples=samples)
    with pytest.raises(InputError, match="expected a breadth.Graph"):
        breadth.connected_components([[0, 1]])
