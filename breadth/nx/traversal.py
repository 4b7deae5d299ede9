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
    """Tree edges (parent, child) of a BFS from ``source``, in networkx's order."""
    _no_sort(sort_neighbors)
    return _edges(G, source, reverse, depth_limit)


@implements
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """The BFS tree from ``source`` as a networkx DiGraph."""
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
    """(node, predecessor) pairs of a BFS from ``source``."""
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
    """(node, [successors]) pairs of a BFS from ``source``, one per node with children."""
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
    """Lists of nodes at each distance from ``sources`` (one node or an iterable of them)."""
    return _layers(G, sources)


def _reached(G: BreadthGraph, s: int, reverse=False, max_depth=None) -> np.ndarray:
    """Vertices a breadth.bfs from s reaches (over in-edges when ``reverse``), with their depths."""
    g = G.reversed if reverse else G.graph
    r = bfs(g, s, algorithm=G.search_algorithm(g), max_depth=max_depth)
    return r.depth


@implements
def descendants_at_distance(G, source, distance):
    """The set of nodes at exactly ``distance`` from ``source``."""
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
    """All nodes reachable from ``source`` (``source`` excluded)."""
    return _reach_set(G, source, False)


@implements
def ancestors(G, source):
    """All nodes having a path to ``source`` (``source`` excluded)."""
    return _reach_set(G, source, True)
