"""networkx's closeness and harmonic centrality on breadth's concurrent BFS (``breadth.multisource``).

Both follow networkx's convention on a digraph: the distances are those *to* the
node (incoming), so the concurrent BFS runs over the in-edges. Closeness uses the
same floating-point operations as networkx ((r-1)/sum, times (r-1)/(n-1)), so the
values are equal, not just close. Harmonic sums per level (count/distance) where
networkx adds 1/distance one source at a time: equal up to rounding.
"""
from __future__ import annotations

import numpy as np

from ..multisource import closeness, harmonic_centrality as harmonic_all
from .graph import BreadthGraph, nbunch_iter
from .paths import depth_batches
from .registry import implements


@implements
def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    """{node: closeness} of every node, or the closeness of ``u``, as networkx computes it.

    Args:
        u: one node, or None for every node.
        wf_improved: scale by the fraction of nodes reached (Wasserman and Faust), as networkx.

    Returns:
        A dict node -> closeness (float), or one float for ``u``.

    Raises:
        NodeNotFound: ``u`` is not a node.

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> nx.closeness_centrality(G, backend="breadth")
        {0: 0.5, 1: 0.75, 2: 0.75, 3: 0.5}
    """
    import networkx as nx

    if distance is not None:
        raise NotImplementedError("breadth computes unweighted closeness only (distance=None)")
    n = len(G)
    if u is not None:
        if u not in G:
            raise nx.NodeNotFound(f"Source {u} is not in G")
        return float(closeness(G.graph, [G.id(u)], wf_improved=bool(wf_improved), direction="in")[0])
    if n == 0:
        return {}
    scores = closeness(G.graph, wf_improved=bool(wf_improved), direction="in")
    return dict(zip(G.nodes, scores.tolist()))


def _ids(G: BreadthGraph, nodes) -> np.ndarray:
    index = G.index
    return np.fromiter((index[v] for v in nodes), dtype=np.int64, count=len(nodes))


def _harmonic_subset(G: BreadthGraph, targets: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """sum over s in sources, s != t, of 1/d(s, t), for each t in targets (concurrent BFS from the smaller side)."""
    out = np.zeros(targets.size, dtype=np.float64)
    from_sources = sources.size <= targets.size
    rows, cols = (sources, targets) if from_sources else (targets, sources)
    if rows.size == 0 or cols.size == 0:
        return out
    offset = 0
    for batch, depths, unreachable in depth_batches(G, rows, direction="out" if from_sources else "in"):
        d = depths[:, cols].astype(np.float64)
        with np.errstate(divide="ignore"):
            inv = np.where((d > 0) & (d != unreachable), 1.0 / d, 0.0)
        if from_sources:
            out += inv.sum(axis=0)           # columns are targets
        else:
            out[offset:offset + batch.size] = inv.sum(axis=1)
        offset += batch.size
    return out


@implements
def harmonic_centrality(G, nbunch=None, distance=None, sources=None):
    """{node in nbunch: sum over sources of 1/distance to the node} (networkx's definition).

    Args:
        nbunch: the nodes to score (None: every node).
        sources: the nodes whose distances count (None: every node).

    Returns:
        A dict node -> harmonic centrality (float).

    Examples:
        >>> import networkx as nx
        >>> G = nx.path_graph(4)
        >>> nx.harmonic_centrality(G, nbunch=[1, 2], backend="breadth")
        {1: 2.5, 2: 2.5}
    """
    if distance is not None:
        raise NotImplementedError("breadth computes unweighted harmonic centrality only (distance=None)")
    nodes = set(nbunch_iter(G, nbunch) if nbunch is not None else G.nodes)
    srcs = set(nbunch_iter(G, sources) if sources is not None else G.nodes)
    order = list(nodes)
    targets = _ids(G, order)
    if len(srcs) == len(G):
        values = harmonic_all(G.graph, targets, direction="in") if targets.size else np.zeros(0)
    else:
        values = _harmonic_subset(G, targets, _ids(G, list(srcs)))
    # networkx starts every node at the integer 0 and adds floats: 0 stays an int
    return {u: (h if h != 0 else 0) for u, h in zip(order, values.tolist())}
