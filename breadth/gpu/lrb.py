"""GPU top-down step with Logarithmic Radix Binning (ButterFly BFS, Green, section 4).

LRB (O. Green, "ButterFly BFS - An Efficient Communication Pattern for Multi Node
Traversals", section 4, "Load Balanced Traversals Per compute-node") groups the frontier by
``bin = floor(log2 out-degree) + 1``: vertices of one bin differ in degree by
less than a factor of two, so threads given vertices of one bin get equal
work, and each bin is expanded at the granularity its degrees call for:

* bins 1-5 (degree 1..31): one thread per vertex;
* bins 6-10 (32..1023): one warp per vertex, lanes striding its edges;
* bins 11+ (>= 1024): up to ``HUB_SLOTS`` such hubs put their edges end to end and the
  part's blocks share them out evenly, a block-wide chunk at a time, so a hub's threads
  grow with its degree (a hub of a million edges on one block, or on as many blocks as a
  hub of a thousand, would hold the whole level); more hubs than that get a block per
  vertex, or several each when there are far more blocks than hubs.

The histogram of the frontier is counted while the previous level appends its
vertices (``primitives.tally``), so binning costs one scatter pass
(``lrb_scatter``: a block counts its vertices per bin in shared memory, reserves
each bin's range with one global atomic, and places them); the host, which
learned the histogram from the level's one counter copy, launches one kernel
(``td_lrb``) whose blocks take the granularities' contiguous segments of the binned
queue: a level costs the scatter and one launch, not one launch per granularity. A
frontier whose vertices all fall into one bin is already binned and skips the scatter.

Per edge (u, v): an unvisited v is claimed with an atomic compare-and-swap of
``parent[v]`` from -1 to u, so exactly one thread wins it; the winner sets its
depth, tallies it for the next level and stages it for the block-aggregated
append (``primitives.flush``). Every loop that contains a flush runs the same
number of rounds on every thread of a block (a round covers one vertex per
thread, one edge per lane, or one block-wide chunk of edges) and counts the
most a thread can have staged since the last flush (``pending``: 31 per round
in thread bins, 1 per round in warp and block chunks); the block flushes
before the next round could pass ``STAGE``, so staging never overflows and a
block issues about one global atomic per ``STAGE`` new vertices.

Invariants: on entry ``parent[v] == -1`` iff v is unvisited and the segment
holds frontier vertices (depth ``level``) once each; on exit every out-neighbour
of the segment is visited and each vertex newly visited is in ``next_queue``
once, at depth ``level + 1``. No kernel copies anything to the host.

Tests: tests/gpu (numba-cuda's simulator, which runs a block's threads concurrently but
blocks one after another, so inter-block races need a real GPU: bench/gpu_check.py) and
tests/gpu/ptx_check.py (PTX for sm_80/sm_90).
"""
import itertools

import numpy as np
from numba import cuda, int64

from .launcher import fast
from .primitives import (BCUR0, BIN0, BLOCK_BINS, COUNT, NBINS, THREAD_BINS, WARP_BINS, degree_bin, flush, flush_counts,
                         make_room, stage, staging, tally, warp_vertex)

SMALL_FRONTIER = 256     # frontiers this small (and hub-free) skip the LRB binning pass
HUB_EDGES_PER_BLOCK = 4096   # the block part gets a block per this many hub edges (at least one per hub)
HUB_SLOTS = 256          # block-bin vertices up to this many share out their edges evenly (4 KiB of shared memory)


@cuda.jit(device=True)
def claim(v, u, level, parent, depth, row0, indptr, s_buf, s_n, s_cnt):
    """Visit edge (u, v) of a single-node search: if v is unvisited and this thread wins the CAS on
    ``parent[v]``, v joins the next frontier (staged and tallied). ``row0`` is unused here."""
    if parent[v] < 0:
        if cuda.atomic.cas(parent, v, int64(-1), int64(u)) == -1:
            depth[v] = level + 1
            stage(s_buf, s_n, v)
            tally(s_cnt, indptr, v)


@cuda.jit
def lrb_scatter(indptr, queue, qsize, binned, counters, cur):
    """binned := queue[:qsize] ordered by LRB bin (bin b starts at the sum of the smaller bins' counts)."""
    s_off = cuda.shared.array(NBINS, int64)
    s_hist = cuda.shared.array(NBINS, int64)
    s_start = cuda.shared.array(NBINS, int64)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    if tid == 0:
        total = int64(0)
        for b in range(NBINS):
            s_off[b] = total
            total += counters[cur + BIN0 + b]
    for b in range(tid, NBINS, bdim):
        s_hist[b] = 0
    cuda.syncthreads()
    for base in range(cuda.blockIdx.x * bdim, qsize, cuda.gridDim.x * bdim):
        i = base + tid
        u = int64(0)
        b = 0
        rank = int64(0)
        if i < qsize:
            u = queue[i]
            b = degree_bin(indptr[u + 1] - indptr[u])
            rank = cuda.atomic.add(s_hist, b, 1)
        cuda.syncthreads()
        for k in range(tid, NBINS, bdim):       # one global atomic per non-empty bin of the round
            if s_hist[k] > 0:
                s_start[k] = cuda.atomic.add(counters, cur + BCUR0 + k, s_hist[k])
        cuda.syncthreads()
        if i < qsize:
            binned[s_off[b] + s_start[b] + rank] = u
        cuda.syncthreads()
        for k in range(tid, NBINS, bdim):
            s_hist[k] = 0
        cuda.syncthreads()


def top_down_kernel(claim):
    """The LRB top-down kernel visiting edges with ``claim``: all three granularities in one launch.

    ``claim(v, u, level, a, b, row0, indptr, s_buf, s_n, s_cnt)`` is a device function: it
    decides whether edge (u, v) wins v (``a``, ``b`` and ``row0`` -- the global id of row 0 --
    are the search's state, passed through unchanged) and stages v for the block's append when
    it does. The kernel's arguments: ``(indptr, indices, a, b, row0, queue, t_start, t_count,
    t_blocks, w_start, w_count, w_blocks, k_start, k_count, level, next_queue, counters, nxt,
    clear)``. Blocks ``[0, t_blocks)`` expand ``queue[t_start:t_start + t_count]`` a thread per
    vertex, the next ``w_blocks`` blocks ``queue[w_start:w_start + w_count]`` a warp per vertex,
    and the rest ``queue[k_start:k_start + k_count]``: their edges split evenly among the
    blocks (up to ``HUB_SLOTS`` vertices), else a block per vertex, or several blocks per
    vertex when there are at least twice as many blocks as vertices (the role is the same on
    every thread of a block, so each part synchronises its block freely). New vertices are
    appended to ``next_queue`` at cursor ``counters[nxt + COUNT]``; the block tallies go into
    row ``nxt``, and block 0 zeroes row ``clear`` (none when -1).
    """

    @cuda.jit(device=True)
    def thread_part(indptr, indices, a, b, row0, queue, start, count, pb, nb, level, next_queue, counters, nxt,
                    s_buf, s_n, s_base, s_cnt):
        """Thread bins: one frontier vertex (degree < 32) per thread; this block is part block pb of nb."""
        tid = cuda.threadIdx.x
        bdim = cuda.blockDim.x
        pending = 0                                # staged per thread since the last flush, at most
        for base in range(pb * bdim, count, nb * bdim):
            pending = make_room(pending, 31, s_buf, s_n, s_base, next_queue, counters, nxt + COUNT)
            i = base + tid
            if i < count:
                u = queue[start + i]
                for j in range(indptr[u], indptr[u + 1]):
                    claim(indices[j], u, level, a, b, row0, indptr, s_buf, s_n, s_cnt)

    @cuda.jit(device=True)
    def warp_part(indptr, indices, a, b, row0, queue, start, count, pb, nb, level, next_queue, counters, nxt,
                  s_buf, s_n, s_base, s_cnt, s_max):
        """Warp bins: one frontier vertex per warp; each round, every lane takes one edge."""
        tid = cuda.threadIdx.x
        warps = cuda.blockDim.x // 32
        lane = tid % 32
        pending = 0
        for base in range(pb * warps, count, nb * warps):
            u, first, d, rounds = warp_vertex(queue, start, base + tid // 32, count, indptr, lane, s_max)
            for r in range(rounds):
                pending = make_room(pending, 1, s_buf, s_n, s_base, next_queue, counters, nxt + COUNT)
                k = r * 32 + lane
                if k < d:
                    claim(indices[first + k], u, level, a, b, row0, indptr, s_buf, s_n, s_cnt)

    @cuda.jit(device=True)
    def block_part(indptr, indices, a, b, row0, queue, start, count, pb, nb, level, next_queue, counters, nxt,
                   s_buf, s_n, s_base, s_cnt):
        """Block bins (degree >= 1024). Up to ``HUB_SLOTS`` vertices: their edges, end to end, are
        split evenly among the part's blocks, chunk by block-wide chunk (a vertex of a hundred
        thousand edges gets a hundred times the threads of one of a thousand). More vertices:
        each gets ``per = nb // count`` blocks (at least one), which split its edges; with one
        block per vertex, a block takes every ``nb``-th vertex."""
        tid = cuda.threadIdx.x
        bdim = cuda.blockDim.x
        pending = 0
        if count <= HUB_SLOTS:
            s_end = cuda.shared.array(HUB_SLOTS, int64)       # s_end[i]: edges of vertices 0..i, end to end
            s_hub = cuda.shared.array(HUB_SLOTS, int64)
            for i in range(tid, count, bdim):
                u = queue[start + i]
                s_hub[i] = u
                s_end[i] = indptr[u + 1] - indptr[u]
            cuda.syncthreads()
            if tid == 0:
                for i in range(1, count):
                    s_end[i] += s_end[i - 1]
            cuda.syncthreads()
            total = s_end[count - 1] if count > 0 else 0
            h = 0                                  # this thread's vertex: the first i with s_end[i] > g
            for base in range(pb * bdim, total, nb * bdim):
                pending = make_room(pending, 1, s_buf, s_n, s_base, next_queue, counters, nxt + COUNT)
                g = base + tid
                if g < total:
                    while s_end[h] <= g:
                        h += 1
                    u = s_hub[h]
                    claim(indices[indptr[u + 1] - (s_end[h] - g)], u, level, a, b, row0, indptr, s_buf, s_n, s_cnt)
            return
        per = max(1, nb // max(1, count))
        for i in range(pb // per, count, nb // per):
            u = queue[start + i]
            hi = indptr[u + 1]
            for e in range(indptr[u] + (pb % per) * bdim, hi, per * bdim):
                pending = make_room(pending, 1, s_buf, s_n, s_base, next_queue, counters, nxt + COUNT)
                j = e + tid
                if j < hi:
                    claim(indices[j], u, level, a, b, row0, indptr, s_buf, s_n, s_cnt)

    @cuda.jit
    def td_lrb(indptr, indices, a, b, row0, queue, t_start, t_count, t_blocks, w_start, w_count, w_blocks,
               k_start, k_count, level, next_queue, counters, nxt, clear):
        """One LRB top-down level: each block expands its part of the binned frontier."""
        s_buf, s_n, s_base, s_cnt = staging(counters, clear)
        s_max = cuda.shared.array(1, int64)
        blk = cuda.blockIdx.x
        if blk < t_blocks:
            thread_part(indptr, indices, a, b, row0, queue, t_start, t_count, blk, t_blocks, level, next_queue,
                        counters, nxt, s_buf, s_n, s_base, s_cnt)
        elif blk < t_blocks + w_blocks:
            warp_part(indptr, indices, a, b, row0, queue, w_start, w_count, blk - t_blocks, w_blocks, level,
                      next_queue, counters, nxt, s_buf, s_n, s_base, s_cnt, s_max)
        else:
            block_part(indptr, indices, a, b, row0, queue, k_start, k_count, blk - t_blocks - w_blocks,
                       cuda.gridDim.x - t_blocks - w_blocks, level, next_queue, counters, nxt, s_buf, s_n, s_base,
                       s_cnt)
        flush(s_buf, s_n, s_base, next_queue, counters, nxt + COUNT)
        flush_counts(s_cnt, counters, nxt)

    return td_lrb


td_lrb = top_down_kernel(claim)


def lrb_parts(launch, bins) -> list:
    """[(start, count, blocks)] of the thread, warp and block parts of a frontier with LRB
    histogram ``bins`` in a queue ordered by bin (a frontier of one bin is its own order).

    The block part gets a block per ``HUB_EDGES_PER_BLOCK`` of its edges (counted from the
    bins' lowest degrees) and at least one per vertex, up to ``max_blocks``: few large hubs
    are then split among many blocks."""
    counts = bins.tolist()                     # Python ints: a level's host arithmetic, no numpy calls
    starts = [0, *itertools.accumulate(counts)]
    tpb = launch.thread_tpb
    parts = []
    for (lo, hi), per_block in ((THREAD_BINS, tpb), (WARP_BINS, tpb // 32)):
        count = starts[hi] - starts[lo]
        parts.append((starts[lo], count, launch.blocks(count, per_block) if count else 0))
    lo, hi = BLOCK_BINS
    count = starts[hi] - starts[lo]
    hub_edges = sum(counts[k] << (k - 1) for k in range(lo, hi) if counts[k])
    parts.append((starts[lo], count,
                  min(launch.max_blocks, max(count, hub_edges // HUB_EDGES_PER_BLOCK)) if count else 0))
    return parts


def launch_top_down(kernel, launch, indptr, indices, a, b, row0, queue, qsize, bins, level, next_queue, binned,
                    counters, cur, nxt, clear) -> bool:
    """Launch one LRB top-down level of ``kernel`` (a ``top_down_kernel``) over ``queue[:qsize]``.

    ``bins`` is the frontier's LRB histogram as the host copied it; counter row ``cur``
    holds the same histogram and zeroed scatter cursors (``lrb_scatter`` reads them). A
    frontier of at most ``SMALL_FRONTIER`` vertices without block-bin hubs goes to the warp
    part as it is; one whose vertices share a bin needs no scatter; otherwise it is
    scattered into ``binned``. Then one launch expands every non-empty granularity on its
    segment. ``binned=None``: the host already ordered ``queue`` by bin (no scatter, row
    ``cur`` unused). Returns False when no kernel ran (every frontier vertex has degree 0).
    """
    if np.count_nonzero(bins[1:]) == 0:
        return False
    tpb = launch.thread_tpb
    head = (indptr, indices, a, b, row0)
    tail = (level, next_queue, counters, nxt, clear)
    if qsize <= SMALL_FRONTIER and not bins[BLOCK_BINS[0]:].any():
        # a small frontier without block-bin hubs: one warp per vertex, no binning pass
        blocks = launch.blocks(qsize, tpb // 32)
        fast(kernel)[blocks, tpb](*head, queue, 0, 0, 0, 0, qsize, blocks, 0, 0, *tail)
        return True
    src = queue
    presorted = binned is None
    if not presorted and np.count_nonzero(bins) > 1:
        fast(lrb_scatter)[launch.blocks(qsize, tpb), tpb](indptr, queue, qsize, binned, counters, cur)
        src = binned
    (t_start, t_count, t_blocks), (w_start, w_count, w_blocks), (k_start, k_count, k_blocks) = lrb_parts(launch, bins)
    fast(kernel)[t_blocks + w_blocks + k_blocks, tpb](
        *head, src, t_start, t_count, t_blocks, w_start, w_count, w_blocks, k_start, k_count, *tail)
    return True
