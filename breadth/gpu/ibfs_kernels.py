"""GPU kernels of bitwise iBFS (Liu, Huang, Hu, "iBFS: Concurrent BFS on GPUs", SIGMOD'16, sections 4 and 6).

The data are those of the CPU form (``breadth.multisource.status``/``ibfs``):
two bitwise status arrays ``prev`` (BSA_k) and ``status`` (BSA_k+1) of W uint64
words per vertex (bit j of word q = instance 64 q + j; unused instances preset to
1, so all ones means *full*), the joint frontier queue (JFQ, each vertex once
however many instances share it) and uint32 bitmaps ``changed`` (JFQ marks, or
the JFQ itself after a bottom-up level) and ``unfull``.

* ``ib_td`` (Algorithm 1, top-down): one warp per JFQ vertex u, a lane per edge
  (u's adjacency is read once for every instance of the group, the paper's
  shared expansion); ``status[v] |= prev[u]`` with an atomic OR when it adds
  bits; the first thread to grow v marks ``changed`` (atomic OR) and stages v for
  the next JFQ (block-aggregated append, ``primitives.flush``).
* ``ib_bu`` (Algorithm 1, bottom-up): one thread per not-full vertex v ORs
  ``prev`` of its in-neighbours in the JFQ (``bottom_up.next_in_frontier``, resumed after
  each) into ``status[v]`` (no atomics: only
  v's thread writes it) and stops as soon as v is full for every instance still
  running (*early termination*; ``idle`` instances, whose last level found
  nothing, cannot give v anything and count as set). A vertex full for every
  running instance is *settled* and leaves ``unfull`` (``ib_identify_dense``;
  the CPU's rule, ``multisource.bottom_up``, so both count the same levels).
* ``ib_identify_sparse`` / ``ib_identify_dense`` (Algorithm 2): the XOR of the
  two copies finds the instances that just reached a vertex; each new bit is
  tallied per instance (the level histogram of the reducers) in shared memory,
  and written as a depth when depths are kept; ``prev := status``.

Counters follow ``primitives``: two rows of ``IROW`` int64; a level's kernels add
into row ``nxt``, the identification kernel zeroes row ``cur`` (after the step
kernel read the last histogram from it), and the host copies row ``nxt`` once per
level. Launch shapes need not know the JFQ's size: the sparse identification
reads it from the counters (grid-stride loops). No kernel copies anything to the host.

Tests: tests/gpu (numba-cuda's simulator, which runs a block's threads concurrently but
blocks one after another, so inter-block races need a real GPU: bench/gpu_check.py) and
tests/gpu/ptx_check.py (PTX for sm_80/sm_90).
"""
from numba import cuda, int64, uint32, uint64

from .bottom_up import next_in_frontier
from .device import STAGE
from .primitives import clear_tallies, fill, flush, make_room, stage, warp_vertex

MAX_WORDS = 8                                 # W <= 8: up to 512 instances per group
NF, SCOUT, NFULL, NFULL_IN, NUNFULL, UNEXPLORED, EXAMINED, CURSOR = range(8)
HIST0 = 8
IROW = HIST0 + 64 * MAX_WORDS
ALL = uint64(0xFFFFFFFFFFFFFFFF)


@cuda.jit(device=True)
def _begin(s_cnt, counters, clear):
    clear_tallies(s_cnt, IROW, counters, clear, IROW)
    cuda.syncthreads()


@cuda.jit(device=True)
def _end(s_cnt, counters, row):
    cuda.syncthreads()
    for f in range(cuda.threadIdx.x, IROW, cuda.blockDim.x):
        if s_cnt[f] != 0:
            cuda.atomic.add(counters, row + f, s_cnt[f])


@cuda.jit(device=True)
def _record(d, q, v, s_cnt, level, depths, g, write_depth):
    """Tally the instances whose bit is set in d (word q of v) as reached at ``level``."""
    while d != 0:
        low = d & (~d + uint64(1))
        j = q * 64 + cuda.popc(low - uint64(1))
        d ^= low
        cuda.atomic.add(s_cnt, HIST0 + j, 1)
        if write_depth and j < g:
            depths[v * g + j] = level


@cuda.jit
def ib_init(in_indptr, pattern, prev, status, changed, unfull, n, counters, row):
    """Both status copies := the unused-instance pattern; changed := 0; unfull := vertices with in-edges."""
    words = pattern.size
    w = cuda.grid(1)
    reachable = int64(0)
    while w < unfull.size:
        x = uint32(0)
        for b in range(32):
            v = w * 32 + b
            if v < n:
                for q in range(words):
                    prev[v * words + q] = pattern[q]
                    status[v * words + q] = pattern[q]
                if in_indptr[v + 1] > in_indptr[v]:
                    x |= uint32(1) << uint32(b)
                    reachable += 1
        changed[w] = 0
        unfull[w] = x
        w += cuda.gridsize(1)
    if reachable > 0:
        cuda.atomic.add(counters, row + NUNFULL, reachable)


@cuda.jit
def ib_seed(sources, words, status, changed, queue, counters, row):
    """Instance j starts at sources[j]; each distinct source enters the level-0 JFQ once."""
    j = cuda.grid(1)
    while j < sources.size:
        s = sources[j]
        cuda.atomic.or_(status, s * words + (j >> 6), uint64(1) << uint64(j & 63))
        m = uint32(1) << uint32(s & 31)
        old = cuda.atomic.or_(changed, s >> 5, m)
        if old & m == 0:
            queue[cuda.atomic.add(counters, row + NF, 1)] = s
        j += cuda.gridsize(1)


@cuda.jit
def ib_td(indptr, indices, words, prev, status, queue, qsize, changed, next_queue, counters, nxt):
    """Top-down level: one warp per JFQ vertex, OR its status into each out-neighbour."""
    s_buf = cuda.shared.array(STAGE, int64)
    s_n = cuda.shared.array(1, int64)
    s_base = cuda.shared.array(1, int64)
    s_max = cuda.shared.array(1, int64)
    tid = cuda.threadIdx.x
    warps = cuda.blockDim.x // 32
    lane = tid % 32
    if tid == 0:
        s_n[0] = 0
    pending = 0                                   # most staged per thread since the last flush
    for base in range(cuda.blockIdx.x * warps, qsize, cuda.gridDim.x * warps):
        u, first, d, rounds = warp_vertex(queue, 0, base + tid // 32, qsize, indptr, lane, s_max)
        for r in range(rounds):
            pending = make_room(pending, 1, s_buf, s_n, s_base, next_queue, counters, nxt + NF)
            k = r * 32 + lane
            if k < d:
                v = indices[first + k]
                grew = False
                for q in range(words):
                    bits = prev[u * words + q]
                    if bits & ~status[v * words + q]:
                        cuda.atomic.or_(status, v * words + q, bits)
                        grew = True
                if grew:
                    m = uint32(1) << uint32(v & 31)
                    if changed[v >> 5] & m == 0:
                        old = cuda.atomic.or_(changed, v >> 5, m)
                        if old & m == 0:
                            stage(s_buf, s_n, v)
    flush(s_buf, s_n, s_base, next_queue, counters, nxt + NF)


@cuda.jit
def ib_identify_sparse(indptr, in_indptr, words, prev, status, changed, queue, level, depths, g, write_depth,
                       counters, row, clear):
    """Identify the level after a top-down step: its JFQ is queue[:counters[row + NF]]."""
    s_cnt = cuda.shared.array(IROW, int64)
    qsize = counters[row + NF]
    _begin(s_cnt, counters, clear)
    i = cuda.grid(1)
    while i < qsize:
        v = queue[i]
        changed[v >> 5] = 0                 # racing writes of 0 to a word of JFQ vertices: harmless
        full = ALL
        for q in range(words):
            cur = status[v * words + q]
            d = cur ^ prev[v * words + q]
            prev[v * words + q] = cur
            full &= cur
            _record(d, q, v, s_cnt, level, depths, g, write_depth)
        indeg = in_indptr[v + 1] - in_indptr[v]
        if full == ALL and indeg > 0:
            cuda.atomic.add(s_cnt, NFULL, 1)
            cuda.atomic.add(s_cnt, NFULL_IN, indeg)
        cuda.atomic.add(s_cnt, SCOUT, indptr[v + 1] - indptr[v])
        i += cuda.gridsize(1)
    _end(s_cnt, counters, row)


@cuda.jit
def ib_bu(in_indptr, in_indices, words, pattern, prev, status, unfull, front, n, counters, cur, nxt, idle):
    """Bottom-up level with early termination; ``front`` is the JFQ bitmap, row ``cur`` its histogram.
    The idle instances go to ``idle`` too (every block writes the same words), for ``ib_identify_dense``."""
    s_idle = cuda.shared.array(MAX_WORDS, uint64)
    s_ex = cuda.shared.array(1, int64)
    tid = cuda.threadIdx.x
    if tid == 0:
        s_ex[0] = 0
        for q in range(words):            # idle: instances whose last level reached nothing
            x = pattern[q]
            for b in range(64):
                if counters[cur + HIST0 + q * 64 + b] == 0:
                    x |= uint64(1) << uint64(b)
            s_idle[q] = x
            idle[q] = x
    cuda.syncthreads()
    v = cuda.grid(1)
    while v < n:
        if unfull[v >> 5] & (uint32(1) << uint32(v & 31)):
            full = ALL
            for q in range(words):
                full &= status[v * words + q] | s_idle[q]
            if full != ALL:
                j = in_indptr[v]
                end = in_indptr[v + 1]
                first = j
                while j < end:
                    k = next_in_frontier(in_indices, j, end, front)
                    j = k + 1
                    if k == end:
                        break
                    u = in_indices[k]
                    full = ALL
                    for q in range(words):
                        a = status[v * words + q] | prev[u * words + q]
                        status[v * words + q] = a
                        full &= a | s_idle[q]
                    if full == ALL:       # early termination
                        break
                cuda.atomic.add(s_ex, 0, min(j, end) - first)
        v += cuda.gridsize(1)
    cuda.syncthreads()
    if tid == 0 and s_ex[0] > 0:
        cuda.atomic.add(counters, nxt + EXAMINED, s_ex[0])


@cuda.jit
def ib_identify_dense(indptr, in_indptr, words, prev, status, changed, unfull, idle, n, level, depths, g,
                      write_depth, counters, row, clear):
    """Identify the level after a bottom-up step over the unfull vertices: the JFQ -> ``changed``;
    a vertex that every running instance (not ``idle``) has reached is settled and leaves ``unfull``."""
    s_cnt = cuda.shared.array(IROW, int64)
    _begin(s_cnt, counters, clear)
    w = cuda.grid(1)
    while w < unfull.size:
        x = unfull[w]
        keep = x
        cw = uint32(0)
        for b in range(32):
            m = uint32(1) << uint32(b)
            if x & m:
                v = w * 32 + b
                settled = ALL
                moved = uint64(0)
                for q in range(words):
                    cur = status[v * words + q]
                    d = cur ^ prev[v * words + q]
                    if d != 0:
                        prev[v * words + q] = cur
                        moved |= d
                        _record(d, q, v, s_cnt, level, depths, g, write_depth)
                    settled &= cur | idle[q]
                if moved != 0:
                    cw |= m
                    cuda.atomic.add(s_cnt, NF, 1)
                    cuda.atomic.add(s_cnt, SCOUT, indptr[v + 1] - indptr[v])
                if settled == ALL:
                    keep &= ~m
                else:
                    cuda.atomic.add(s_cnt, NUNFULL, 1)
                    cuda.atomic.add(s_cnt, UNEXPLORED, in_indptr[v + 1] - in_indptr[v])
        changed[w] = cw
        unfull[w] = keep
        w += cuda.gridsize(1)
    _end(s_cnt, counters, row)


fill_any = fill       # a[:] = value, any dtype
