"""closeness / harmonic centrality / eccentricity / k-hop reachability against networkx and scipy."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import breadth
import zoo
from breadth.multisource import closeness, eccentricity, harmonic_centrality, khop_reachability, multi_bfs

SMALL = [e for e in zoo.graphs() if e[3] <= 1100 and e[0] not in ("path-1000", "path-1000-mid")]  # nx: O(n^2)


def _graph(entry):
    name, s, d, n, directed, root = entry
    return breadth.Graph.from_edges(s, d, num_vertices=n, directed=directed)


def _nx(g):
    create = nx.DiGraph if g.directed else nx.Graph
    G = nx.from_scipy_sparse_array(g.to_scipy(), create_using=create)
    G.add_nodes_from(range(g.num_vertices))
    return G


def _as_array(d, n):
    return np.array([d[i] for i in range(n)], dtype=np.float64)


@pytest.mark.parametrize("entry", SMALL, ids=[e[0] for e in SMALL])
def test_closeness_and_harmonic_equal_networkx(entry):
    g = _graph(entry)
    n = g.num_vertices
    G = _nx(g)
    np.testing.assert_allclose(closeness(g, words=2), _as_array(nx.closeness_centrality(G), n),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(harmonic_centrality(g, words=1, group_size=50),
                               _as_array(nx.harmonic_centrality(G), n), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["two-components-isolated-tail", "sparse-random-directed-2", "star-directed-out",
                                  "kronecker-10-directed"])
def test_closeness_variants(name):
    entry = next(e for e in SMALL if e[0] == name)
    g = _graph(entry)
    n = g.num_vertices
    G = _nx(g)
    ref = _as_array(nx.closeness_centrality(G, wf_improved=False), n)
    np.testing.assert_allclose(closeness(g, wf_improved=False), ref, rtol=1e-12)
    # out-distances: networkx on the reversed graph
    R = G.reverse() if g.directed else G
    np.testing.assert_allclose(closeness(g, direction="out"), _as_array(nx.closeness_centrality(R), n),
                               rtol=1e-12)
    np.testing.assert_allclose(harmonic_centrality(g, direction="out"),
                               _as_array(nx.harmonic_centrality(R), n), rtol=1e-12)


def test_closeness_of_chosen_sources():
    g = breadth.kronecker(10, seed=6)
    G = _nx(g)
    ref = nx.closeness_centrality(G)
    sources = np.array([3, 900, 3, 17, 1023])
    np.testing.assert_allclose(closeness(g, sources), [ref[int(s)] for s in sources], rtol=1e-12)
    assert closeness(g, []).shape == (0,)


CONNECTED = ["star-center", "complete-40", "cycle-301", "grid-30x20", "binary-tree",
             "cycle-301-directed", "dense-random", "single-edge"]


@pytest.mark.parametrize("name", CONNECTED)
def test_eccentricity_equals_networkx_on_connected_graphs(name):
    entry = next(e for e in zoo.graphs() if e[0] == name)
    g = _graph(entry)
    G = _nx(g)
    ref = nx.eccentricity(G)
    got = eccentricity(g, words=2)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, [ref[i] for i in range(g.num_vertices)])


def test_eccentricity_of_giant_component_of_kronecker():
    g = breadth.kronecker(9, seed=1)
    G = _nx(g)
    giant = max(nx.connected_components(G), key=len)
    ref = nx.eccentricity(G.subgraph(giant))
    sources = np.array(sorted(giant))
    np.testing.assert_array_equal(eccentricity(g, sources), [ref[int(s)] for s in sources])


def test_eccentricity_disconnected_is_within_reach():
    entry = next(e for e in SMALL if e[0] == "two-components-isolated-tail")
    g = _graph(entry)
    d = csg.shortest_path(g.to_scipy(), unweighted=True)
    d[np.isinf(d)] = -1
    np.testing.assert_array_equal(eccentricity(g), d.max(axis=1).astype(np.int64))


@pytest.mark.parametrize("k", [0, 1, 2, 5])
@pytest.mark.parametrize("name", ["kronecker-10", "kronecker-10-directed", "path-1000-directed", "urand-11"])
def test_khop_reachability(name, k):
    entry = next(e for e in zoo.graphs() if e[0] == name)
    g = _graph(entry)
    sources = np.random.default_rng(k).integers(0, g.num_vertices, 150)
    index = khop_reachability(g, sources, k, words=2)
    assert index.shape == (150, g.num_vertices) and index.dtype == bool
    d = csg.shortest_path(g.to_scipy(), directed=g.directed, unweighted=True, indices=sources)
    np.testing.assert_array_equal(index.toarray(), d <= k)
    assert index.has_sorted_indices


def test_khop_matches_depth_matrix_and_rejects_bad_k():
    g = breadth.kronecker(9, seed=3)
    sources = np.arange(0, 512, 5)
    index = khop_reachability(g, sources, 2, groupby="random")
    np.testing.assert_array_equal(index.toarray(), multi_bfs(g, sources) <= 2)
    with pytest.raises(breadth.InputError, match="k must be"):
        khop_reachability(g, sources, -1)
    assert khop_reachability(g, [], 3).shape == (0, 512)


def test_package_exports():
    assert breadth.closeness is closeness and breadth.multi_bfs is multi_bfs
    assert breadth.harmonic_centrality is harmonic_centrality and breadth.eccentricity is eccentricity
    assert breadth.khop_reachability is khop_reachability
