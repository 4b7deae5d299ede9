"""Top-down BFS step (frontier queue), after GAP's ``TDStep`` (Beamer et al., SC'12).

Every frontier vertex u scans its out-edges; an unvisited neighbour v is
claimed by an atomic OR of its bit in the ``visited`` bitmap, so exactly one
thread wins each vertex and the next frontier holds every vertex once (the
bitmap is n / 8 bytes: the per-edge test reads a cache-resident word instead of
the parent array, GAP's test). Winners are appended to a block-local buffer
that is flushed into the shared next queue with one atomic add per flush.
A winner is queued with its parent, ``(u << 32) | v``, and nothing else is
written during the walk; a second parallel pass over the next queue
(``settle_claims``) writes parent and depth, unpacks the queue and sums the
degrees (the scout count): the walk's random stores and indptr loads, which
stalled it, become one pass of independent ones (GAP writes only parent, whose
initial value -degree gives it the scout count for free, at the price of an
O(n) pass per search).

Small frontiers (``td_serial``; the driver picks it from the frontier's
out-edge count) are expanded in the calling thread with plain loads and stores.

Load balance: the frontier's out-edges, concatenated in queue order, are cut
into blocks of equal edge count (a prefix sum of the frontier's degrees and a
binary search per block), so a hub's edges are shared among threads instead of
serialising a level.

The block walk (``walk_block``) is the one implementation of this loop in
breadth: the distributed steps (``breadth.distributed.steps_*``) and iBFS
(``breadth.multisource.ibfs``) call it with their own per-edge visit, so only
what happens to an edge differs between the engines.

Invariants: on entry v's ``visited`` bit is set iff v is visited (then its
parent and depth are written), and the queue holds each vertex of the current
level once; between the walk and ``settle_claims`` the newly visited vertices
have their bit set but neither parent nor depth; on exit every neighbour of the frontier is visited, and the newly
visited ones (depth ``level + 1``) are in the next queue exactly once.

Returns the scout count: the out-degree sum of the next frontier, which the
direction-optimizing policy compares against the unexplored edges.

Subscripts in the edge loops are unsigned (``atomics.U``): numba's negative-index
check would be a large share of the loop.
"""
import numpy as np
from numba import prange
from numba.extending import overload

from ..jit import njit
from .atomics import U, atomic_add, borrowed, prefetch_read, prefetch_write, set_bit

TD_EDGE_BLOCK = 4096   # frontier out-edges per parallel block
TD_BUFFER = 1024       # block-local queue buffer


@njit(cache=True)
def flush_buffer(buf, count, next_queue, tail):
    """Append buf[:count] to the shared queue: one atomic add on ``tail[0]`` reserves the slots.

    Deliberately not inlined: it runs once per buffer, and inlined into a block walk
    its loop keeps numba from pruning the reference counting of the walk's arrays.
    """
    if count == 0:
        return
    start = atomic_add(tail, 0, count)
    for k in range(count):
        next_queue[U(start + k)] = buf[U(k)]


@njit(inline="always", cache=True)
def push(buf, nbuf, item, out, tail):
    """buf[nbuf] := item, flushing a full buffer into ``out``; returns the buffer's new fill.

    For kernels that append per vertex (the block walk appends with its own code: see its rules).
    """
    buf[nbuf] = item
    nbuf += 1
    if nbuf == buf.size:
        flush_buffer(buf, nbuf, out, tail)
        nbuf = 0
    return nbuf


@njit(cache=True)
def frontier_edge_offsets(indptr, queue, qsize, offsets):
    """offsets[i] = out-degree sum of queue[:i]; returns the total (the frontier's edges)."""
    total = 0
    for i in range(qsize):
        offsets[U(i)] = total
        u = queue[U(i)]
        total += indptr[U(u + 1)] - indptr[U(u)]
    offsets[qsize] = total
    return total


@njit(inline="always", cache=True)
def block_first_vertex(offsets, qsize, lo):
    """Queue position of the frontier vertex whose out-edges contain edge position ``lo``."""
    return np.searchsorted(offsets[:qsize + 1], lo, side="right") - 1


@njit(inline="always", cache=True)
def edge_window(indptr, u, offsets, i, lo, hi):
    """The slice [first, last) of u's (= queue[i]) out-edges that falls in block [lo, hi)."""
    first = indptr[U(u)] + max(0, lo - offsets[U(i)])
    last = indptr[U(u)] + min(offsets[U(i + 1)], hi) - offsets[U(i)]
    return first, last


@njit(inline="always", cache=True)
def walk_block(b, indptr, indices, queue, qsize, offsets, visit, ctx, out, tail):
    """The edge-balanced block walk: frontier edges [b * TD_EDGE_BLOCK, (b + 1) * TD_EDGE_BLOCK).

    Every top-down kernel of breadth (single-node, distributed, multi-source) is this
    walk with its own per-edge ``visit(ctx, u, v)``: ``u = queue[i]`` is a frontier
    vertex (a row of ``indptr``), ``v = indices[j]`` its neighbour. ``visit`` returns
    ``(item, weight)``: an ``item >= 0`` is appended to ``out`` (through a block-local
    buffer, flushed with one atomic add on ``tail[0]``) and its ``weight`` added to the
    block's sum, which the walk returns (the scout count, for visits that pass
    out-degrees). ``ctx`` is a tuple of whatever the visit needs, including per-block
    scratch the caller made for this block (flushed by the caller afterwards).

    A visit is a module-level ``@njit(inline="always")`` function, so that it and this
    walk are inlined into each calling kernel (which then stays cacheable: a jitted
    function passed to a function that is *not* inlined makes its caller uncacheable).
    The walk hands it ``ctx`` as ``atomics.borrowed(ctx)``: without that, binding the
    visit's parameters on every edge costs reference-count updates numba cannot always
    prune, which can triple a top-down step's time.
    """
    ctx = borrowed(ctx)
    buf = np.empty(TD_BUFFER, dtype=out.dtype)
    nbuf = np.int64(0)      # typed, not the literal 0: numba would compile flush_buffer for that literal too
    block_sum = 0
    total = offsets[qsize]
    lo = b * TD_EDGE_BLOCK
    hi = min(total, lo + TD_EDGE_BLOCK)
    i = block_first_vertex(offsets, qsize, lo)
    while i < qsize and offsets[U(i)] < hi:
        u = queue[U(i)]
        first, last = edge_window(indptr, u, offsets, i, lo, hi)
        for j in range(first, last):
            item, weight = visit(ctx, u, indices[U(j)])
            if item >= 0:
                buf[nbuf] = item
                nbuf += 1
                block_sum += weight
                if nbuf == TD_BUFFER:
                    flush_buffer(buf, nbuf, out, tail)
                    nbuf = 0
        i += 1
    flush_buffer(buf, nbuf, out, tail)
    return block_sum


PACK_MAX_VERTICES = 1 << 31    # below this, a claim is queued as (parent << 32) | vertex
CLAIM_BLOCK = 1 << 14          # claims per parallel block of ``settle_claims``
SETTLE_AHEAD = 32              # ``settle_claims`` prefetches the lines of the claim this far ahead


@njit(inline="always", cache=True)
def visit_claim(ctx, u, v):
    """Single-node visit: claim unvisited v; the claim is queued, nothing else is written.

    The claim is an atomic OR of v's bit in the ``visited`` bitmap (n / 8 bytes, cache
    resident). The thread that found the bit clear owns v and queues ``(u << 32) | v``:
    the walk then touches no line of parent, depth or indptr (each a random access per
    claimed vertex), and ``settle_claims`` writes them in a pass of independent stores.
    """
    visited = ctx[0]
    if not (visited[U(v >> 6)] >> np.uint64(v & 63)) & np.uint64(1) and set_bit(visited, v, True):
        return (np.int64(u) << 32) | np.int64(v), np.int64(0)
    return np.int64(-1), np.int64(0)


@njit(inline="always", cache=True)
def visit_claim_wide(ctx, u, v):
    """``visit_claim`` for graphs of PACK_MAX_VERTICES vertices or more: the owner writes
    ``parent[v]`` and queues v (``settle_claims`` writes the rest)."""
    visited = ctx[0]
    if not (visited[U(v >> 6)] >> np.uint64(v & 63)) & np.uint64(1) and set_bit(visited, v, True):
        ctx[1][U(v)] = u
        return np.int64(v), np.int64(0)
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def _td_block(b, indptr, indices, visited, queue, qsize, offsets, next_queue, tail):
    return walk_block(b, indptr, indices, queue, qsize, offsets, visit_claim, (visited,), next_queue, tail)


@njit(cache=True)
def _td_block_wide(b, indptr, indices, parent, visited, queue, qsize, offsets, next_queue, tail):
    return walk_block(b, indptr, indices, queue, qsize, offsets, visit_claim_wide, (visited, parent), next_queue,
                      tail)


@njit(parallel=True, cache=True)
def settle_claims(indptr, queue, qsize, parent, depth, level, packed):
    """The claims queue[:qsize] of a top-down level become the next frontier: for each,
    ``depth[v] = level`` (and, ``packed``, ``parent[v] = u`` and ``queue[i] = v``).
    Returns the scout count (the out-degree sum of the claimed vertices).

    Each claim touches three random lines (parent, depth, indptr); they are prefetched
    SETTLE_AHEAD claims ahead, so that many misses are in flight at once."""
    scout = 0
    for b in prange((qsize + CLAIM_BLOCK - 1) // CLAIM_BLOCK):
        scout += _settle_block(np.int64(b), indptr, queue, qsize, parent, depth, level, packed)
    return scout


@njit(cache=True)
def _settle_block(b, indptr, queue, qsize, parent, depth, level, packed):
    """settle_claims over block b; returns its scout count
    (a function of its own so that the prange reduction compiles on Python >= 3.12, numba issue 10132)."""
    block_scout = 0
    hi = min(qsize, (b + 1) * CLAIM_BLOCK)
    for i in range(b * CLAIM_BLOCK, hi):
        if i + SETTLE_AHEAD < hi:
            w = U(queue[U(i + SETTLE_AHEAD)])
            if packed:
                w &= U(0xFFFFFFFF)
                prefetch_write(parent, w)
            prefetch_write(depth, w)
            prefetch_read(indptr, w)
        v = U(queue[U(i)])
        if packed:
            u = v >> U(32)
            v &= U(0xFFFFFFFF)
            parent[v] = u
            queue[U(i)] = v
        depth[v] = level
        block_scout += indptr[v + U(1)] - indptr[v]
    return block_scout


@njit(parallel=True, cache=True)
def _td_walk(indptr, indices, visited, queue, qsize, offsets, next_queue, tail):
    for b in prange((offsets[qsize] + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK):
        _td_block(np.int64(b), indptr, indices, visited, queue, qsize, offsets, next_queue, tail)


@njit(parallel=True, cache=True)
def _td_walk_wide(indptr, indices, parent, visited, queue, qsize, offsets, next_queue, tail):
    for b in prange((offsets[qsize] + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK):
        _td_block_wide(np.int64(b), indptr, indices, parent, visited, queue, qsize, offsets, next_queue, tail)


def claim_walk(indptr, indices, parent, visited, queue, qsize, offsets, next_queue, tail):
    """The claiming walk of ``td_step``: packed claims (``visit_claim``) below PACK_MAX_VERTICES
    vertices, else wide ones (``visit_claim_wide``); returns whether they are packed."""
    if indptr.size - 1 < PACK_MAX_VERTICES:
        _td_walk(indptr, indices, visited, queue, qsize, offsets, next_queue, tail)
        return True
    _td_walk_wide(indptr, indices, parent, visited, queue, qsize, offsets, next_queue, tail)
    return False


def _packed_walk(indptr, indices, parent, visited, queue, qsize, offsets, next_queue, tail):
    _td_walk(indptr, indices, visited, queue, qsize, offsets, next_queue, tail)
    return True


@overload(claim_walk, inline="always")
def _claim_walk_for(indptr, indices, parent, visited, queue, qsize, offsets, next_queue, tail):
    """``claim_walk`` in jitted code, chosen by the id type: 32-bit ids mean fewer than 2^31
    vertices, so every claim packs and the wide walk is not compiled at all."""
    return _packed_walk if indices.dtype.bitwidth <= 32 else claim_walk


@njit(cache=True)
def td_step(indptr, indices, parent, depth, visited, queue, qsize, offsets, next_queue, tail, level, before):
    """One top-down level, in parallel over blocks of TD_EDGE_BLOCK frontier edges.

    ``offsets`` holds ``frontier_edge_offsets`` of the queue; ``tail`` is a
    1-element int64 array the caller sets to 0; the next queue is
    ``next_queue[:tail[0]]``. Returns the scout count. ``before`` (a bitmap the size of
    ``visited``) receives ``visited`` as it was before the level, so that
    ``frontier.claimed_since(before, visited)`` turns it into the next frontier's bitmap
    (a pass over n / 64 words and no atomics, where ``queue_to_bitmap`` sets each bit atomically).

    Two passes: the walk claims vertices (bitmap only) and queues them, then
    ``settle_claims`` writes their parent and depth and sums their degrees. Why: a walk
    that wrote parent and depth inside the claim would stall on those random stores; the
    claim then touches only the cache-resident bitmap, and the second pass prefetches.
    """
    for i in range(visited.size):     # a loop: a slice copy compiles numba's shape-error code
        before[i] = visited[i]
    packed = claim_walk(indptr, indices, parent, visited, queue, qsize, offsets, next_queue, tail)
    return settle_claims(indptr, next_queue, tail[0], parent, depth, level + 1, packed)


@njit(cache=True)
def td_serial(indptr, indices, parent, depth, visited, queue, qsize, next_queue, level):
    """One top-down level in the calling thread: returns (next queue size, scout count).

    For frontiers with few out-edges (deep, thin graphs have one small level after
    another): no parallel region, no edge offsets, no atomics, the next queue
    written directly -- a level costs what its edges cost.
    """
    nq = 0
    scout = 0
    nl = level + 1
    for i in range(qsize):
        u = queue[U(i)]
        for j in range(indptr[U(u)], indptr[U(u + 1)]):
            v = indices[U(j)]
            w = U(v >> 6)
            m = np.uint64(1) << np.uint64(v & 63)
            if not visited[w] & m:
                visited[w] |= m
                parent[U(v)] = u
                depth[U(v)] = nl
                next_queue[U(nq)] = v
                nq += 1
                scout += indptr[U(v + 1)] - indptr[U(v)]
    return nq, scout
