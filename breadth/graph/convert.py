"""Conversions between breadth graphs and networkx, python-igraph and scipy.sparse.

Conversion is not I/O: these functions turn another library's graph into the
arguments of a ``breadth.Graph`` (and a graph back into the other library's type).
They need nothing of breadth but the CSR builder, the label rules and the memory
estimates, so ``graph/interop.py`` calls them without an import circle. networkx and
python-igraph are optional and imported only when used.

networkx (``networkx_csr``; ``Graph.from_networkx`` and the networkx backend
``breadth.nx`` both convert through it):

* vertex i is ``list(G)[i]`` (or ``nodelist[i]``); the labels become
  ``vertex_ids`` by the rule of ``labels.labels_array``: None when they are exactly
  0..n-1 in order, int64 when they are non-negative integers, else an object array;
* vertex i's neighbours are ``G._adj[node]`` in its insertion order, self-loops
  dropped (a multigraph's parallel edges are one neighbour already). The adjacency
  dicts are read at C speed: chained into ``np.fromiter``, labels mapped to ids by
  a lookup table or a sorted search (integer labels) or by ``dict.__getitem__``
  applied with ``map`` (other labels); a numba pass drops self-loops;
* a directed graph's in-edges (``G._pred``, also in insertion order) are read on
  first use of ``in_indptr``/``in_indices``. Should the networkx graph have changed
  in between, what ``G._pred`` holds no longer matches the out-edges (checked by
  degrees and an edge checksum) and the transpose of the out-edges is used instead:
  the breadth graph stays a snapshot of the graph at conversion;
* ``directed=`` other than the graph's own kind: an undirected graph read as
  directed has every edge both ways (out- and in-edges are the same arrays); a
  directed graph read as undirected is symmetrised by the CSR builder (neighbour
  lists sorted, as ``Graph.from_edges`` makes them).
"""
from __future__ import annotations

import importlib
import itertools
import logging

import numpy as np

from ..errors import InputError
from ..jit import njit
from .build import build_csr
from .labels import labels_array
from .memory import check_fits, choose_index_dtype

log = logging.getLogger(__name__)


def require(module: str, extra: str = "interop"):
    """Import an optional library or raise InputError saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"this needs {module}, which is not installed: pip install -e '.[{extra}]' in breadth's checkout") from None


# ---------------------------------------------------------------- kernels
@njit(cache=True)
def _drop_self_loops(deg, ends, indptr, indices):
    """indices <- ends without self-loops (row v holds the next deg[v] ends); fills indptr.
    Returns the number of entries kept, or -1 if an end is not a vertex id."""
    n = deg.size
    e = 0
    k = 0
    indptr[0] = 0
    for v in range(n):
        for _ in range(deg[v]):
            x = ends[e]
            e += 1
            if x < 0 or x >= n:
                return -1
            if x != v:
                indices[k] = x
                k += 1
        indptr[v + 1] = k
    return k


@njit(cache=True)
def _mix(z):
    """splitmix64's finaliser: a well-spread 64-bit hash of z."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _edge_checksum(indptr, indices, transposed):
    """Sum (mod 2^64) of a hash of every edge (u, v); rows are targets when ``transposed``."""
    n = indptr.size - 1
    nn = np.uint64(n)
    total = np.uint64(0)
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if transposed:
                total += _mix(np.uint64(u) * nn + np.uint64(v))
            else:
                total += _mix(np.uint64(v) * nn + np.uint64(u))
    return total


@njit(cache=True)
def transpose_csr(indptr, indices):
    """The transposed CSR (in-edges of out-edges); each list in increasing source order."""
    n = indptr.size - 1
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(indices.size):
        out_ptr[indices[e] + 1] += 1
    for v in range(n):
        out_ptr[v + 1] += out_ptr[v]
    fill = out_ptr[:-1].copy()
    out = np.empty(indices.size, dtype=indices.dtype)
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            out[fill[v]] = u
            fill[v] += 1
    return out_ptr, out


# ---------------------------------------------------------------- networkx
class _NodeIds:
    """Maps networkx node labels to vertex ids in the fastest way the labels allow."""

    def __init__(self, nodes: list, labels):
        n = len(nodes)
        self.table = self.sorter = self.sorted = self.index = None
        if labels is None:
            self.mode = "identity"
        elif labels.dtype == np.int64:
            top = int(labels.max())
            if top < 8 * n + 1024:
                self.mode = "table"
                self.table = np.full(top + 1, -1, dtype=np.int64)
                self.table[labels] = np.arange(n, dtype=np.int64)
            else:
                self.mode = "search"
                self.sorter = np.argsort(labels, kind="stable")
                self.sorted = labels[self.sorter]
        else:
            self.mode = "dict"
            self.index = dict(zip(nodes, range(n)))

    def ends(self, inner: list, m: int) -> np.ndarray:
        """The ids of every neighbour in the chained adjacency dicts ``inner`` (m of them)."""
        flat = itertools.chain.from_iterable(inner)
        if self.mode == "dict":
            return np.fromiter(map(self.index.__getitem__, flat), dtype=np.int64, count=m)
        ends = np.fromiter(flat, dtype=np.int64, count=m)
        if self.mode == "table":
            return self.table[np.minimum(ends, self.table.size - 1)]
        if self.mode == "search":
            pos = np.minimum(np.searchsorted(self.sorted, ends), max(self.sorted.size - 1, 0))
            return np.where(self.sorted[pos] == ends, self.sorter[pos], -1) if ends.size else ends
        return ends


def adjacency_csr(adj, nodes: list, ids: _NodeIds, index_dtype):
    """(indptr, indices) of a networkx adjacency mapping (``G._adj`` or ``G._pred``) over ``nodes``."""
    n = len(nodes)
    inner = list(map(adj.__getitem__, nodes))
    deg = np.fromiter(map(len, inner), dtype=np.int64, count=n)
    m = int(deg.sum())
    check_fits("converting the networkx graph", 8 * (2 * n + 2 * m) + np.dtype(index_dtype).itemsize * m)
    ends = ids.ends(inner, m)
    indptr = np.empty(n + 1, dtype=np.int64)
    indices = np.empty(m, dtype=index_dtype)
    k = _drop_self_loops(deg, ends, indptr, indices)
    if k < 0:
        raise InputError("the networkx graph has an edge to a node that is not in the graph")
    return indptr, (indices[:k].copy() if k < m else indices)


class _LazyInEdges:
    """Builds a directed graph's in-edges from ``G._pred`` on first use (see the module notes)."""

    def __init__(self, pred, nodes, ids, indptr, indices, index_dtype):
        self.state = (pred, nodes, ids, indptr, indices, index_dtype)

    def __call__(self):
        pred, nodes, ids, indptr, indices, index_dtype = self.state
        self.state = None                      # let go of the networkx graph
        try:
            in_indptr, in_indices = adjacency_csr(pred, nodes, ids, index_dtype)
            same = (in_indices.size == indices.size
                    and np.array_equal(np.diff(in_indptr), np.bincount(indices, minlength=indptr.size - 1))
                    and _edge_checksum(in_indptr, in_indices, True) == _edge_checksum(indptr, indices, False))
        except (KeyError, TypeError, InputError):
            same = False
        if same:
            return in_indptr, in_indices
        log.debug("the networkx graph changed after conversion; in-edges are the transpose of the out-edges")
        return transpose_csr(indptr, indices)


def networkx_csr(G, nodelist=None, directed=None, index_dtype=None) -> dict:
    """The ``breadth.Graph`` keyword arguments of a networkx (Di/Multi)Graph (see the module notes).

    ``directed`` defaults to ``G.is_directed()``; ``nodelist`` orders the vertices
    (every node exactly once) instead of ``list(G)``.
    """
    nx = require("networkx")
    if not isinstance(G, nx.Graph):
        raise InputError(f"expected a networkx graph, got {type(G).__name__}")
    source_directed = G.is_directed()
    directed = source_directed if directed is None else bool(directed)
    nodes = list(G) if nodelist is None else list(nodelist)
    n = len(nodes)
    if nodelist is not None:
        try:
            complete = n == G.number_of_nodes() and set(nodes) == set(G)
        except TypeError:
            complete = False
        if not complete:
            raise InputError("nodelist must list every node of the graph exactly once")
    idt = choose_index_dtype(n, index_dtype)
    labels = labels_array(nodes)
    ids = _NodeIds(nodes, labels)
    indptr, indices = adjacency_csr(G._adj, nodes, ids, idt)
    args = {"indptr": indptr, "indices": indices, "directed": directed, "vertex_ids": labels}
    if directed and source_directed:
        args["in_edges"] = _LazyInEdges(G._pred, nodes, ids, indptr, indices, idt)
    elif directed:
        args["in_indptr"], args["in_indices"] = indptr, indices
    elif source_directed:
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        args["indptr"], args["indices"], _ = build_csr(src, indices.astype(np.int64), n, True, idt)
    return args


def csr_edges(graph):
    """(src, dst) int64 arrays of a graph's edges: every arc if directed, u < v once if not."""
    n = graph.num_vertices
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.indptr))
    dst = np.asarray(graph.indices, dtype=np.int64)
    if not graph.directed:
        keep = src < dst
        src, dst = src[keep], dst[keep]
    return src, dst


def to_networkx(graph):
    """networkx Graph (or DiGraph) with the graph's vertices (its labels if it has any) and edges."""
    nx = require("networkx")
    G = nx.DiGraph() if graph.directed else nx.Graph()
    ids = graph.vertex_ids
    G.add_nodes_from(range(graph.num_vertices) if ids is None else ids.tolist())
    src, dst = csr_edges(graph)
    if ids is not None:
        src, dst = ids[src], ids[dst]
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    return G


# ---------------------------------------------------------------- igraph, scipy
def _orient(src, dst, source_directed: bool, directed: bool):
    """An undirected source read as directed stands for both directions of every edge."""
    if directed and not source_directed:
        return np.concatenate((src, dst)), np.concatenate((dst, src))
    return src, dst


def igraph_edges(g, directed=None):
    """(src, dst, num_vertices, directed) of a python-igraph Graph; ``directed`` defaults to its own."""
    ig = require("igraph")
    if not isinstance(g, ig.Graph):
        raise InputError(f"expected an igraph.Graph, got {type(g).__name__}")
    source_directed = g.is_directed()
    directed = source_directed if directed is None else bool(directed)
    edges = np.asarray(g.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    src, dst = _orient(edges[:, 0].copy(), edges[:, 1].copy(), source_directed, directed)
    return src, dst, g.vcount(), directed


def to_igraph(graph):
    """python-igraph Graph on vertices 0..n-1; a graph's labels become the "id" vertex attribute."""
    ig = require("igraph")
    src, dst = csr_edges(graph)
    g = ig.Graph(n=graph.num_vertices, edges=np.column_stack((src, dst)).tolist(), directed=graph.directed)
    if graph.vertex_ids is not None:
        g.vs["id"] = graph.vertex_ids.tolist()
    return g


def scipy_edges(matrix, directed=None):
    """(src, dst, num_vertices, directed) of a square scipy sparse matrix: entry (i, j) is i -> j.

    ``directed=None`` reads a structurally symmetric matrix as undirected and any
    other as directed (scipy.sparse.csgraph's default view of a matrix).
    """
    import scipy.sparse as sp

    if not sp.issparse(matrix):
        raise InputError(f"expected a scipy sparse matrix, got {type(matrix).__name__}")
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise InputError(f"adjacency matrix must be square, got shape {matrix.shape}")
    coo = matrix.tocoo()
    if directed is None:
        pattern = (matrix != 0).astype(np.int8) if matrix.nnz else matrix
        directed = bool((pattern != pattern.T).nnz) if matrix.nnz else False
    keep = coo.data != 0
    return coo.row[keep], coo.col[keep], matrix.shape[0], bool(directed)


def to_scipy(graph):
    """The adjacency as a scipy.sparse.csr_array of int8 ones (both directions if undirected)."""
    import scipy.sparse as sp

    n = graph.num_vertices
    data = np.ones(graph.indices.size, dtype=np.int8)
    return sp.csr_array((data, graph.indices, graph.indptr), shape=(n, n))
