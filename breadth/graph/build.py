"""Parallel CSR construction from an edge list (Graph500 kernel 1).

Algorithm: a chunked counting sort. The edge list is cut into one chunk per
thread; each chunk counts the out-degree it contributes to every vertex
(self-loops skipped, both directions when symmetrising), the counts give every
(chunk, vertex) pair a disjoint write window, and each chunk scatters its edges
into its windows without any synchronisation. Every neighbour list is then
sorted and deduplicated in place, and the lists are compacted if anything was
removed. The result depends only on the edge set, never on the thread count.

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
def _sort_dedupe(indptr, adj, degree):
    n = indptr.size - 1
    for v in prange(n):
        lo = indptr[v]
        hi = indptr[v + 1]
        if hi - lo > 1:
            seg = adj[lo:hi]
            seg.sort()
            k = 1
            for j in range(1, hi - lo):
                if seg[j] != seg[k - 1]:
                    seg[k] = seg[j]
                    k += 1
            degree[v] = k
        else:
            degree[v] = hi - lo


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


def sorted_csr(raw_indptr, adj, index_dtype):
    """Sort and deduplicate every neighbour list of the CSR (raw_indptr, adj) in place, then compact.

    Returns (indptr int64, indices index_dtype); ``indices`` is ``adj`` itself when nothing was
    removed. Shared by the single-node and the distributed builders.
    """
    n = raw_indptr.size - 1
    degree = np.empty(n, dtype=np.int64)
    with parallel_chunksize(256):   # hubs make some lists far costlier to sort
        _sort_dedupe(raw_indptr, adj, degree)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    if indptr[-1] == adj.size:
        return indptr, adj
    indices = np.empty(indptr[-1], dtype=index_dtype)
    _compact(raw_indptr, adj, indptr, indices)
    return indptr, indices


def build_csr(src, dst, num_vertices, symmetric, index_dtype):
    """CSR of the edges src->dst (and dst->src when ``symmetric``), deduplicated, no self-loops.

    ``src``/``dst`` must already be checked (see ``check_edge_arrays``).
    Returns (indptr int64, indices index_dtype, BuildInfo).
    """
    n = num_vertices
    nchunks = max(1, min(numba.get_num_threads(), src.size // max(n, 1) + 1))
    check_fits("building the CSR", csr_build_bytes(n, src.size, not symmetric) + 8 * nchunks * n)
    counts = np.zeros((nchunks, n), dtype=np.int64)
    loops = _chunk_pass(src, dst, symmetric, counts, np.empty(0, dtype=index_dtype), False)
    raw_indptr = np.zeros(n + 1, dtype=np.int64)
    _windows(counts, raw_indptr)
    adj = np.empty(raw_indptr[-1], dtype=index_dtype)
    _chunk_pass(src, dst, symmetric, counts, adj, True)
    del counts
    indptr, indices = sorted_csr(raw_indptr, adj, index_dtype)
    slots = src.size - loops
    dups = slots - (indptr[-1] // 2 if symmetric else indptr[-1])
    return indptr, indices, BuildInfo(int(src.size), int(loops), int(dups))
