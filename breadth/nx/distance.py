"""networkx's eccentricity, diameter, radius, center and periphery on breadth's concurrent BFS.

All eccentricities come from one many-source run (``breadth.multisource.msbfs``:
per-source reach counts and largest depths, no depth matrix). networkx's errors
are kept: a node that does not reach every node ("Found infinite path length ..."),
the bounding algorithm's message when ``usebounds=True`` on an undirected graph,
``max()``/``min()`` of nothing on an empty graph and ``is_tree``'s
``NetworkXPointlessConcept`` for ``center`` of an empty undirected graph. With
``usebounds=True`` the exact eccentricities are computed anyway (all sources at
once is cheaper here than networkx's bounding sweeps) and give the same answers.
"""
from __future__ import annotations

import numpy as np

from ..multisource import msbfs
from ..search import bfs
from .graph import BreadthGraph, nbunch_iter
from .registry import implements


def _not_connected(G: BreadthGraph):
    import networkx as nx

    if G.is_directed():
        return nx.NetworkXError("Found infinite path length because the digraph is not strongly connected")
    return nx.NetworkXError("Found infinite path length because the graph is not connected")


def _eccentricities(G: BreadthGraph, ids: np.ndarray, error) -> np.ndarray:
    """Eccentricity of each vertex in ``ids``; raises ``error()`` if one does not reach every vertex."""
    n = len(G)
    if ids.size == 0:
        return np.zeros(0, dtype=np.int64)
    g = G.graph
    first = bfs(g, int(ids[0]), algorithm=G.search_algorithm(g))      # fail fast, as networkx does
    if first.num_reached != n:
        raise error()
    res = msbfs(g, ids, direction="out")
    if (res.reached != n).any():
        raise error()
    return res.eccentricity


def _ecc_dict(G: BreadthGraph, v) -> dict:
    """networkx's ``eccentricity(G, v)`` dict: nodes of ``nbunch_iter(v)`` -> eccentricity."""
    nodes, failure = [], None
    try:
        for node in nbunch_iter(G, v):
            nodes.append(node)
    except Exception as exc:              # networkx meets this error after the nodes before it
        failure = exc
    ids = np.fromiter((G.index[u] for u in nodes), dtype=np.int64, count=len(nodes))
    ecc = _eccentricities(G, ids, lambda: _not_connected(G))
    if failure is not None:
        raise failure
    return dict(zip(nodes, ecc.tolist()))


@implements
def eccentricity(G, v=None, sp=None, weight=None):
    """Eccentricity of ``v`` (a node), or {node: eccentricity} of ``v`` (nodes) or of all nodes.

    Args:
        v: a node, a list of nodes, or None for every node.
        sp: must be None for breadth (precomputed lengths: networkx runs the call).

    Returns:
        One int for a node, else a dict node -> eccentricity.

    Raises:
        NetworkXError: ``G`` is not connected (or not strongly connected), as networkx.

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> nx.eccentricity(G, backend="breadth")
        {0: 3, 1: 2, 2: 2, 3: 3}
    """
    if sp is not None or weight is not None:
        raise NotImplementedError("breadth computes unweighted eccentricities only (sp=None, weight=None)")
    e = _ecc_dict(G, v)
    if v in G:
        return e[v]
    return e


def _bounded(G: BreadthGraph) -> dict:
    """What networkx's ``usebounds=True`` path needs: every node's eccentricity, its errors."""
    import networkx as nx

    if len(G) == 0:
        max(())                           # networkx: max() of the empty degree dict
    ids = np.arange(len(G), dtype=np.int64)
    ecc = _eccentricities(G, ids, lambda: nx.NetworkXError("Cannot compute metric because graph is not connected."))
    return dict(zip(G.nodes, ecc.tolist()))


def _all_eccentricities(G: BreadthGraph, e, usebounds, weight) -> dict:
    """Every node's eccentricity, reached the way networkx reaches it (so with its errors)."""
    if e is not None or weight is not None:
        raise NotImplementedError("breadth computes unweighted eccentricities only (e=None, weight=None)")
    if usebounds is True and not G.is_directed():
        return _bounded(G)
    return _ecc_dict(G, None)


def _on_eccentricities(summary: str, returns: str, result: str):
    """The docstring of diameter, radius, periphery and center: one shape, networkx's example graph."""
    def decorate(func):
        func.__doc__ = f"""{summary}

        Returns:
            {returns}

        Raises:
            NetworkXError: ``G`` is not connected, as networkx.

        Examples:
            >>> import networkx as nx
            >>> G = nx.path_graph(4)
            >>> nx.{func.__name__}(G, backend="breadth")
            {result}
        """
        return func

    return decorate


def _nodes_at(ecc: dict, value) -> list:
    return [v for v in ecc if ecc[v] == value]


@implements
@_on_eccentricities("The largest eccentricity.", "The diameter (int).", "3")
def diameter(G, e=None, usebounds=False, weight=None):
    return max(_all_eccentricities(G, e, usebounds, weight).values())


@implements
@_on_eccentricities("The smallest eccentricity.", "The radius (int).", "2")
def radius(G, e=None, usebounds=False, weight=None):
    return min(_all_eccentricities(G, e, usebounds, weight).values())


@implements
@_on_eccentricities("Nodes whose eccentricity is the diameter, in graph order.", "A list of nodes.", "[0, 3]")
def periphery(G, e=None, usebounds=False, weight=None):
    ecc = _all_eccentricities(G, e, usebounds, weight)
    return _nodes_at(ecc, max(ecc.values()))


@implements
@_on_eccentricities("Nodes whose eccentricity is the radius, in graph order.", "A list of nodes.", "[1, 2]")
def center(G, e=None, usebounds=False, weight=None):
    import networkx as nx

    if e is None and weight is None and usebounds is not True and not G.is_directed() and len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")     # networkx asks is_tree(G) first
    ecc = _all_eccentricities(G, e, usebounds, weight)
    return _nodes_at(ecc, min(ecc.values()))
