"""Parallel CSR construction from an edge list (Graph500 kernel 1).

Algorithm: chunked counting sorts, no comparison sort. The edge list is cut
into one chunk per thread; each chunk counts the slots it contributes to every
vertex (self-loops skipped, both directions when symmetrising), the counts give
every (chunk, vertex) pair a disjoint write window, and each chunk scatters its
edges into its windows without any synchronisation: an unsorted CSR. Its
*transpose*, made by the same count-and-scatter over the CSR's rows in
increasing order (``transpose_csr``; chunks hold consecutive rows and their
windows are laid out in chunk order), has every neighbour list sorted for free.
An undirected graph's CSR is its own transpose, so one transpose sorts it; a
directed graph's out-CSR is the transpose of its unsorted in-CSR, and its sorted
in-CSR the transpose of the deduplicated out-CSR. Duplicates are then adjacent
and removed in one pass, the lists compacted if anything was removed. Two
linear scatter passes replace a sort of every list (numba's quicksort costs
~30 ns per slot; a scatter pass a few). The result depends only on the edge
set, never on the thread count.

``sorted_csr`` (the distributed builder's: its rows are local, its columns
global, so it cannot transpose) sorts each list instead, then shares the
deduplication and compaction.

Invariants of the output: ``indptr`` is int64 and non-decreasing with
``indptr[0] == 0``; every neighbour list is strictly increasing (sorted, no
duplicates) and holds no self-loop.
"""
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from ..errors import InputError
from .memory import check_fits, csr_build_bytes
from .parallel import parallel_chunksize


@dataclass(frozen=True)
class BuildInfo:
    """What construction removed from the input tuples."""

    tuples: int
    self_loops: int
    duplicates: int


@njit(parallel=True, cache=True)
def _chunk_pass(src, dst, symmetric, rows, adj, scatter):
    """One pass of every chunk over its share of the edges; returns the self-loop count.

    Counting (``scatter`` False): rows[c, v] += adjacency slots chunk c contributes to v.
    Scattering: rows[c, v] is chunk c's next write position in v's window; the arc is written
    to ``adj`` there. Both passes see the same edges in the same chunks.
    """
    nchunks = rows.shape[0]
    m = src.size
    loops = 0
    for c in prange(nchunks):
        lo = m * c // nchunks
        hi = m * (c + 1) // nchunks
        row = rows[c]
        for e in range(lo, hi):
            s = src[e]
            d = dst[e]
            if s == d:
                loops += 1
                continue
            if scatter:
                adj[row[s]] = d
            row[s] += 1
            if symmetric:
                if scatter:
                    adj[row[d]] = s
                row[d] += 1
    return loops


@njit(parallel=True, cache=True)
def _windows(counts, indptr):
    """Turn per-chunk counts into per-chunk start positions (in place); fill indptr[1:]."""
    nchunks, n = counts.shape
    for v in prange(n):
        total = 0
        for c in range(nchunks):
            total += counts[c, v]
        indptr[v + 1] = total
    # prefix sum (sequential; n additions)
    for v in range(n):
        indptr[v + 1] += indptr[v]
    for v in prange(n):
        p = indptr[v]
        for c in range(nchunks):
            k = counts[c, v]
            counts[c, v] = p
            p += k


@njit(parallel=True, cache=True)
def _sort_dedupe(indptr, adj, degree, presorted):
    """Sort (unless ``presorted``) and deduplicate every list in place; degree[v] := its unique count."""
    n = indptr.size - 1
    for v in prange(n):
        lo = indptr[v]
        hi = indptr[v + 1]
        if hi - lo > 1:
            if not presorted:
                adj[lo:hi].sort()
            k = lo + 1
            for j in range(lo + 1, hi):
                if adj[j] != adj[k - 1]:
                    adj[k] = adj[j]
                    k += 1
            degree[v] = k - lo
        else:
            degree[v] = hi - lo


@njit(parallel=True, cache=True)
def _transpose_pass(indptr, adj, bounds, rows, out):
    """Chunk c walks rows bounds[c]:bounds[c + 1] in order; counting (``out`` empty): rows[c, u] +=
    arcs v -> u it holds; else it writes v at rows[c, u] (its next position in u's window)."""
    nchunks = rows.shape[0]
    scatter = out.size > 0
    for c in prange(nchunks):
        row = rows[c]
        for v in range(bounds[c], bounds[c + 1]):
            for j in range(indptr[v], indptr[v + 1]):
                u = adj[j]
                if scatter:
                    out[row[u]] = v
                row[u] += 1


def transpose_csr(indptr, adj, index_dtype):
    """The transpose of the square CSR (indptr, adj), with every list sorted (and as many
    duplicates as the input has). Rows are cut into chunks of about equal arc counts."""
    n = indptr.size - 1
    m = adj.size
    nchunks = max(1, min(numba.get_num_threads(), m // max(n, 1) + 1))
    bounds = np.searchsorted(indptr, np.arange(nchunks + 1, dtype=np.int64) * m // nchunks).astype(np.int64)
    bounds[0], bounds[-1] = 0, n
    np.maximum.accumulate(bounds, out=bounds)
    counts = np.zeros((nchunks, n), dtype=np.int64)
    if m:
        _transpose_pass(indptr, adj, bounds, counts, np.empty(0, dtype=index_dtype))
    t_indptr = np.zeros(n + 1, dtype=np.int64)
    _windows(counts, t_indptr)
    out = np.empty(m, dtype=index_dtype)
    if m:
        _transpose_pass(indptr, adj, bounds, counts, out)
    return t_indptr, out


@njit(parallel=True, cache=True)
def _compact(indptr, adj, new_indptr, out):
    n = indptr.size - 1
    for v in prange(n):
        lo = indptr[v]
        dst = new_indptr[v]
        for j in range(new_indptr[v + 1] - dst):
            out[dst + j] = adj[lo + j]


@njit(parallel=True, cache=True)
def csr_violations(indptr, indices, n):
    """One parallel pass over a CSR: (offsets decreasing somewhere, an id outside [0, n))."""
    m = indices.size
    bad_offsets = 0
    for v in prange(indptr.size - 1):
        if indptr[v + 1] < indptr[v]:
            bad_offsets += 1
    bad_ids = 0
    block = 1 << 16
    for b in prange((m + block - 1) // block):
        c = 0
        for j in range(b * block, min(m, (b + 1) * block)):
            x = indices[j]
            if x < 0 or x >= n:
                c += 1
        bad_ids += c
    return bad_offsets > 0, bad_ids > 0


def check_edge_arrays(src, dst, num_vertices):
    """Validate an edge list and return (src, dst, num_vertices) as int64 arrays and an int."""
    src = np.asarray(src)
    dst = np.asarray(dst)
    if src.ndim != 1 or dst.ndim != 1 or src.shape != dst.shape:
        raise InputError(f"edge arrays must be 1-D and of equal length, got shapes {src.shape} and {dst.shape}")
    for name, a in (("src", src), ("dst", dst)):
        if a.size and not np.issubdtype(a.dtype, np.integer):
            raise InputError(f"{name} vertex ids must be integers, got dtype {a.dtype}")
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    lo = min(src.min(), dst.min()) if src.size else 0
    hi = max(src.max(), dst.max()) if src.size else -1
    if lo < 0:
        raise InputError(f"negative vertex id {lo} in edge list")
    if num_vertices is None:
        num_vertices = int(hi) + 1
    num_vertices = int(num_vertices)
    if num_vertices < 0:
        raise InputError(f"num_vertices must be >= 0, got {num_vertices}")
    if hi >= num_vertices:
        raise InputError(f"vertex id {hi} out of range for a graph of {num_vertices} vertices")
    return src, dst, num_vertices


def _unique_csr(raw_indptr, adj, index_dtype, presorted):
    n = raw_indptr.size - 1
    degree = np.empty(n, dtype=np.int64)
    with parallel_chunksize(256):   # hubs make some lists far costlier to sort
        _sort_dedupe(raw_indptr, adj, degree, presorted)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    if indptr[-1] == adj.size:
        return indptr, adj
    indices = np.empty(indptr[-1], dtype=index_dtype)
    _compact(raw_indptr, adj, indptr, indices)
    return indptr, indices


def sorted_csr(raw_indptr, adj, index_dtype):
    """Sort and deduplicate every neighbour list of the CSR (raw_indptr, adj) in place, then compact.

    Returns (indptr int64, indices index_dtype); ``indices`` is ``adj`` itself when nothing was
    removed. The distributed builder's (local rows, global columns: no transpose).
    """
    return _unique_csr(raw_indptr, adj, index_dtype, False)


def _raw_csr(src, dst, n, symmetric, index_dtype):
    """The unsorted CSR of src -> dst (both ways when ``symmetric``), self-loops skipped;
    returns (raw indptr, adj, self-loop count)."""
    nchunks = max(1, min(numba.get_num_threads(), src.size // max(n, 1) + 1))
    counts = np.zeros((nchunks, n), dtype=np.int64)
    loops = _chunk_pass(src, dst, symmetric, counts, np.empty(0, dtype=index_dtype), False)
    raw_indptr = np.zeros(n + 1, dtype=np.int64)
    _windows(counts, raw_indptr)
    adj = np.empty(raw_indptr[-1], dtype=index_dtype)
    _chunk_pass(src, dst, symmetric, counts, adj, True)
    return raw_indptr, adj, loops


def build_csr(src, dst, num_vertices, symmetric, index_dtype):
    """CSR of the edges src->dst (and dst->src when ``symmetric``), deduplicated, no self-loops.

    ``src``/``dst`` must already be checked (see ``check_edge_arrays``).
    Returns (indptr int64, indices index_dtype, BuildInfo).
    """
    n = num_vertices
    nchunks = max(1, min(numba.get_num_threads(), src.size // max(n, 1) + 1))
    check_fits("building the CSR", csr_build_bytes(n, src.size, not symmetric) + 8 * nchunks * n)
    if symmetric:
        raw_indptr, adj, loops = _raw_csr(src, dst, n, True, index_dtype)
    else:   # the unsorted in-CSR, whose transpose is the sorted out-CSR
        raw_indptr, adj, loops = _raw_csr(dst, src, n, False, index_dtype)
    raw_indptr, adj = transpose_csr(raw_indptr, adj, index_dtype)
    indptr, indices = _unique_csr(raw_indptr, adj, index_dtype, True)
    slots = src.size - loops
    dups = slots - (indptr[-1] // 2 if symmetric else indptr[-1])
    return indptr, indices, BuildInfo(int(src.size), int(loops), int(dups))


def build_directed_csr(src, dst, num_vertices, index_dtype):
    """Out- and in-CSR of the directed edges src->dst, deduplicated, no self-loops, lists sorted.

    Returns (indptr, indices, in_indptr, in_indices, BuildInfo); the in-CSR is the transpose of
    the out-CSR (no second build from the edges).
    """
    indptr, indices, info = build_csr(src, dst, num_vertices, False, index_dtype)
    in_indptr, in_indices = transpose_csr(indptr, indices, index_dtype)
    return indptr, indices, in_indptr, in_indices, info
