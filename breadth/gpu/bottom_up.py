"""GPU bottom-up step (bitmap frontier, early exit) and the frontier conversions of the GPU search.

Bottom-up (Beamer, Asanovic, Patterson, SC'12; the GPU form of
``breadth.kernels.bottom_up``): one thread per vertex v. A visited v (bit set
in the ``visited`` bitmap) returns at once; an unvisited v scans its in-edges
and stops at the first in-neighbour u whose bit is set in the ``front`` bitmap
("early exit"; ``next_in_frontier``, the scan of every GPU bottom-up kernel): u
becomes its parent, v its depth ``level + 1``, and v's bit is set in
``next_front`` with an atomic OR (the one atomic per woken vertex; ``visited``
lags a level and takes the frontier in word by word, see ``bu_step``). The bitmaps rotate
through three buffers so that no launch is spent clearing: a level reads
``front``, writes ``next_front`` (zeroed by the level before) and zeroes
``spare``, which is the next level's ``next_front``. The level's counts
(vertices woken, their out-degree sum and LRB histogram, edges examined) go to
the counter row ``nxt`` as in the top-down kernels (see ``primitives``).

Invariants: on entry ``front`` holds exactly the frontier (depth ``level``) and
``visited | front`` the vertices with ``parent >= 0`` and perhaps vertices without
in-edges (``visited`` holds those reached before the frontier, or all of them after a
switch); on exit ``next_front`` holds exactly the vertices woken at depth ``level + 1``
and ``visited`` every vertex of depth at most ``level``. Bitmaps are uint32 words, bit
``v & 31`` of word ``v >> 5``.

Conversions (switching direction; run only at a switch): ``bitmaps_from_depth``
(the frontier, visited and cleared next-frontier bitmaps in one launch, read from
``depth``; ``visited`` also takes the vertices without in-edges, ``in_degree_zero_words``,
which no step can wake: Kronecker graphs' isolated half then costs a bottom-up step one
bitmap read each) and ``bitmap_to_queue`` (block-aggregated appends at a counter cursor);
``queue_to_bitmap`` and ``fill_words`` serve iBFS and the distributed search. No kernel
here copies to the host.

Tests: tests/gpu (numba-cuda's simulator, which runs a block's threads concurrently but
blocks one after another, so inter-block races need a real GPU: bench/gpu_check.py) and
tests/gpu/ptx_check.py (PTX for sm_80/sm_90).
"""
from numba import cuda, int64, uint32

from .primitives import (BCUR0, BIN0, COUNT, EXAMINED, SCOUT, begin, degree_bin, fill, flush, flush_counts, make_room,
                         stage, staging)


@cuda.jit
def fill_search(parent, depth, counters, queue, indptr, root):
    """parent = depth = -1 and every counter 0: the state before seeding; with ``root >= 0`` also
    seeded with that one vertex (``seed``'s result, in the same pass: each cell is written by
    one thread, so no seed write races a fill)."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < parent.size:
        parent[i] = root if i == root else -1
        depth[i] = 0 if i == root else -1
        i += stride
    d = indptr[root + 1] - indptr[root] if root >= 0 else 0
    b = BIN0 + degree_bin(d)
    i = cuda.grid(1)
    while i < counters.size:
        counters[i] = 0
        if root >= 0 and (i == COUNT or i == b):
            counters[i] = 1
        if root >= 0 and i == SCOUT:
            counters[i] = d
        i += stride
    if root >= 0 and cuda.grid(1) == 0:
        queue[0] = root


@cuda.jit
def seed(seeds, indptr, parent, depth, queue, counters):
    """Distinct seeds into the frontier queue, each its own parent at depth 0; counter row 0 := their
    count, scout count and LRB histogram (what the LRB scatter of level 0 reads)."""
    i = cuda.grid(1)
    while i < seeds.size:
        r = seeds[i]
        parent[r] = r
        depth[r] = 0
        queue[i] = r
        d = indptr[r + 1] - indptr[r]
        cuda.atomic.add(counters, COUNT, 1)
        cuda.atomic.add(counters, SCOUT, d)
        cuda.atomic.add(counters, BIN0 + degree_bin(d), 1)
        i += cuda.gridsize(1)


fill_words = fill     # words[:] = value (a bitmap cleared or set)


@cuda.jit
def queue_to_bitmap(queue, qsize, words):
    """Set the bit of every queue[:qsize] vertex (``words`` zeroed before)."""
    i = cuda.grid(1)
    while i < qsize:
        v = queue[i]
        cuda.atomic.or_(words, v >> 5, uint32(1) << uint32(v & 31))
        i += cuda.gridsize(1)


WORDS_PER_BLOCK = 32        # shared words of the packing kernels: blocks of up to 1024 threads


@cuda.jit
def bitmaps_from_depth(depth, level, idle, front, next_front, visited, n):
    """A switch to bottom-up in one pass: ``front`` := {v : depth[v] == level} (the frontier),
    ``visited`` := {v : depth[v] >= 0} | ``idle`` (vertices no bottom-up step can wake),
    ``next_front`` := 0. One thread per vertex (coalesced depth reads); a block packs its
    vertices' bits into shared words with shared atomic ORs, then one thread a word stores them."""
    s_front = cuda.shared.array(WORDS_PER_BLOCK, uint32)
    s_vis = cuda.shared.array(WORDS_PER_BLOCK, uint32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    base = cuda.blockIdx.x * bdim          # the same for every thread of the block: all take each round
    while base < front.size * 32:
        if tid < bdim // 32:
            s_front[tid] = 0
            s_vis[tid] = 0
        cuda.syncthreads()
        v = base + tid
        if v < n:
            d = depth[v]
            bit = uint32(1) << uint32(v & 31)
            if d >= 0:
                cuda.atomic.or_(s_vis, tid >> 5, bit)
                if d == level:
                    cuda.atomic.or_(s_front, tid >> 5, bit)
        cuda.syncthreads()
        w = (base >> 5) + tid
        if tid < bdim // 32 and w < front.size:
            front[w] = s_front[tid]
            visited[w] = s_vis[tid] | idle[w]
            next_front[w] = 0
        base += cuda.gridDim.x * bdim


@cuda.jit
def in_degree_zero_words(in_indptr, n, idle):
    """``idle`` := {v : v has no in-edge}: vertices no bottom-up step can wake (a search's
    ``visited`` starts with them, so its bottom-up steps skip them without reading their in-list
    bounds). Packed as ``bitmaps_from_depth`` packs; run once per SearchSpace."""
    s_idle = cuda.shared.array(WORDS_PER_BLOCK, uint32)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    base = cuda.blockIdx.x * bdim
    while base < idle.size * 32:
        if tid < bdim // 32:
            s_idle[tid] = 0
        cuda.syncthreads()
        v = base + tid
        if v < n and in_indptr[v + 1] == in_indptr[v]:
            cuda.atomic.or_(s_idle, tid >> 5, uint32(1) << uint32(v & 31))
        cuda.syncthreads()
        w = (base >> 5) + tid
        if tid < bdim // 32 and w < idle.size:
            idle[w] = s_idle[tid]
        base += cuda.gridDim.x * bdim


@cuda.jit
def bitmap_to_queue(words, queue, counters, tail):
    """Append every set bit of ``words`` to ``queue`` at cursor ``counters[tail]`` (any order)."""
    s_buf, s_n, s_base, s_cnt = staging(counters, -1)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    pending = 0
    for base in range(cuda.blockIdx.x * bdim, words.size, cuda.gridDim.x * bdim):
        pending = make_room(pending, 32, s_buf, s_n, s_base, queue, counters, tail)
        w = base + tid
        if w < words.size:
            x = words[w]
            b = 0
            while x != 0:
                if x & uint32(1):
                    stage(s_buf, s_n, w * 32 + b)
                x >>= uint32(1)
                b += 1
    flush(s_buf, s_n, s_base, queue, counters, tail)


@cuda.jit(device=True)
def next_in_frontier(in_indices, j, end, front):
    """The in-edge scan of every GPU bottom-up kernel (the device twin of
    ``kernels.bottom_up.first_in_frontier``): the first k in [j, end) whose in-neighbour
    ``in_indices[k]`` has its bit set in the uint32 bitmap ``front``, else ``end``; the edges
    examined are ``k - j + 1`` (found) or ``end - j``. A kernel that needs more than the first
    (iBFS's OR until full) resumes at ``k + 1``."""
    while j < end:
        u = in_indices[j]
        if front[u >> 5] & (uint32(1) << uint32(u & 31)):
            return j
        j += 1
    return end


@cuda.jit
def bu_step(indptr, in_indptr, in_indices, parent, depth, front, next_front, spare, visited, n, level,
            counters, nxt, clear):
    """One bottom-up level, one thread per vertex; ``next_front`` is zero on entry, ``spare`` zeroed here.

    ``visited`` lags a level: it holds every vertex reached before the frontier, and the
    frontier ``front`` is merged into it here (word by word, while other threads read it: a
    vertex is scanned iff its bit is clear in ``visited | front``, the same before and after
    the merge, and only the merge writes ``visited``). So waking a vertex costs one atomic (its
    ``next_front`` bit) and its bin's shared tally; its count and out-degree stay in registers
    until the thread ends."""
    s_cnt = cuda.shared.array(BCUR0, int64)
    s_n = cuda.shared.array(1, int64)
    begin(s_cnt, s_n, counters, clear)
    w = cuda.grid(1)
    while w < spare.size:
        spare[w] = 0
        visited[w] |= front[w]
        w += cuda.gridsize(1)
    v = cuda.grid(1)
    examined = int64(0)
    found = int64(0)
    scout = int64(0)
    while v < n:
        w = v >> 5
        bit = uint32(1) << uint32(v & 31)
        if (visited[w] | front[w]) & bit == 0:
            first = in_indptr[v]
            end = in_indptr[v + 1]
            k = next_in_frontier(in_indices, first, end, front)
            if k < end:
                examined += k - first + 1
                parent[v] = in_indices[k]
                depth[v] = level + 1
                cuda.atomic.or_(next_front, w, bit)
                d = indptr[v + 1] - indptr[v]
                found += 1
                scout += d
                cuda.atomic.add(s_cnt, BIN0 + degree_bin(d), 1)
            else:
                examined += end - first
        v += cuda.gridsize(1)
    if examined > 0:
        cuda.atomic.add(s_cnt, EXAMINED, examined)
    if found > 0:
        cuda.atomic.add(s_cnt, COUNT, found)
        cuda.atomic.add(s_cnt, SCOUT, scout)
    flush_counts(s_cnt, counters, nxt)
