"""The rows a rank owns and their construction (Graph500 kernel 1 across ranks): routing by owner, local CSR.

The partitioning is the ButterFly paper's (O. Green, "ButterFly BFS", Sec. 4 "Graph Partitioning").
Invariants: every rank's rows are exactly its owned vertices' adjacency in the single-node graph
(sorted, deduplicated, self-loop free), and ``tuple_degree[v]`` counts the non-self-loop input
tuples at owned vertex v (duplicates included).

Each rank starts from its own share of the edge tuples -- generated with the
counter-based Kronecker generator (tuple slice [m*r/P, m*(r+1)/P), so the global
graph is the single-node generator's for the same seed) or read from its slice
of a Graph500 binary file -- and no rank ever holds the whole edge list:

1. partition: every rank histograms its tuples' endpoints per 64-vertex block, an
   Allreduce sums the histograms, and every rank cuts the same edge-balanced,
   64-aligned ranges (``owned.partition.balanced_bounds``);
2. routing: each non-self-loop tuple (u, v) becomes the arc u->v for owner(u)
   and, undirected, v->u for owner(v) (directed: the in-arc v<-u for owner(v),
   routed separately); arcs are packed by destination with a parallel counting
   sort and moved with one ``Alltoallv`` (Comm.alltoallv);
3. local CSR: rows are the owned vertices (local ids), columns global ids; built
   with the core builder's window/sort/dedupe kernels (``breadth.graph.build``),
   so neighbour lists are sorted, deduplicated, self-loop free -- row for row the
   single-node graph's.

Routing (``pack_arcs``) and the local CSR (``local_csr``) ask the partition's kernel
map who owns a vertex and where it lives (``owned.partition.owner_of`` / ``local_of``), so
any layout whose ranks hold whole adjacency rows of their own vertices reuses them;
step 1 and ``slice_native`` cut ``Ranges`` (``build_ranges``; a family passes its own subclass,
e.g. ``one_d.partition.OneD``).

A native ``.npz`` file needs no routing: each rank maps the file and copies only
its rows. Each rank also keeps, per owned vertex, its count of non-self-loop input
tuples (duplicates included): the Graph500 TEPS edge count (``tuple_degree``).
"""
from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...errors import InputError
from ...graph.build import _windows, sorted_csr
from ...graph.memory import index_itemsize
from ...graph.types import Graph
from ...jit import njit
from .partition import Partition, Ranges, block_weights, local_of, owner_of


def vertex_dtype(num_vertices):
    """Dtype of vertex ids in adjacency arrays and messages: int32 while every id fits."""
    return np.int32 if index_itemsize(num_vertices) == 4 else np.int64


class LocalGraph:
    """This rank's part of a distributed graph.

    ``indptr``/``indices``: out-adjacency of the vertices this rank holds (row = local
    id, column = global id); ``in_indptr``/``in_indices``: in-adjacency (aliases for
    undirected graphs). ``tuple_degree``: input tuples per local vertex (TEPS count).
    """

    def __init__(self, partition: Partition, indptr, indices, in_indptr=None, in_indices=None, *, directed=False,
                 tuple_degree=None):
        self.partition = partition
        self.num_vertices = partition.num_vertices
        self.directed = bool(directed)
        self.indptr = indptr
        self.indices = indices
        self.in_indptr = indptr if in_indptr is None else in_indptr
        self.in_indices = indices if in_indices is None else in_indices
        self.tuple_degree = self.any_degree() if tuple_degree is None else tuple_degree
        self.vid_dtype = vertex_dtype(self.num_vertices)

    @property
    def num_local(self) -> int:
        return self.partition.num_local

    # the local rows are a CSR like a Graph's: the same stored-arc count and degrees
    local_arcs = Graph.num_arcs
    out_degree = Graph.out_degree

    def any_degree(self) -> np.ndarray:
        """Out-degree, plus in-degree for a directed graph (isolated iff 0)."""
        d = self.out_degree()
        return d + Graph.in_degree(self) if self.directed else d

    def key_degree(self) -> np.ndarray:
        """Out-degree: a search key needs an edge to leave by (directed or not)."""
        return self.out_degree()

    @property
    def nbytes(self) -> int:
        total = self.indptr.nbytes + self.indices.nbytes
        if self.directed:
            total += self.in_indptr.nbytes + self.in_indices.nbytes
        return total + self.tuple_degree.nbytes


# ---------------------------------------------------------------------- routing kernels
@njit(inline="always", cache=True)
def chunk(m, c, nchunks):
    """Items [start, stop) of chunk c when m items are cut into nchunks (the counting-sort chunks)."""
    return m * c // nchunks, m * (c + 1) // nchunks


@njit(inline="always", cache=True)
def place(row, out, r, a, b, write):
    """Count one arc a->b for rank r (``write``: also store it at the rank's next pair slot)."""
    p = row[r]
    if write:
        out[2 * p] = a
        out[2 * p + 1] = b
    row[r] = p + 1


@njit(inline="always", cache=True)
def route_arcs(keys, others, ranks, ctx, both, rows, out, write):
    """Per chunk c (in parallel), arcs key->other (``both``: also other->key), self-loops skipped, by
    the ranks ``ranks(ctx, key, other, both)`` names for the two directions. Inlined into each
    layout's routing kernel (``ranks`` a module function, so the kernel caches).

    First pass (``write`` False): rows[c, r] counts chunk c's arcs for rank r. Second pass:
    rows[c, r] starts as the chunk's first pair slot for r and each arc is stored there.
    """
    nchunks = rows.shape[0]
    for c in prange(nchunks):
        row = rows[c]
        start, stop = chunk(keys.size, c, nchunks)
        for e in range(start, stop):
            s = keys[e]
            d = others[e]
            if s != d:
                r, back = ranks(ctx, s, d, both)
                place(row, out, r, s, d, write)
                if both:
                    place(row, out, back, d, s, write)


def counting_pack(route, ctx, keys, others, both, nprocs, dtype):
    """Arcs grouped by the rank the kernel ``route`` (a ``route_arcs`` over ``ctx``) gives each, by a
    two-pass counting sort over chunks: (interleaved pairs, pair counts per rank)."""
    nchunks = max(1, min(numba.get_num_threads(), keys.size // 4096 + 1))
    rows = np.zeros((nchunks, nprocs), dtype=np.int64)
    route(keys, others, ctx, both, rows, np.empty(0, dtype=dtype), False)
    per_rank = rows.sum(axis=0)
    start = np.zeros(nprocs, dtype=np.int64)
    np.cumsum(per_rank[:-1], out=start[1:])
    rows = np.ascontiguousarray(start[None, :] + np.cumsum(rows, axis=0) - rows)
    out = np.empty(2 * int(per_rank.sum()), dtype=dtype)
    route(keys, others, ctx, both, rows, out, True)
    return out, per_rank


@njit(inline="always", cache=True)
def _owners(pmap, s, d, both):
    """Arc s->d goes to owner(s), its reverse to owner(d)."""
    r = owner_of(pmap, s)
    return r, (owner_of(pmap, d) if both else r)


@njit(parallel=True, cache=True)
def _route(keys, others, pmap, both, rows, out, write):
    route_arcs(keys, others, _owners, pmap, both, rows, out, write)


def pack_arcs(keys, others, partition: Partition, both, dtype):
    """Arcs key->other (and other->key if ``both``), grouped by owner(key): (pairs, pair counts per rank)."""
    return counting_pack(_route, partition.kernel_map(), keys, others, both, partition.nprocs, dtype)


# ---------------------------------------------------------------------- local CSR kernels
@njit(parallel=True, cache=True)
def _rows(pairs, pmap, rows, adj, write, key):
    """Received (src, dst) pairs by local row of their source (``key`` 0) or of their target (``key``
    1): count them (rows[c, local row]), or (``write``) store the other end at the chunk's next slot
    of that row."""
    nchunks = rows.shape[0]
    for c in prange(nchunks):
        row = rows[c]
        start, stop = chunk(pairs.size // 2, c, nchunks)
        for e in range(start, stop):
            r = local_of(pmap, pairs[2 * e + key])
            if write:
                adj[row[r]] = pairs[2 * e + 1 - key]
            row[r] += 1


def local_csr(pairs, partition: Partition, index_dtype):
    """CSR of received (global src, global dst) pairs whose sources this rank holds (rows = local ids).

    Returns (indptr, indices, arcs per row before deduplication).
    """
    nl = partition.num_local
    pmap = partition.kernel_map()
    m = pairs.size // 2
    nchunks = max(1, min(numba.get_num_threads(), m // max(nl, 1) + 1))
    counts = np.zeros((nchunks, nl), dtype=np.int64)
    adj = np.empty(0, dtype=index_dtype)
    if m:
        _rows(pairs, pmap, counts, adj, False, 0)
    raw = np.zeros(nl + 1, dtype=np.int64)
    _windows(counts, raw)
    adj = np.empty(raw[-1], dtype=index_dtype)
    if m:
        _rows(pairs, pmap, counts, adj, True, 0)
    del counts
    indptr, indices = sorted_csr(raw, adj, index_dtype)
    return indptr, indices, np.diff(raw)


# ---------------------------------------------------------------------- construction
def agree_ranges(comm, src, dst, num_vertices, cls=Ranges) -> Ranges:
    """Edge-balanced ranges (a ``cls``) agreed by all ranks from their local tuples (one Allreduce)."""
    weights = comm.allreduce(block_weights(src, dst, num_vertices))
    return cls.from_weights(weights, num_vertices, comm.size, comm.rank)


def build_local(comm, partition: Partition, src, dst, directed=False) -> LocalGraph:
    """Route this rank's tuples to the owners of their endpoints and build its share of the graph.

    For any partition whose ranks hold the whole adjacency rows of the vertices they own.
    """
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    vdt = vertex_dtype(partition.num_vertices)
    indptr, indices, tdeg = _routed_csr(comm, partition, src, dst, not directed, vdt)
    if not directed:
        return LocalGraph(partition, indptr, indices, tuple_degree=tdeg)
    in_indptr, in_indices, in_tdeg = _routed_csr(comm, partition, dst, src, False, vdt)   # in-arcs v <- u
    return LocalGraph(partition, indptr, indices, in_indptr, in_indices, directed=True,
                      tuple_degree=tdeg + in_tdeg)


def _routed_csr(comm, partition, keys, others, both, vdt):
    send, per_rank = pack_arcs(keys, others, partition, both, vdt)
    pairs, _ = comm.alltoallv(send, 2 * per_rank)
    del send
    return local_csr(pairs, partition, vdt)


def build_ranges(comm, src, dst, num_vertices, directed=False, partition: Ranges | None = None,
                 cls=Ranges) -> LocalGraph:
    """Edge-balanced ranges' construction from this rank's tuples (the ``cls`` partition agreed first,
    unless given)."""
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    if partition is None:
        partition = agree_ranges(comm, src, dst, num_vertices, cls)
    return build_local(comm, partition, src, dst, directed)


def tuple_share(num_tuples: int, rank: int, nprocs: int) -> tuple[int, int]:
    """The slice [start, stop) of a tuple list that ``rank`` generates or reads."""
    return num_tuples * rank // nprocs, num_tuples * (rank + 1) // nprocs


def slice_native(comm, graph, partition: Ranges | None = None, cls=Ranges) -> LocalGraph:
    """This rank's rows of a (memory-mapped) native graph: no routing, only its own rows are read
    (``partition``: the ranges, else edge-balanced ``cls`` ranges cut from the file's row pointers)."""
    n = graph.num_vertices
    part = _native_ranges(comm, graph, cls) if partition is None else partition
    vdt = vertex_dtype(n)

    def rows(indptr, indices, what):
        a, b = int(indptr[part.lo]), int(indptr[part.hi])
        lp = np.asarray(indptr[part.lo:part.hi + 1], dtype=np.int64) - a
        li = np.array(indices[a:b], dtype=vdt)
        if lp.size and (lp[0] != 0 or np.any(np.diff(lp) < 0)):
            raise InputError(f"{what}: indptr is not non-decreasing")
        if li.size and (li.min() < 0 or li.max() >= n):
            raise InputError(f"{what}: neighbour id out of range [0, {n})")
        return lp, li

    error = None
    try:
        indptr, indices = rows(graph.indptr, graph.indices, "out-edges")
        if graph.directed:
            in_indptr, in_indices = rows(graph.in_indptr, graph.in_indices, "in-edges")
    except InputError as exc:
        error = exc
    comm.agree(error)
    if graph.directed:
        return LocalGraph(part, indptr, indices, in_indptr, in_indices, directed=True)
    return LocalGraph(part, indptr, indices)


def _native_ranges(comm, graph, cls) -> Ranges:
    """Edge-balanced ranges of a native graph, weighed from its row pointers (every rank alike)."""
    n = graph.num_vertices
    ip = graph.indptr
    nblocks = (n + 63) // 64
    edges = np.asarray(ip[np.minimum(np.arange(1, nblocks + 1) * 64, n)]) - np.asarray(ip[np.arange(nblocks) * 64]) \
        if nblocks else np.zeros(0, np.int64)
    if graph.directed:
        iip = graph.in_indptr
        edges = edges + (np.asarray(iip[np.minimum(np.arange(1, nblocks + 1) * 64, n)])
                         - np.asarray(iip[np.arange(nblocks) * 64]))
    return cls.from_weights(edges, n, comm.size, comm.rank)
