"""Top-down BFS step (frontier queue), after GAP's ``TDStep`` (Beamer et al., SC'12).

Every frontier vertex u scans its out-edges; an unvisited neighbour v is
claimed with a compare-and-swap of ``parent[v]`` from -1 to u, so exactly one
thread wins each vertex and the next frontier holds every vertex once. Winners
are appended to a block-local buffer that is flushed into the shared next
queue with one atomic add per flush.

Load balance: the frontier's out-edges, concatenated in queue order, are cut
into blocks of equal edge count (a prefix sum of the frontier's degrees and a
binary search per block), so a hub's edges are shared among threads instead of
serialising a level.

Invariants: on entry ``parent[v] == -1`` iff v is unvisited and the queue
holds each vertex of the current level once; on exit every neighbour of the
frontier is visited, and the newly visited ones (depth ``level + 1``) are in
``next_queue[:tail[0]]`` exactly once.

Returns the scout count: the out-degree sum of the next frontier, which the
direction-optimizing policy compares against the unexplored edges.
"""
import numpy as np
from numba import njit, prange

from .atomics import atomic_add, atomic_cas

TD_EDGE_BLOCK = 4096   # frontier out-edges per parallel block
TD_BUFFER = 1024       # block-local queue buffer


@njit(inline="always", cache=True)
def flush_buffer(buf, count, next_queue, tail):
    """Append buf[:count] to the shared queue: one atomic add on ``tail[0]`` reserves the slots."""
    start = atomic_add(tail, 0, count)
    for k in range(count):
        next_queue[start + k] = buf[k]


@njit(cache=True)
def frontier_edge_offsets(indptr, queue, qsize, offsets):
    """offsets[i] = out-degree sum of queue[:i]; returns the total (the frontier's edges)."""
    total = 0
    for i in range(qsize):
        offsets[i] = total
        u = queue[i]
        total += indptr[u + 1] - indptr[u]
    offsets[qsize] = total
    return total


@njit(inline="always", cache=True)
def block_first_vertex(offsets, qsize, lo):
    """Queue position of the frontier vertex whose out-edges contain edge position ``lo``."""
    return np.searchsorted(offsets[:qsize + 1], lo, side="right") - 1


@njit(inline="always", cache=True)
def edge_window(indptr, u, offsets, i, lo, hi):
    """The slice [first, last) of u's (= queue[i]) out-edges that falls in block [lo, hi)."""
    first = indptr[u] + max(0, lo - offsets[i])
    last = indptr[u] + min(offsets[i + 1], hi) - offsets[i]
    return first, last


@njit(inline="always", cache=True)
def _td_block(b, indptr, indices, parent, depth, queue, qsize, offsets, next_queue, tail, level):
    """Expand frontier edges [b * TD_EDGE_BLOCK, (b + 1) * TD_EDGE_BLOCK); returns their scout count."""
    buf = np.empty(TD_BUFFER, dtype=np.int64)
    nbuf = 0
    block_scout = 0
    total = offsets[qsize]
    lo = b * TD_EDGE_BLOCK
    hi = min(total, lo + TD_EDGE_BLOCK)
    i = block_first_vertex(offsets, qsize, lo)
    while i < qsize and offsets[i] < hi:
        u = queue[i]
        first, last = edge_window(indptr, u, offsets, i, lo, hi)
        for j in range(first, last):
            v = indices[j]
            if parent[v] < 0 and atomic_cas(parent, v, -1, u):
                depth[v] = level + 1
                block_scout += indptr[v + 1] - indptr[v]
                buf[nbuf] = v
                nbuf += 1
                if nbuf == TD_BUFFER:
                    flush_buffer(buf, nbuf, next_queue, tail)
                    nbuf = 0
        i += 1
    flush_buffer(buf, nbuf, next_queue, tail)
    return block_scout


@njit(parallel=True, cache=True)
def td_step(indptr, indices, parent, depth, queue, qsize, offsets, next_queue, tail, level):
    """One top-down level.

    ``offsets`` holds ``frontier_edge_offsets`` of the queue; ``tail`` is a
    1-element int64 array the caller sets to 0. A level with a single block of
    edges runs in the calling thread: waking the pool would cost more than the
    work (deep, thin graphs such as paths have one tiny level after another).
    """
    nblocks = (offsets[qsize] + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK
    if nblocks <= 1:
        return _td_serial(indptr, indices, parent, depth, queue, qsize, offsets, next_queue, tail, level)
    scout = 0
    for b in prange(nblocks):
        scout += _td_block(b, indptr, indices, parent, depth, queue, qsize, offsets, next_queue, tail, level)
    return scout


@njit(cache=True)
def _td_serial(indptr, indices, parent, depth, queue, qsize, offsets, next_queue, tail, level):
    if offsets[qsize] == 0:
        return 0
    return _td_block(0, indptr, indices, parent, depth, queue, qsize, offsets, next_queue, tail, level)
