"""networkx's connected components: is_connected, (weakly_)connected_components, counts, one node's.

Components are labelled by one numba pass (``kernels.component_labels``) in vertex
order, so they come out in networkx's order (by their first node in ``G``). The
directed/undirected checks are networkx's ``not_implemented_for`` decorators, which
run before dispatch.
"""
from __future__ import annotations

import numpy as np

from ..search import bfs
from .graph import BreadthGraph
from .kernels import run_components
from .registry import implements


def _components(G: BreadthGraph, weak: bool):
    count, label = run_components(G.graph, weak)
    if count == 0:
        return
    order = np.argsort(label, kind="stable")
    cuts = np.flatnonzero(np.diff(label[order])) + 1
    nodes = G.labels(order)
    for a, b in zip([0] + cuts.tolist(), cuts.tolist() + [order.size]):
        yield set(nodes[a:b])


@implements
def connected_components(G):
    """Sets of nodes, one per connected component, in the order networkx yields them.

    Returns:
        A generator of sets of nodes.

    Raises:
        NetworkXNotImplemented: ``G`` is directed.

    Examples:
        >>> import networkx as nx
        >>> G = nx.Graph([(0, 1), (2, 3)])
        >>> list(nx.connected_components(G, backend="breadth"))
        [{0, 1}, {2, 3}]
    """
    return _components(G, False)


@implements
def weakly_connected_components(G):
    """Sets of nodes, one per weakly connected component of a digraph, in networkx's order.

    Returns:
        A generator of sets of nodes.

    Raises:
        NetworkXNotImplemented: ``G`` is undirected.

    Examples:
        >>> import networkx as nx
        >>> G = nx.DiGraph([(0, 1), (1, 2), (3, 2)])
        >>> list(nx.weakly_connected_components(G, backend="breadth"))
        [{0, 1, 2, 3}]
    """
    return _components(G, True)


@implements
def number_connected_components(G):
    """The number of connected components.

    Returns:
        The count (int).

    Raises:
        NetworkXNotImplemented: ``G`` is directed.

    Examples:
        >>> import networkx as nx
        >>> G = nx.Graph([(0, 1), (2, 3)])
        >>> nx.number_connected_components(G, backend="breadth")
        2
    """
    return run_components(G.graph, False)[0]


@implements
def is_connected(G):
    """True if the graph is connected (networkx raises for the null graph).

    Returns:
        Whether every node reaches every other.

    Raises:
        NetworkXPointlessConcept: ``G`` has no nodes.
        NetworkXNotImplemented: ``G`` is directed.

    Examples:
        >>> import networkx as nx
        >>> G = nx.Graph([(0, 1), (2, 3)])
        >>> nx.is_connected(G, backend="breadth")
        False
    """
    import networkx as nx

    n = len(G)
    if n == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return bfs(G.graph, 0).num_reached == n


@implements
def node_connected_component(G, n):
    """The set of nodes in the component of node ``n`` (KeyError if ``n`` is not a node, as networkx).

    Args:
        n: the node.

    Returns:
        The set of nodes connected to ``n`` (``n`` included).

    Raises:
        KeyError: ``n`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.Graph([(0, 1), (2, 3)])
        >>> nx.node_connected_component(G, 2, backend="breadth")
        {2, 3}
    """
    s = G.id(n)
    depth = bfs(G.graph, s).depth
    return set(G.labels(np.flatnonzero(depth >= 0)))
