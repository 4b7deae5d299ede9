"""breadth.Graph: a compressed sparse row (CSR) graph.

Vertex ids are int64 in every public array (edge lists, roots, parents,
depths). Offsets (``indptr``) are always int64, so nothing overflows past 2^31
edges. The neighbour array (``indices``) is stored as int32 while every vertex
id fits in it (fewer than 2^31 vertices) and int64 beyond, the way GAP and the
Graph500 reference pack theirs: it halves the memory traffic of a search.
``index_dtype=np.int64`` forces the wide form.

An undirected graph stores each edge in both directions. A directed graph keeps
its out-edges (``indptr``/``indices``, what top-down search follows) and its
in-edges (``in_indptr``/``in_indices``, what bottom-up search scans); a graph
converted from networkx builds its in-edges on first use (``in_edges=``).

Vertices may carry labels of the user's (``vertex_ids``: original ids of a
relabelled file, networkx nodes of any hashable type); ``index_of``/``label_of``
map between labels and ids (rules in ``breadth.graph.labels``).
"""
from __future__ import annotations

import numpy as np

from ..docstrings import shared_args
from ..errors import InputError
from . import labels as _labels
from .build import BuildInfo, build_csr, build_directed_csr, check_edge_arrays, csr_violations
from .interop import GraphInterop
from .memory import choose_index_dtype

# the vertex argument of the neighbour lookups (``breadth.docstrings.shared_args``)
_VERTEX = {"v": "a vertex id."}
_NOT_A_VERTEX = {"Raises": "InputError: ``v`` is not a vertex."}


def _row(indptr, indices, v: int) -> np.ndarray:
    """Row ``v`` of a CSR as int64."""
    return indices[indptr[v]:indptr[v + 1]].astype(np.int64)


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


class Graph(GraphInterop):
    """A graph in compressed sparse row (CSR) form, directed or undirected.

    Most programs build one with ``Graph.from_edges``, a generator (``breadth.kronecker``,
    ``breadth.uniform_random``), a reader (``breadth.read``, ``breadth.load``) or a converter
    (``from_scipy``, ``from_networkx``, ``from_igraph``, inherited from ``GraphInterop`` with
    the ``to_*`` exports); the constructor takes CSR arrays directly. An undirected graph stores each edge in both directions.

    Args:
        indptr: int64 offsets, n + 1 of them: the out-neighbours of v are
            ``indices[indptr[v]:indptr[v + 1]]``.
        indices: int32 or int64 neighbour ids, sorted within each vertex's list.
        directed: whether the edges have a direction (then the in-edges are needed too).
        in_indptr: offsets of the in-edge CSR (directed graphs only).
        in_indices: sources of the in-edges, per vertex (directed graphs only).
        build_info: what construction removed (``BuildInfo``), if the graph was built from tuples.
        check: verify dtypes, offsets and the id range (``check()``).
        vertex_ids: each vertex's label (original ids of a relabelled file, networkx nodes),
            or None when the labels are the ids.
        in_edges: a callable returning ``(in_indptr, in_indices)``, called on first use
            (a directed graph whose in-edges are built lazily).

    Raises:
        InputError: the arrays do not form a valid CSR graph (wrong dtype, shape, offsets or
            an id out of range), or a directed graph has no in-edges.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> g
        Graph(undirected, 4 vertices, 3 edges)
        >>> g.neighbors(1)
        array([0, 2])
        >>> g.degree()
        array([1, 2, 2, 1])
        >>> breadth.Graph(np.array([0, 1, 2]), np.array([1, 0]))
        Graph(undirected, 2 vertices, 1 edges)
    """

    __slots__ = ("indptr", "indices", "_in_indptr", "_in_indices", "_in_edges", "directed", "build_info",
                 "_vertex_ids", "_label_index", "__weakref__")     # weak refs: scratch kept with a graph

    def __init__(self, indptr, indices, *, directed=False, in_indptr=None, in_indices=None,
                 build_info: BuildInfo | None = None, check=True, vertex_ids=None, in_edges=None):
        self.indptr = np.asarray(indptr)
        self.indices = np.asarray(indices)
        self.directed = bool(directed)
        self._in_edges = None
        if not self.directed:
            self._in_indptr, self._in_indices = self.indptr, self.indices
        elif in_indptr is not None and in_indices is not None:
            self._in_indptr, self._in_indices = np.asarray(in_indptr), np.asarray(in_indices)
        elif in_edges is not None:
            # a callable returning (in_indptr, in_indices), called on first use
            self._in_indptr = self._in_indices = None
            self._in_edges = in_edges
        else:
            raise InputError("a directed graph needs its in-edge CSR (in_indptr, in_indices)")
        self.build_info = build_info
        self._label_index = None
        self._vertex_ids = _labels.normalise(vertex_ids, self.num_vertices)
        if check:
            self.check()

    # ---------------------------------------------------------------- in-edges, built on first use
    def _build_in_edges(self) -> None:
        in_indptr, in_indices = self._in_edges()
        self._in_indptr, self._in_indices = np.asarray(in_indptr), np.asarray(in_indices)
        self._in_edges = None

    @property
    def in_indptr(self) -> np.ndarray:
        """Offsets of the in-edge CSR (the out-edge arrays on an undirected graph; built on first use)."""
        if self._in_indptr is None:
            self._build_in_edges()
        return self._in_indptr

    @property
    def in_indices(self) -> np.ndarray:
        """Sources of the in-edges, per vertex (the out-edge arrays on an undirected graph)."""
        if self._in_indices is None:
            self._build_in_edges()
        return self._in_indices

    # ---------------------------------------------------------------- labels
    @property
    def vertex_ids(self):
        """Each vertex's label: None (labels are the ids), an int64 array or an object array."""
        return self._vertex_ids

    @vertex_ids.setter
    def vertex_ids(self, ids) -> None:
        self._vertex_ids = _labels.normalise(ids, self.num_vertices)
        self._label_index = None

    @property
    def has_labels(self) -> bool:
        """True when the vertices carry labels (``vertex_ids``) other than their ids."""
        return self._vertex_ids is not None

    def index_of(self, labels):
        """Dense ids of labels: one label gives an int, a list/range/numpy array an int64 array.

        Tuples are single labels. Without labels the labels are the ids (checked to be in range).

        Args:
            labels: one label, or a list, range or numpy array of them.

        Returns:
            The id (int) or the ids (int64 array).

        Raises:
            InputError: an unknown label (the first one is named).

        Examples:
            >>> import networkx as nx
            >>> g = breadth.Graph.from_networkx(nx.path_graph(["a", "b", "c"]))
            >>> g.index_of("b"), g.index_of(["a", "c"])
            (1, array([0, 2]))
        """
        ids = self._vertex_ids
        if ids is None:
            return _labels.identity_index_of(labels, self.num_vertices)
        if self._label_index is None:
            self._label_index = _labels.LabelIndex(ids)
        if _labels.several(labels):
            return self._label_index.many(labels)
        return self._label_index.one(labels)

    def label_of(self, ids):
        """Labels of dense ids (without labels: the ids).

        Args:
            ids: one id, or a list, range or numpy array of them.

        Returns:
            One label for one id (a Python int for integer labels); a numpy array (int64 or
                object) for several.

        Raises:
            InputError: an id out of range.

        Examples:
            >>> import networkx as nx
            >>> g = breadth.Graph.from_networkx(nx.path_graph(["a", "b", "c"]))
            >>> g.label_of(1), g.label_of([0, 2])
            ('b', array(['a', 'c'], dtype=object))
        """
        return _labels.label_of(self._vertex_ids, ids, self.num_vertices)

    def __getstate__(self):
        self.in_indptr   # build lazy in-edges: the builder is not picklable
        return {k: getattr(self, k) for k in self.__slots__ if k != "__weakref__"}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)

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
        if self._vertex_ids is not None:
            _labels.check_values(self._vertex_ids)

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_edges(cls, src, dst, num_vertices=None, directed=False, index_dtype=None) -> "Graph":
        """Build from edge arrays: self-loops and duplicates removed, neighbour lists sorted.

        Undirected graphs are symmetrised: (u, v) and (v, u) are one edge.

        Args:
            src: the edges' sources (integers).
            dst: the edges' targets, as many as ``src``.
            num_vertices: the vertex count (default: max id + 1; more gives isolated vertices).
            directed: keep each (u, v) as the arc u -> v.
            index_dtype: the neighbour ids' dtype (default int32 below 2^31 vertices, else int64).

        Returns:
            The ``Graph``; ``build_info`` counts what was removed.

        Raises:
            InputError: arrays of different lengths, negative ids or ids beyond ``num_vertices``.

        Examples:
            >>> g = breadth.Graph.from_edges([0, 1, 1, 2], [1, 2, 2, 2])
            >>> g, g.build_info.duplicates, g.build_info.self_loops
            (Graph(undirected, 3 vertices, 2 edges), 1, 1)
            >>> breadth.Graph.from_edges([0, 0, 1], [1, 2, 2], directed=True)
            Graph(directed, 3 vertices, 3 edges)
        """
        src, dst, n = check_edge_arrays(src, dst, num_vertices)
        idt = choose_index_dtype(n, index_dtype)
        if directed:
            indptr, indices, in_indptr, in_indices, info = build_directed_csr(src, dst, n, idt)
            return cls(indptr, indices, directed=True, in_indptr=in_indptr, in_indices=in_indices,
                       build_info=info, check=False)
        indptr, indices, info = build_csr(src, dst, n, True, idt)
        return cls(indptr, indices, build_info=info, check=False)

    # ---------------------------------------------------------------- properties
    @property
    def num_vertices(self) -> int:
        """Number of vertices n (ids 0..n-1)."""
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
        """Out-degree of every vertex (see ``degree`` for an example).

        Returns:
            An int64 array of n degrees.
        """
        return np.diff(self.indptr)

    def in_degree(self) -> np.ndarray:
        """In-degree of every vertex (the out-degree on an undirected graph; see ``degree``).

        Returns:
            An int64 array of n degrees.
        """
        return np.diff(self.in_indptr)

    def degree(self) -> np.ndarray:
        """Out-degree (the degree, for an undirected graph).

        Returns:
            An int64 array of n degrees.

        Examples:
            >>> breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]).degree()
            array([1, 2, 2, 1])
            >>> g = breadth.Graph.from_edges([0, 0, 1], [1, 2, 2], directed=True)
            >>> g.degree(), g.out_degree(), g.in_degree()
            (array([2, 1, 0]), array([2, 1, 0]), array([0, 1, 2]))
        """
        return self.out_degree()

    @shared_args(_VERTEX, sections=_NOT_A_VERTEX)
    def neighbors(self, v: int) -> np.ndarray:
        """Out-neighbours of v as int64.

        Returns:
            The out-neighbours, ascending.

        Examples:
            >>> g = breadth.Graph.from_edges([0, 0, 1], [1, 2, 2], directed=True)
            >>> g.neighbors(0), g.in_neighbors(2)
            (array([1, 2]), array([0, 1]))
        """
        return _row(self.indptr, self.indices, self._vertex(v))

    @shared_args(_VERTEX, sections=_NOT_A_VERTEX)
    def in_neighbors(self, v: int) -> np.ndarray:
        """In-neighbours of ``v`` (int64 array; the neighbours on an undirected graph; see ``neighbors``).

        Returns:
            The in-neighbours, ascending.
        """
        return _row(self.in_indptr, self.in_indices, self._vertex(v))

    @property
    def nbytes(self) -> int:
        """Bytes held by the CSR arrays (in-edges included once built)."""
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
