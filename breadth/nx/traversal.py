"""networkx's breadth-first traversals: bfs_edges/tree/predecessors/successors/layers, descendants.

Order-sensitive functions run ``kernels.fifo_bfs`` (networkx's exact order); the
set-valued ones (descendants, ancestors, descendants_at_distance) run ``breadth.bfs``.
Generators stay generators: like networkx's, they raise on first iteration.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..search import bfs
from .graph import BreadthGraph, max_level, not_in_graph
from .kernels import run_fifo
from .registry import implements


def _no_sort(sort_neighbors) -> None:
    if sort_neighbors is not None:
        raise NotImplementedError("breadth does not support sort_neighbors (a callable ordering neighbours)")


def _source_id(G: BreadthGraph, source) -> int:
    """The id of a search source; networkx's ``G.neighbors`` error if it is not a node."""
    try:
        return G.id(source)
    except KeyError:
        raise not_in_graph(G, source) from None


def _tree(G: BreadthGraph, source, reverse: bool, depth_limit):
    """(order, parent) of networkx's BFS from ``source`` (in-edges when ``reverse`` on a digraph)."""
    s = _source_id(G, source)
    order, _, parent = run_fifo(G.graph, [s], max_level(depth_limit), reverse=reverse and G.is_directed())
    return order, parent


def _edges(G, source, reverse, depth_limit):
    order, parent = _tree(G, source, reverse, depth_limit)
    kids = order[1:]
    yield from zip(G.labels(parent[kids]), G.labels(kids))


@implements
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """Tree edges (parent, child) of a BFS from ``source``, in networkx's order.

    Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
    ``nx.config.backend_priority``); results and errors are networkx's.

    Args:
        G: the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).
        source: the start node.
        reverse: on a digraph, follow edges backwards.
        depth_limit: the largest depth searched (None: no limit).
        sort_neighbors: must be None for breadth (networkx runs a call with a callable itself).

    Returns:
        A generator of ``(parent, child)`` edges.

    Raises:
        NetworkXError: ``source`` is not a node (raised on first iteration).

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> list(nx.bfs_edges(G, 1, backend="breadth"))
        [(1, 0), (1, 2), (2, 3)]
    """
    _no_sort(sort_neighbors)
    return _edges(G, source, reverse, depth_limit)


@implements
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """The BFS tree from ``source`` as a networkx DiGraph.

    Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
    ``nx.config.backend_priority``); results and errors are networkx's.

    Args:
        G: the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).
        source: the start node.
        reverse: on a digraph, follow edges backwards.
        depth_limit: the largest depth searched (None: no limit).
        sort_neighbors: must be None for breadth (networkx runs a call with a callable itself).

    Returns:
        A ``networkx.DiGraph`` of the tree edges.

    Raises:
        NetworkXError: ``source`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> sorted(nx.bfs_tree(G, 1, backend="breadth").edges)
        [(1, 0), (1, 2), (2, 3)]
    """
    import networkx as nx

    _no_sort(sort_neighbors)
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(_edges(G, source, reverse, depth_limit))
    return T


def _predecessors(G, source, depth_limit):
    for parent, child in _edges(G, source, False, depth_limit):
        yield child, parent


@implements
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """(node, predecessor) pairs of a BFS from ``source``.

    Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
    ``nx.config.backend_priority``); results and errors are networkx's.

    Args:
        G: the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).
        source: the start node.
        depth_limit: the largest depth searched (None: no limit).
        sort_neighbors: must be None for breadth (networkx runs a call with a callable itself).

    Returns:
        A generator of ``(node, parent)`` pairs, in BFS order.

    Raises:
        NetworkXError: ``source`` is not a node (raised on first iteration).

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> dict(nx.bfs_predecessors(G, 0, backend="breadth"))
        {1: 0, 2: 1, 3: 2}
    """
    _no_sort(sort_neighbors)
    return _predecessors(G, source, depth_limit)


def _successors(G, source, depth_limit):
    order, parent = _tree(G, source, False, depth_limit)
    kids = order[1:]
    if kids.size == 0:
        yield source, []
        return
    pid = parent[kids]
    starts = np.concatenate(([0], np.flatnonzero(pid[1:] != pid[:-1]) + 1))
    ends = np.append(starts[1:], kids.size).tolist()
    children = G.labels(kids)
    parents = G.labels(pid[starts])
    parents[0] = source                   # networkx yields the source object it was given
    for p, a, b in zip(parents, starts.tolist(), ends):
        yield p, children[a:b]


@implements
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """(node, [successors]) pairs of a BFS from ``source``, one per node with children.

    Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
    ``nx.config.backend_priority``); results and errors are networkx's.

    Args:
        G: the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).
        source: the start node.
        depth_limit: the largest depth searched (None: no limit).
        sort_neighbors: must be None for breadth (networkx runs a call with a callable itself).

    Returns:
        A generator of ``(node, [children])`` pairs, in BFS order.

    Raises:
        NetworkXError: ``source`` is not a node (raised on first iteration).

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> dict(nx.bfs_successors(G, 1, backend="breadth"))
        {1: [0, 2], 2: [3]}
    """
    _no_sort(sort_neighbors)
    return _successors(G, source, depth_limit)


def _layers(G, sources):
    import networkx as nx

    if sources in G:
        sources = [sources]
    visited = set(sources)
    current = list(visited)               # networkx's first layer: the sources in set order
    for source in current:
        if source not in G:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not current:
        return
    order, depth, _ = run_fifo(G.graph, [G.id(s) for s in current])
    yield current
    rest = order[len(current):]
    if rest.size:
        cuts = (np.flatnonzero(np.diff(depth[rest])) + 1).tolist()
        labels = G.labels(rest)
        for a, b in zip([0] + cuts, cuts + [rest.size]):
            yield labels[a:b]


@implements
def bfs_layers(G, sources):
    """Lists of nodes at each distance from ``sources`` (one node or an iterable of them).

    Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
    ``nx.config.backend_priority``); results and errors are networkx's.

    Args:
        G: the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).
        sources: a node, or an iterable of nodes searched together.

    Returns:
        A generator of lists of nodes, distance 0 first.

    Raises:
        NetworkXError: a source is not a node (raised on first iteration).

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> list(nx.bfs_layers(G, [0, 3], backend="breadth"))
        [[0, 3], [1, 2]]
    """
    return _layers(G, sources)


def _reached(G: BreadthGraph, s: int, reverse=False, max_depth=None) -> np.ndarray:
    """Vertices a breadth.bfs from s reaches (over in-edges when ``reverse``), with their depths."""
    g = G.reversed if reverse else G.graph
    r = bfs(g, s, algorithm=G.search_algorithm(g), max_depth=max_depth)
    return r.depth


@implements
def descendants_at_distance(G, source, distance):
    """The set of nodes at exactly ``distance`` from ``source``.

    Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
    ``nx.config.backend_priority``); results and errors are networkx's.

    Args:
        G: the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).
        source: the start node.
        distance: the distance (a number).

    Returns:
        A set of nodes.

    Raises:
        NetworkXError: ``source`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> nx.descendants_at_distance(G, 0, 2, backend="breadth")
        {2}
    """
    import networkx as nx

    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not isinstance(distance, numbers.Real) or math.isnan(distance) or math.isinf(distance) \
            or distance < 0 or distance != math.floor(distance):
        return set()                       # networkx: no layer index equals it
    d = int(distance)
    if d == 0:
        return {source}
    depth = _reached(G, G.id(source), max_depth=d)
    return set(G.labels(np.flatnonzero(depth == d)))


def _reach_set(G, source, reverse):
    s = _source_id(G, source)
    depth = _reached(G, s, reverse=reverse and G.is_directed())
    depth[s] = -1
    return set(G.labels(np.flatnonzero(depth >= 0)))


@implements
def descendants(G, source):
    """All nodes reachable from ``source`` (``source`` excluded).

    Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
    ``nx.config.backend_priority``); results and errors are networkx's.

    Args:
        G: the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).
        source: the start node.

    Returns:
        A set of nodes.

    Raises:
        NetworkXError: ``source`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.DiGraph([(0, 1), (1, 2), (3, 2)])
        >>> nx.descendants(G, 0, backend="breadth")
        {1, 2}
    """
    return _reach_set(G, source, False)


@implements
def ancestors(G, source):
    """All nodes having a path to ``source`` (``source`` excluded).

    Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
    ``nx.config.backend_priority``); results and errors are networkx's.

    Args:
        G: the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).
        source: the node the paths lead to.

    Returns:
        A set of nodes.

    Raises:
        NetworkXError: ``source`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.DiGraph([(0, 1), (1, 2), (3, 2)])
        >>> nx.ancestors(G, 2, backend="breadth")
        {0, 1, 3}
    """
    return _reach_set(G, source, True)
