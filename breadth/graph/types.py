"""breadth.Graph: a compressed sparse row (CSR) graph.

Vertex ids are int64 in every public array (edge lists, roots, parents,
depths). Offsets (``indptr``) are always int64, so nothing overflows past 2^31
edges. The neighbour array (``indices``) is stored as int32 while every vertex
id fits in it (fewer than 2^31 vertices) and int64 beyond, the way GAP and the
Graph500 reference pack theirs: it halves the memory traffic of a search.
``index_dtype=np.int64`` forces the wide form.

An undirected graph stores each edge in both directions. A directed graph keeps
its out-edges (``indptr``/``indices``, what top-down search follows) and its
in-edges (``in_indptr``/``in_indices``, what bottom-up search scans).
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .build import BuildInfo, build_csr, check_edge_arrays, csr_violations
from .memory import index_itemsize


def _index_dtype(num_vertices, index_dtype):
    if index_dtype is None:
        return np.int32 if index_itemsize(num_vertices) == 4 else np.int64
    index_dtype = np.dtype(index_dtype)
    if index_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise InputError(f"index_dtype must be int32 or int64, got {index_dtype}")
    if index_dtype == np.int32 and num_vertices > 2**31 - 1:
        raise InputError(f"{num_vertices} vertices do not fit int32 neighbour ids")
    return index_dtype.type


def _check_csr(indptr, indices, n, what):
    if indptr.ndim != 1 or indices.ndim != 1:
        raise InputError(f"{what}: CSR arrays must be 1-D")
    if indptr.size != n + 1:
        raise InputError(f"{what}: indptr has {indptr.size} entries, expected {n + 1}")
    if indptr[0] != 0 or indptr[-1] != indices.size:
        raise InputError(f"{what}: indptr must start at 0 and end at len(indices)={indices.size}")
    bad_offsets, bad_ids = csr_violations(indptr, indices, n)
    if bad_offsets:
        raise InputError(f"{what}: indptr is not non-decreasing")
    if bad_ids:
        raise InputError(f"{what}: neighbour id out of range [0, {n})")


class Graph:
    """A CSR graph; build one with ``Graph.from_edges`` or a generator."""

    __slots__ = ("indptr", "indices", "in_indptr", "in_indices", "directed", "build_info", "vertex_ids")

    def __init__(self, indptr, indices, *, directed=False, in_indptr=None, in_indices=None,
                 build_info: BuildInfo | None = None, check=True, vertex_ids=None):
        self.indptr = np.asarray(indptr)
        self.indices = np.asarray(indices)
        self.directed = bool(directed)
        if self.directed:
            if in_indptr is None or in_indices is None:
                raise InputError("a directed graph needs its in-edge CSR (in_indptr, in_indices)")
            self.in_indptr = np.asarray(in_indptr)
            self.in_indices = np.asarray(in_indices)
        else:
            self.in_indptr = self.indptr
            self.in_indices = self.indices
        self.build_info = build_info
        # original (pre-relabelling) id of each vertex, int64 >= 0; None when ids are the originals
        self.vertex_ids = None if vertex_ids is None else np.asarray(vertex_ids)
        if check:
            self.check()

    def check(self) -> None:
        """Structural checks (dtypes, shapes, offsets, id range); raises InputError."""
        for name in ("indptr", "in_indptr"):
            if getattr(self, name).dtype != np.int64:
                raise InputError(f"{name} must be int64, got {getattr(self, name).dtype}")
        for name in ("indices", "in_indices"):
            if getattr(self, name).dtype not in (np.int32, np.int64):
                raise InputError(f"{name} must be int32 or int64, got {getattr(self, name).dtype}")
        n = self.indptr.size - 1
        if n < 0:
            raise InputError("indptr must have at least one entry")
        _check_csr(self.indptr, self.indices, n, "out-edges")
        if self.directed:
            _check_csr(self.in_indptr, self.in_indices, n, "in-edges")
            if self.in_indices.size != self.indices.size:
                raise InputError("in-edge and out-edge CSR hold different numbers of edges")
        ids = self.vertex_ids
        if ids is not None:
            if ids.ndim != 1 or ids.size != n or (ids.size and not np.issubdtype(ids.dtype, np.integer)):
                raise InputError(f"vertex_ids must be {n} integer ids, got shape {ids.shape} dtype {ids.dtype}")
            if ids.size and ids.min() < 0:
                raise InputError("vertex_ids must be non-negative")

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_edges(cls, src, dst, num_vertices=None, directed=False, index_dtype=None) -> "Graph":
        """Build from edge arrays: self-loops and duplicates removed, neighbour lists sorted.

        Undirected graphs are symmetrised. ``num_vertices`` defaults to max id + 1.
        """
        src, dst, n = check_edge_arrays(src, dst, num_vertices)
        idt = _index_dtype(n, index_dtype)
        if directed:
            indptr, indices, info = build_csr(src, dst, n, False, idt)
            in_indptr, in_indices, _ = build_csr(dst, src, n, False, idt)
            return cls(indptr, indices, directed=True, in_indptr=in_indptr, in_indices=in_indices,
                       build_info=info, check=False)
        indptr, indices, info = build_csr(src, dst, n, True, idt)
        return cls(indptr, indices, build_info=info, check=False)

    @classmethod
    def from_scipy(cls, matrix, directed=None, index_dtype=None) -> "Graph":
        """From a square scipy sparse matrix/array: entry (i, j) is the edge i -> j.

        ``directed=None`` treats a structurally symmetric matrix as undirected and any
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
        return cls.from_edges(coo.row[keep], coo.col[keep], num_vertices=matrix.shape[0],
                              directed=directed, index_dtype=index_dtype)

    @classmethod
    def from_networkx(cls, G, nodelist=None, directed=None, index_dtype=None) -> "Graph":
        """From a networkx graph (see ``breadth.graph.io.interop.from_networkx``)."""
        from .io.interop import from_networkx

        return from_networkx(G, nodelist=nodelist, directed=directed, index_dtype=index_dtype)

    @classmethod
    def from_igraph(cls, g, directed=None, index_dtype=None) -> "Graph":
        """From a python-igraph graph (see ``breadth.graph.io.interop.from_igraph``)."""
        from .io.interop import from_igraph

        return from_igraph(g, directed=directed, index_dtype=index_dtype)

    def to_networkx(self):
        """A networkx Graph/DiGraph with the same vertices (original ids if relabelled) and edges."""
        from .io.interop import to_networkx

        return to_networkx(self)

    def to_igraph(self):
        """A python-igraph Graph with the same vertices and edges (dense ids)."""
        from .io.interop import to_igraph

        return to_igraph(self)

    def to_scipy(self):
        """The adjacency as a scipy.sparse.csr_array of int8 ones (both directions if undirected)."""
        import scipy.sparse as sp

        n = self.num_vertices
        data = np.ones(self.indices.size, dtype=np.int8)
        return sp.csr_array((data, self.indices, self.indptr), shape=(n, n))

    # ---------------------------------------------------------------- properties
    @property
    def num_vertices(self) -> int:
        return self.indptr.size - 1

    @property
    def num_edges(self) -> int:
        """Unique edges without self-loops (undirected: each {u, v} once)."""
        m = int(self.indptr[-1])
        return m if self.directed else m // 2

    @property
    def num_arcs(self) -> int:
        """Stored out-edge entries (an undirected edge counts twice)."""
        return int(self.indptr[-1])

    def out_degree(self) -> np.ndarray:
        return np.diff(self.indptr)

    def in_degree(self) -> np.ndarray:
        return np.diff(self.in_indptr)

    def degree(self) -> np.ndarray:
        """Out-degree (the degree, for an undirected graph)."""
        return self.out_degree()

    def neighbors(self, v: int) -> np.ndarray:
        """Out-neighbours of v as int64."""
        v = self._vertex(v)
        return self.indices[self.indptr[v]:self.indptr[v + 1]].astype(np.int64)

    def in_neighbors(self, v: int) -> np.ndarray:
        v = self._vertex(v)
        return self.in_indices[self.in_indptr[v]:self.in_indptr[v + 1]].astype(np.int64)

    @property
    def nbytes(self) -> int:
        total = self.indptr.nbytes + self.indices.nbytes
        if self.directed:
            total += self.in_indptr.nbytes + self.in_indices.nbytes
        return total

    def _vertex(self, v) -> int:
        try:
            iv = int(v)
        except (TypeError, ValueError):
            raise InputError(f"vertex must be an integer, got {v!r}") from None
        if iv != v or not 0 <= iv < self.num_vertices:
            raise InputError(f"vertex {v} does not exist (graph has {self.num_vertices} vertices)")
        return iv

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"Graph({kind}, {self.num_vertices} vertices, {self.num_edges} edges)"
