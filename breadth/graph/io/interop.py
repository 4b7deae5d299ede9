"""Conversions to and from networkx and python-igraph (optional dependencies, imported lazily).

networkx: vertices are numbered in sorted order when every node label is a
non-negative integer (labels that are not exactly 0..n-1 are kept as
``graph.vertex_ids``); otherwise in ``list(G)`` order, or the order of
``nodelist``. igraph vertices are already 0..n-1.
"""
from __future__ import annotations

import importlib
import itertools
import numbers

import numpy as np

from ...errors import InputError
from ..types import Graph
from .edgelist import edge_blocks


def _require(module: str, extra: str = "interop"):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"this needs {module}, which is not installed: pip install 'breadth[{extra}]'") from None


def _is_int_label(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) and x >= 0


def _orient(src, dst, source_directed: bool, directed: bool):
    """An undirected source read as directed stands for both directions of every edge."""
    if directed and not source_directed:
        return np.concatenate((src, dst)), np.concatenate((dst, src))
    return src, dst


def from_networkx(G, nodelist=None, directed=None, index_dtype=None) -> Graph:
    """A breadth.Graph of a networkx (Di/Multi)Graph; ``directed`` defaults to ``G.is_directed()``."""
    nx = _require("networkx")
    if not isinstance(G, nx.Graph):
        raise InputError(f"expected a networkx graph, got {type(G).__name__}")
    source_directed = G.is_directed()
    directed = source_directed if directed is None else bool(directed)
    nodes = list(G) if nodelist is None else list(nodelist)
    n = len(nodes)
    if nodelist is not None:
        if n != G.number_of_nodes() or set(nodes) != set(G):
            raise InputError("nodelist must list every node of the graph exactly once")
    m = G.number_of_edges()
    flat = itertools.chain.from_iterable(G.edges())
    ids = None
    if all(_is_int_label(v) for v in nodes):
        labels = np.fromiter(nodes, dtype=np.int64, count=n)
        if nodelist is None:
            labels.sort()
        ends = np.fromiter(flat, dtype=np.int64, count=2 * m)
        order = np.argsort(labels, kind="stable")
        ends = order[np.searchsorted(labels, ends, sorter=order)]
        if not np.array_equal(labels, np.arange(n)):
            ids = labels
    else:
        index = {v: i for i, v in enumerate(nodes)}
        ends = np.fromiter((index[v] for v in flat), dtype=np.int64, count=2 * m)
    src, dst = _orient(ends[0::2], ends[1::2], source_directed, directed)
    g = Graph.from_edges(src, dst, num_vertices=n, directed=directed, index_dtype=index_dtype)
    g.vertex_ids = ids
    return g


def from_igraph(g, directed=None, index_dtype=None) -> Graph:
    """A breadth.Graph of a python-igraph Graph; ``directed`` defaults to ``g.is_directed()``."""
    ig = _require("igraph")
    if not isinstance(g, ig.Graph):
        raise InputError(f"expected an igraph.Graph, got {type(g).__name__}")
    source_directed = g.is_directed()
    directed = source_directed if directed is None else bool(directed)
    edges = np.asarray(g.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    src, dst = _orient(edges[:, 0].copy(), edges[:, 1].copy(), source_directed, directed)
    return Graph.from_edges(src, dst, num_vertices=g.vcount(), directed=directed, index_dtype=index_dtype)


def to_networkx(graph: Graph):
    """networkx Graph (or DiGraph) with the graph's vertices (original ids if relabelled) and edges."""
    nx = _require("networkx")
    G = nx.DiGraph() if graph.directed else nx.Graph()
    ids = graph.vertex_ids
    G.add_nodes_from(range(graph.num_vertices) if ids is None else ids.tolist())
    for src, dst in edge_blocks(graph):
        if ids is not None:
            src, dst = ids[src], ids[dst]
        G.add_edges_from(zip(src.tolist(), dst.tolist()))
    return G


def to_igraph(graph: Graph):
    """python-igraph Graph on vertices 0..n-1; a relabelled graph's original ids are the "id" attribute."""
    ig = _require("igraph")
    blocks = list(edge_blocks(graph))
    edges = np.column_stack((np.concatenate([b[0] for b in blocks]), np.concatenate([b[1] for b in blocks]))) \
        if blocks else np.zeros((0, 2), dtype=np.int64)
    g = ig.Graph(n=graph.num_vertices, edges=edges.tolist(), directed=graph.directed)
    if graph.vertex_ids is not None:
        g.vs["id"] = graph.vertex_ids.tolist()
    return g
