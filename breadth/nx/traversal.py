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


def _on_tree(summary: str, returns: str, call: str, result: str, raised=" (raised on first iteration)"):
    """The docstring of the BFS-tree functions (bfs_edges, bfs_tree, bfs_predecessors, bfs_successors):
    ``call`` wraps ``CALL``, the call on networkx's path graph."""
    def decorate(func):
        example = call.replace("CALL", f'nx.{func.__name__}(G, 1, backend="breadth")')
        func.__doc__ = f"""{summary}

        Returns:
            {returns}

        Raises:
            NetworkXError: ``source`` is not a node{raised}.

        Examples:
            >>> import networkx as nx
            >>> G = nx.path_graph(4)
            >>> {example}
            {result}
        """
        return func

    return decorate


@implements
@_on_tree("Tree edges (parent, child) of a BFS from ``source``, in networkx's order.",
          "A generator of ``(parent, child)`` edges.", "list(CALL)", "[(1, 0), (1, 2), (2, 3)]")
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    _no_sort(sort_neighbors)
    return _edges(G, source, reverse, depth_limit)


@implements
@_on_tree("The BFS tree from ``source`` as a networkx DiGraph.", "A ``networkx.DiGraph`` of the tree edges.",
          "sorted(CALL.edges)", "[(1, 0), (1, 2), (2, 3)]", raised="")
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    import networkx as nx

    _no_sort(sort_neighbors)
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(_edges(G, source, reverse, depth_limit))
    return T


@implements
@_on_tree("(node, predecessor) pairs of a BFS from ``source``.",
          "A generator of ``(node, parent)`` pairs, in BFS order.", "dict(CALL)", "{0: 1, 2: 1, 3: 2}")
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    _no_sort(sort_neighbors)
    return ((child, parent) for parent, child in _edges(G, source, False, depth_limit))


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
@_on_tree("(node, [successors]) pairs of a BFS from ``source``, one per node with children.",
          "A generator of ``(node, [children])`` pairs, in BFS order.", "dict(CALL)", "{1: [0, 2], 2: [3]}")
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
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

    Args:
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


def _on_reach(summary: str, call: str, result: str, graph="nx.DiGraph([(0, 1), (1, 2), (3, 2)])", **args):
    """The docstring of descendants_at_distance, descendants and ancestors: a set of the nodes one
    search reaches (``args``: parameter descriptions besides ``PARAMETERS``)."""
    def decorate(func):
        own = "".join(f"\n            {name}: {text}" for name, text in args.items())
        func.__doc__ = f"""{summary}

        Args:{own}

        Returns:
            A set of nodes.

        Raises:
            NetworkXError: ``source`` is not a node.

        Examples:
            >>> import networkx as nx
            >>> G = {graph}
            >>> nx.{func.__name__}(G, {call}, backend="breadth")
            {result}
        """
        return func

    return decorate


def _reached(G: BreadthGraph, s: int, reverse=False, max_depth=None) -> np.ndarray:
    """Vertices a breadth.bfs from s reaches (over in-edges when ``reverse``), with their depths."""
    g = G.reversed if reverse else G.graph
    r = bfs(g, s, algorithm=G.search_algorithm(g), max_depth=max_depth)
    return r.depth


@implements
@_on_reach("The set of nodes at exactly ``distance`` from ``source``.", "0, 2", "{2}", graph="nx.path_graph(4)",
           distance="the distance (a number).")
def descendants_at_distance(G, source, distance):
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
@_on_reach("All nodes reachable from ``source`` (``source`` excluded).", "0", "{1, 2}")
def descendants(G, source):
    return _reach_set(G, source, False)


@implements
@_on_reach("All nodes having a path to ``source`` (``source`` excluded).", "2", "{0, 1, 3}",
           source="the node the paths lead to.")
def ancestors(G, source):
    return _reach_set(G, source, True)
