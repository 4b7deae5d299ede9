"""Distributed graph construction (Graph500 kernel 1 across ranks) for 1D partitions.

Each rank starts from its own share of the edge tuples -- generated with the
counter-based Kronecker generator (tuple slice [m*r/P, m*(r+1)/P), so the global
graph is the single-node generator's for the same seed) or read from its slice
of a Graph500 binary file -- and no rank ever holds the whole edge list:

1. partition: every rank histograms its tuples' endpoints per 64-vertex block, an
   Allreduce sums the histograms, and every rank cuts the same edge-balanced,
   64-aligned ranges (``partition.balanced_bounds``);
2. routing: each non-self-loop tuple (u, v) becomes the arc u->v for owner(u)
   and, undirected, v->u for owner(v) (directed: the in-arc v<-u for owner(v),
   routed separately); arcs are packed by destination with a parallel counting
   sort and moved with one ``Alltoallv`` (Comm.alltoallv);
3. local CSR: rows are the owned vertices (local ids), columns global ids; built
   with the core builder's window/sort/dedupe kernels (``breadth.graph.build``),
   so neighbour lists are sorted, deduplicated, self-loop free -- row for row the
   single-node graph's.

A native ``.npz`` file needs no routing: each rank maps the file and copies only
its rows. Each rank also keeps, per owned vertex, its count of non-self-loop input
tuples (duplicates included): the Graph500 TEPS edge count (``tuple_degree``).
"""
from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ..errors import InputError
from ..graph.build import _compact, _sort_dedupe, _windows
from ..graph.memory import index_itemsize
from ..kernels.frontier import parallel_chunksize
from .partition import OneD, block_weights


def vertex_dtype(num_vertices):
    """Dtype of vertex ids in adjacency arrays and messages: int32 while every id fits."""
    return np.int32 if index_itemsize(num_vertices) == 4 else np.int64


class LocalGraph:
    """This rank's part of a 1D-distributed graph.

    ``indptr``/``indices``: out-adjacency of the owned vertices (row = local id,
    column = global id); ``in_indptr``/``in_indices``: in-adjacency (aliases for
    undirected graphs). ``tuple_degree``: input tuples per owned vertex (TEPS count).
    """

    def __init__(self, partition: OneD, indptr, indices, in_indptr=None, in_indices=None, *, directed=False,
                 tuple_degree=None):
        self.partition = partition
        self.num_vertices = partition.num_vertices
        self.directed = bool(directed)
        self.indptr = indptr
        self.indices = indices
        self.in_indptr = indptr if in_indptr is None else in_indptr
        self.in_indices = indices if in_indices is None else in_indices
        deg = np.diff(indptr)
        if self.directed:
            deg = deg + np.diff(self.in_indptr)
        self.tuple_degree = deg if tuple_degree is None else tuple_degree
        self.vid_dtype = vertex_dtype(self.num_vertices)

    @property
    def lo(self) -> int:
        return self.partition.lo

    @property
    def num_local(self) -> int:
        return self.partition.num_local

    @property
    def local_arcs(self) -> int:
        return int(self.indptr[-1])

    def out_degree(self) -> np.ndarray:
        return np.diff(self.indptr)

    def any_degree(self) -> np.ndarray:
        """Out-degree, plus in-degree for a directed graph (isolated iff 0)."""
        d = np.diff(self.indptr)
        return d + np.diff(self.in_indptr) if self.directed else d

    @property
    def nbytes(self) -> int:
        total = self.indptr.nbytes + self.indices.nbytes
        if self.directed:
            total += self.in_indptr.nbytes + self.in_indices.nbytes
        return total + self.tuple_degree.nbytes


# ---------------------------------------------------------------------- routing kernels
@njit(parallel=True, cache=True)
def _route_count(keys, others, bounds, both, counts):
    """counts[c, r] = arcs chunk c sends to rank r (self-loops skipped; ``both``: also others->keys)."""
    nchunks = counts.shape[0]
    m = keys.size
    for c in prange(nchunks):
        row = counts[c]
        for e in range(m * c // nchunks, m * (c + 1) // nchunks):
            s = keys[e]
            d = others[e]
            if s == d:
                continue
            row[np.searchsorted(bounds, s, side="right") - 1] += 1
            if both:
                row[np.searchsorted(bounds, d, side="right") - 1] += 1


@njit(parallel=True, cache=True)
def _route_pack(keys, others, bounds, both, pos, out):
    """Write (key, other) pairs at pos[c, owner(key)] (pair slots); ``both``: also (other, key)."""
    nchunks = pos.shape[0]
    m = keys.size
    for c in prange(nchunks):
        row = pos[c]
        for e in range(m * c // nchunks, m * (c + 1) // nchunks):
            s = keys[e]
            d = others[e]
            if s == d:
                continue
            r = np.searchsorted(bounds, s, side="right") - 1
            p = row[r]
            out[2 * p] = s
            out[2 * p + 1] = d
            row[r] = p + 1
            if both:
                r = np.searchsorted(bounds, d, side="right") - 1
                p = row[r]
                out[2 * p] = d
                out[2 * p + 1] = s
                row[r] = p + 1


def pack_arcs(keys, others, bounds, both, dtype):
    """Arcs key->other (and other->key if ``both``), grouped by owner(key): (pairs, pair counts per rank)."""
    P = bounds.size - 1
    nchunks = max(1, min(numba.get_num_threads(), keys.size // 4096 + 1))
    counts = np.zeros((nchunks, P), dtype=np.int64)
    _route_count(keys, others, bounds, both, counts)
    per_rank = counts.sum(axis=0)
    start = np.zeros(P, dtype=np.int64)
    np.cumsum(per_rank[:-1], out=start[1:])
    pos = start[None, :] + np.cumsum(counts, axis=0) - counts
    out = np.empty(2 * int(per_rank.sum()), dtype=dtype)
    _route_pack(keys, others, bounds, both, np.ascontiguousarray(pos), out)
    return out, per_rank


# ---------------------------------------------------------------------- local CSR kernels
@njit(parallel=True, cache=True)
def _row_count(pairs, lo, counts):
    nchunks = counts.shape[0]
    m = pairs.size // 2
    for c in prange(nchunks):
        row = counts[c]
        for e in range(m * c // nchunks, m * (c + 1) // nchunks):
            row[pairs[2 * e] - lo] += 1


@njit(parallel=True, cache=True)
def _row_scatter(pairs, lo, pos, adj):
    nchunks = pos.shape[0]
    m = pairs.size // 2
    for c in prange(nchunks):
        row = pos[c]
        for e in range(m * c // nchunks, m * (c + 1) // nchunks):
            r = pairs[2 * e] - lo
            adj[row[r]] = pairs[2 * e + 1]
            row[r] += 1


def local_csr(pairs, lo, num_local, index_dtype):
    """CSR of received (global src, global dst) pairs for rows lo..lo+num_local-1.

    Returns (indptr, indices, arcs per row before deduplication).
    """
    nl = int(num_local)
    m = pairs.size // 2
    nchunks = max(1, min(numba.get_num_threads(), m // max(nl, 1) + 1))
    counts = np.zeros((nchunks, nl), dtype=np.int64)
    if m:
        _row_count(pairs, lo, counts)
    raw = np.zeros(nl + 1, dtype=np.int64)
    _windows(counts, raw)
    adj = np.empty(raw[-1], dtype=index_dtype)
    if m:
        _row_scatter(pairs, lo, counts, adj)
    del counts
    degree = np.empty(nl, dtype=np.int64)
    with parallel_chunksize(256):
        _sort_dedupe(raw, adj, degree)
    indptr = np.zeros(nl + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    if indptr[-1] == adj.size:
        indices = adj
    else:
        indices = np.empty(indptr[-1], dtype=index_dtype)
        _compact(raw, adj, indptr, indices)
    return indptr, indices, np.diff(raw)


# ---------------------------------------------------------------------- construction
def partition_1d(comm, src, dst, num_vertices) -> OneD:
    """Edge-balanced 1D partition agreed by all ranks from their local tuples (one Allreduce)."""
    weights = comm.allreduce(block_weights(src, dst, num_vertices))
    return OneD.from_weights(weights, num_vertices, comm.size, comm.rank)


def build_1d(comm, src, dst, num_vertices, directed=False, partition: OneD | None = None) -> LocalGraph:
    """Route this rank's tuples to their owners and build its share of the graph."""
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    if partition is None:
        partition = partition_1d(comm, src, dst, num_vertices)
    vdt = vertex_dtype(num_vertices)
    bounds = partition.bounds
    lo, nl = partition.lo, partition.num_local

    send, per_rank = pack_arcs(src, dst, bounds, not directed, vdt)
    pairs, _ = comm.alltoallv(send, 2 * per_rank)
    del send
    indptr, indices, tdeg = local_csr(pairs, lo, nl, vdt)
    del pairs
    if not directed:
        return LocalGraph(partition, indptr, indices, tuple_degree=tdeg)
    send, per_rank = pack_arcs(dst, src, bounds, False, vdt)      # in-arcs v <- u, keyed by v
    pairs, _ = comm.alltoallv(send, 2 * per_rank)
    del send
    in_indptr, in_indices, in_tdeg = local_csr(pairs, lo, nl, vdt)
    return LocalGraph(partition, indptr, indices, in_indptr, in_indices, directed=True,
                      tuple_degree=tdeg + in_tdeg)


def tuple_share(num_tuples: int, rank: int, nprocs: int) -> tuple[int, int]:
    """The slice [start, stop) of a tuple list that ``rank`` generates or reads."""
    return num_tuples * rank // nprocs, num_tuples * (rank + 1) // nprocs


def slice_native(comm, graph) -> LocalGraph:
    """This rank's rows of a (memory-mapped) native graph: no routing, only its own rows are read."""
    n = graph.num_vertices
    ip = graph.indptr
    nblocks = (n + 63) // 64
    edges = np.asarray(ip[np.minimum(np.arange(1, nblocks + 1) * 64, n)]) - np.asarray(ip[np.arange(nblocks) * 64]) \
        if nblocks else np.zeros(0, np.int64)
    if graph.directed:
        iip = graph.in_indptr
        edges = edges + (np.asarray(iip[np.minimum(np.arange(1, nblocks + 1) * 64, n)])
                         - np.asarray(iip[np.arange(nblocks) * 64]))
    part = OneD.from_weights(edges, n, comm.size, comm.rank)
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
