"""networkx's unweighted path lengths: single source/target, all pairs, shortest_path_length, has_path.

Single-source and single-target lengths come from ``kernels.fifo_bfs``, so each
dict lists its nodes in networkx's discovery order. All pairs run breadth's
concurrent BFS (``breadth.multi_bfs``) over batches of sources; each inner dict
lists its nodes by distance, then in graph order (networkx: discovery order --
the same pairs and lengths).
"""
from __future__ import annotations

import numpy as np

from ..multisource import multi_bfs
from .graph import BreadthGraph, max_level
from .kernels import run_fifo
from .registry import implements

BATCH_BYTES = 64 << 20       # depth-matrix bytes per batch of all-pairs sources


def _lengths(G: BreadthGraph, node, cutoff, reverse: bool) -> dict:
    order, depth, _ = run_fifo(G.graph, [G.id(node)], max_level(cutoff), reverse=reverse)
    labels = G.labels(order)
    labels[0] = node                      # networkx keys the source by the object it was given
    return dict(zip(labels, depth[order].tolist()))


@implements
def single_source_shortest_path_length(G, source, cutoff=None):
    """{node: distance from source}, up to ``cutoff``.

    Args:
        source: the node searched from.

    Returns:
        A dict node -> distance, nearest first.

    Raises:
        NodeNotFound: ``source`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> nx.single_source_shortest_path_length(G, 0, cutoff=2, backend="breadth")
        {0: 0, 1: 1, 2: 2}
    """
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    return _lengths(G, source, cutoff, False)


@implements
def single_target_shortest_path_length(G, target, cutoff=None):
    """{node: distance to target}, up to ``cutoff`` (in-edges of a digraph).

    Args:
        target: the node the distances lead to.

    Returns:
        A dict node -> distance to ``target``, nearest first.

    Raises:
        NodeNotFound: ``target`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.DiGraph([(0, 1), (1, 2), (3, 2)])
        >>> nx.single_target_shortest_path_length(G, 2, backend="breadth")
        {2: 0, 1: 1, 3: 1, 0: 2}
    """
    import networkx as nx

    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return _lengths(G, target, cutoff, G.is_directed())


def batch_size(n: int) -> int:
    """Sources per concurrent-BFS batch: a multiple of 64 up to 512, the depth matrix within BATCH_BYTES."""
    return int(min(512, max(64, (BATCH_BYTES // max(n, 1)) // 64 * 64)))


def depth_batches(G: BreadthGraph, sources: np.ndarray, max_depth=None, direction="out"):
    """Yield (batch of sources, depth matrix, unreachable value) from breadth's concurrent BFS."""
    step = batch_size(len(G))
    for lo in range(0, sources.size, step):
        batch = sources[lo:lo + step]
        depths = multi_bfs(G.graph, batch, max_depth=max_depth, direction=direction)
        yield batch, depths, int(np.iinfo(depths.dtype).max)


def _all_pairs(G: BreadthGraph, cutoff):
    level = max_level(cutoff)
    sources = np.arange(len(G), dtype=np.int64)
    for batch, depths, unreachable in depth_batches(G, sources, None if level < 0 else level):
        for i, s in enumerate(batch.tolist()):
            row = depths[i]
            idx = np.flatnonzero(row != unreachable)
            idx = idx[np.argsort(row[idx], kind="stable")]
            yield G.nodes[s], dict(zip(G.labels(idx), row[idx].tolist()))


@implements
def all_pairs_shortest_path_length(G, cutoff=None):
    """(node, {other: distance}) for every node, in graph order.

    Returns:
        A generator of ``(node, {other: distance})`` pairs.

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> dict(nx.all_pairs_shortest_path_length(G, backend="breadth"))[0]
        {0: 0, 1: 1, 2: 2, 3: 3}
    """
    return _all_pairs(G, cutoff)


def _pair_depth(G: BreadthGraph, source, target) -> int:
    """The distance from source to target (-1 if none), with networkx's errors for missing nodes."""
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    t = G.id(target)
    _, depth, _ = run_fifo(G.graph, [G.id(source)], target=t)
    return int(depth[t])


@implements
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """Unweighted shortest path lengths, shaped by which of source/target are given (as networkx).

    Args:
        source: the start node (None: every node).
        target: the end node (None: every node).
        method: accepted for networkx's signature; unweighted lengths are BFS depths.

    Returns:
        An int for a source and a target, a dict for one of them, an iterator of (node, dict) for neither.

    Raises:
        NodeNotFound: ``source`` or ``target`` is not a node.
        NetworkXNoPath: ``target`` cannot be reached from ``source``.

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> nx.shortest_path_length(G, 0, 3, backend="breadth")
        3
    """
    import networkx as nx

    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if weight is not None:
        raise NotImplementedError("breadth computes unweighted path lengths only")
    if source is None:
        if target is None:
            return _all_pairs(G, None)
        if target not in G:
            raise nx.NodeNotFound(f"Source {target} is not in G")
        return _lengths(G, target, None, G.is_directed())
    if target is None:
        if source not in G:
            raise nx.NodeNotFound(f"Source {source} is not in G")
        return _lengths(G, source, None, False)
    d = _pair_depth(G, source, target)
    if d < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return d


@implements
def has_path(G, source, target):
    """True if there is a path from source to target.

    Returns:
        Whether ``target`` is reachable from ``source``.

    Raises:
        NodeNotFound: ``source`` or ``target`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.DiGraph([(0, 1), (1, 2), (3, 2)])
        >>> nx.has_path(G, 0, 3, backend="breadth")
        False
    """
    return _pair_depth(G, source, target) >= 0
