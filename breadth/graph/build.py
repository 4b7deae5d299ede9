"""CSR construction from an edge list (Graph500 kernel 1): checks, entry points, and the
sorted-list path of the distributed builder.

``build_csr``/``build_directed_csr`` build through ``graph/radix.py``: every arc becomes a
64-bit (source, target) key, the keys are radix-partitioned by source into cache-sized
buckets, each bucket is radix-sorted in cache, duplicates (adjacent once sorted) and
self-loops (skipped when the keys are made) are dropped in the same passes. A directed
graph's in-CSR is the same build of the reversed arcs. The result depends only on the edge
set, never on the thread count.

``sorted_csr`` (the distributed builder's: its rows are local, its columns global) sorts
each neighbour list of an unsorted CSR instead, then deduplicates and compacts.

Invariants of the output: ``indptr`` is int64 and non-decreasing with
``indptr[0] == 0``; every neighbour list is strictly increasing (sorted, no
duplicates) and holds no self-loop.
"""
from dataclasses import dataclass

import numpy as np
from numba import prange

from ..errors import InputError
from ..jit import njit
from .memory import check_fits, csr_build_bytes
from .parallel import parallel_chunksize
from .radix import radix_csr


@dataclass(frozen=True)
class BuildInfo:
    """What construction removed from the input tuples (``graph.build_info``).

    Attributes:
        tuples: the input tuples.
        self_loops: tuples (v, v) dropped.
        duplicates: repeated edges dropped (an undirected edge given both ways counts once).

    Examples:
        >>> breadth.Graph.from_edges([0, 1, 2, 0], [1, 2, 2, 1]).build_info
        BuildInfo(tuples=4, self_loops=1, duplicates=1)
    """

    tuples: int
    self_loops: int
    duplicates: int


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
    """Sort and deduplicate every list in place; degree[v] := its unique count."""
    n = indptr.size - 1
    for v in prange(n):
        lo = indptr[v]
        hi = indptr[v + 1]
        if hi - lo > 1:
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
def _compact(indptr, adj, new_indptr, out):
    n = indptr.size - 1
    for v in prange(n):
        lo = indptr[v]
        dst = new_indptr[v]
        for j in range(new_indptr[v + 1] - dst):
            out[dst + j] = adj[lo + j]


@njit(parallel=True, cache=True)
def csr_violations(indptr, indices, n):
    """One parallel pass over a CSR: (offsets decreasing somewhere, an id outside [0, n)).

    Counts go to one slot per block, not to a prange scalar reduction: numba on Python >= 3.12
    fails to compile such a reduction around a loop with branches (numba issue 10132).
    """
    m = indices.size
    block = 1 << 16
    nrows = indptr.size - 1
    row_blocks = (nrows + block - 1) // block
    id_blocks = (m + block - 1) // block
    bad = np.empty(row_blocks + id_blocks, dtype=np.int64)    # np.zeros and .sum() would be parallel loops too
    for b in prange(row_blocks + id_blocks):
        c = 0
        if b < row_blocks:
            for v in range(b * block, min(nrows, (b + 1) * block)):
                if indptr[v + 1] < indptr[v]:
                    c += 1
        else:
            k = b - row_blocks
            for j in range(k * block, min(m, (k + 1) * block)):
                x = indices[j]
                if x < 0 or x >= n:
                    c += 1
        bad[b] = c
    bad_offsets = False
    bad_ids = False
    for b in range(row_blocks + id_blocks):
        if b < row_blocks:
            bad_offsets |= bad[b] > 0
        else:
            bad_ids |= bad[b] > 0
    return bad_offsets, bad_ids


@njit(parallel=True, cache=True)
def _id_range(src, dst):
    """(smallest, largest) id in two equal-length non-empty arrays, in one parallel pass."""
    m = src.size
    block = 1 << 16
    nblocks = (m + block - 1) // block
    los = np.empty(nblocks, dtype=np.int64)
    his = np.empty(nblocks, dtype=np.int64)
    for b in prange(nblocks):
        lo = src[b * block]
        hi = lo
        for j in range(b * block, min(m, (b + 1) * block)):
            s = src[j]
            d = dst[j]
            lo = min(lo, s, d)
            hi = max(hi, s, d)
        los[b] = lo
        his[b] = hi
    return los.min(), his.max()


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
    lo, hi = _id_range(src, dst) if src.size else (0, -1)
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
    removed. The distributed builder's (local rows, global columns).
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
    check_fits("building the CSR", csr_build_bytes(num_vertices, src.size, not symmetric))
    indptr, indices, loops = radix_csr(src, dst, num_vertices, symmetric, index_dtype)
    slots = src.size - loops
    dups = slots - (indptr[-1] // 2 if symmetric else indptr[-1])
    return indptr, indices, BuildInfo(int(src.size), int(loops), int(dups))


def build_directed_csr(src, dst, num_vertices, index_dtype):
    """Out- and in-CSR of the directed edges src->dst, deduplicated, no self-loops, lists sorted.

    Returns (indptr, indices, in_indptr, in_indices, BuildInfo); the in-CSR is the same radix
    build of the reversed arcs.
    """
    indptr, indices, info = build_csr(src, dst, num_vertices, False, index_dtype)
    in_indptr, in_indices, _ = radix_csr(dst, src, num_vertices, False, index_dtype)
    return indptr, indices, in_indptr, in_indices, info
