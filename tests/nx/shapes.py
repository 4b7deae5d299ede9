"""Graphs for the backend tests: the zoo's shapes as networkx graphs with labels of every kind."""
import numpy as np
import networkx as nx

import zoo


def labelled(src, dst, n, directed, seed=0, multigraph=False, loops=True):
    """A networkx graph of the edges with string labels, nodes and edges inserted in shuffled order
    (so node order, ids and adjacency order all differ), plus a few self-loops and repeats."""
    rng = np.random.default_rng(seed)
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
           (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[(bool(directed), bool(multigraph))]
    G = cls()
    G.add_nodes_from(f"v{i}" for i in rng.permutation(n))
    perm = rng.permutation(len(src))
    edges = [(f"v{src[i]}", f"v{dst[i]}") for i in perm.tolist()]
    G.add_edges_from(edges)
    if loops and n:
        G.add_edges_from((f"v{i}", f"v{i}") for i in rng.integers(0, n, 3).tolist())
        G.add_edges_from(edges[:5])
    return G


def zoo_graphs(multigraph=False):
    """(name, networkx graph, source node) for every zoo shape (string labels, shuffled orders)."""
    for i, (name, src, dst, n, directed, root) in enumerate(zoo.graphs()):
        yield name, labelled(src, dst, n, directed, seed=i, multigraph=multigraph), f"v{root}"
