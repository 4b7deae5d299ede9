"""The bitwise status array (BSA) of iBFS and its frontier identification.

iBFS (Liu, Huang, Hu, SIGMOD'16, section 6) keeps one bit per (vertex, BFS
instance): bit j of vertex v is 1 once the BFS from the group's j-th source has
visited v, whatever the level. Here a group holds up to 64*W sources and each
vertex owns W consecutive uint64 words of a flat array (``status[v*W + q]``,
bit ``b`` of word ``q`` = instance ``64q + b``), so one cache line carries the
statuses of a vertex for 512 instances when W = 8.

Two copies are kept: ``prev`` (BSA_k, frozen while level k+1 runs) and
``status`` (BSA_{k+1}, being written). Bits of unused instances (a group with
fewer than 64*W sources) are preset to 1 in both, so "all ones" always means
*full*: visited by every instance, the condition for bottom-up early
termination.

Frontier identification (Algorithm 2) is the XOR of the two copies: a vertex
whose ``status ^ prev`` is non-zero was just reached by the instances whose
bits differ, so it enters the joint frontier queue (JFQ) once, however many
instances share it. Identifying records the level of each newly set bit
(a depth, or only a per-instance count: the per-level histogram the reducers
fold into closeness, harmonic centrality and eccentricity; ``record_new``) and
keeps the direction-switching counters (scout count of the new frontier,
unexplored in-edges of vertices not yet full). After a top-down level it is
a pass over the new JFQ (``identify_sparse``, which copies ``status`` into
``prev``); after a bottom-up level it is fused into the step
(``bottom_up.bu_identify``, which swaps the copies instead).

Invariants after identifying level k: a vertex's bits are the instances that
reached it within k levels; ``hist[k, j]`` counts the vertices instance j
reached at exactly depth k; after a top-down level ``prev == status``.
"""
import numpy as np
from numba import config, get_thread_id, prange

from ..jit import njit
from ..kernels.atomics import U, atomic_add, cttz
from ..kernels.frontier import ELEM_BLOCK, WORD_BLOCK
from ..kernels.lanes import transpose64

ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
ID_BLOCK = 2048          # queue entries per parallel block in sparse identification
PLANES = 12              # bit-sliced counter planes: counts up to 4095 >= vertices of one block
SERIAL_BLOCKS = 2        # this few blocks of work run in the calling thread (a parallel launch costs more)
BITS = 64
DEPTH_BASE = 2           # depth planes hold depth - DEPTH_BASE (``depths``)


def unused_pattern(group_size: int, words: int) -> np.ndarray:
    """Per word of a vertex: the bits of instances beyond ``group_size`` (preset to 1)."""
    pattern = np.zeros(words, dtype=np.uint64)
    for q in range(words):
        lo = q * BITS
        used = min(BITS, max(0, group_size - lo))
        if used < BITS:
            pattern[q] = ALL if used == 0 else ALL ^ ((np.uint64(1) << np.uint64(used)) - np.uint64(1))
    return pattern


@njit(cache=True)
def _init_block(b, in_indptr, pattern, prev, status, changed, unfull):
    """Vertices [64 k, 64 k + 64) of every word k of block b: pattern into both copies,
    changed := none, unfull := the vertices with in-edges. Returns how many those are."""
    n = in_indptr.size - 1
    words = pattern.size
    reachable = 0
    for w in range(b * WORD_BLOCK, min(unfull.size, (b + 1) * WORD_BLOCK)):
        x = np.uint64(0)
        for v in range(w * 64, min(n, w * 64 + 64)):
            for q in range(words):
                prev[v * words + q] = pattern[q]
                status[v * words + q] = pattern[q]
            if in_indptr[v + 1] > in_indptr[v]:
                x |= np.uint64(1) << np.uint64(v & 63)
                reachable += 1
        changed[w] = np.uint64(0)
        unfull[w] = x
    return reachable


@njit(parallel=True, cache=True)
def _init_parallel(nblocks, in_indptr, pattern, prev, status, changed, unfull):
    reachable = 0
    for b in prange(nblocks):
        reachable += _init_block(b, in_indptr, pattern, prev, status, changed, unfull)
    return reachable


@njit(cache=True)
def seed_group(sources, in_indptr, words, pattern, prev, status, changed, unfull, queue):
    """Start a group: every instance unvisited except its own source (not yet identified).

    Unused instances' bits come from ``pattern`` (see ``unused_pattern``).
    ``unfull`` becomes every vertex with an in-edge: one without can never be
    reached (a source without in-edges is identified through the queue at level
    0 and never changes again), so no later level needs to look at it.
    ``changed`` deduplicates repeated sources and is left all zero. Returns (the
    number of distinct source vertices put in ``queue``, the level-0 JFQ; the
    number of vertices in ``unfull``).
    """
    nblocks = (unfull.size + WORD_BLOCK - 1) // WORD_BLOCK
    if nblocks <= SERIAL_BLOCKS:
        reachable = 0
        for b in range(nblocks):
            reachable += _init_block(b, in_indptr, pattern, prev, status, changed, unfull)
    else:
        reachable = _init_parallel(nblocks, in_indptr, pattern, prev, status, changed, unfull)
    qsize = 0
    for j in range(sources.size):
        s = sources[j]
        status[s * words + (j >> 6)] |= np.uint64(1) << np.uint64(j & 63)
        m = np.uint64(1) << np.uint64(s & 63)
        if not (changed[s >> 6] & m):
            changed[s >> 6] |= m
            queue[qsize] = s
            qsize += 1
    for i in range(qsize):
        changed[queue[i] >> 6] = np.uint64(0)
    return qsize, reachable


@njit(inline="always", cache=True)
def record_new(d, q, vq, planes, level, dplanes, write_depth):
    """Tally the instances whose bit is set in d (word q of a vertex, ``vq`` = its index in the
    status array) as reached at ``level``.

    The count goes to a bit-sliced counter (``planes[q, p]`` holds bit p of the
    64 counts of word q; adding d is a ripple-carry add of one word), which costs
    a couple of word operations per vertex however many instances reached it.
    Depths are bit-sliced too (``depths.py``): d is ORed into depth plane p for
    every bit p set in the level's code (``record_depth``), one word per plane,
    decoded once at the group's end.
    """
    ripple_add(planes, q, 0, d)
    if write_depth:
        record_depth(d, vq, level, dplanes)


@njit(inline="always", cache=True)
def ripple_add(planes, q, p, carry):
    """Add ``carry`` (one bit per lane) at weight 2**p into the bit-sliced counters ``planes[q]``."""
    while carry:
        t = planes[q, p] & carry
        planes[q, p] ^= carry
        carry = t
        p += 1


@njit(inline="always", cache=True)
def record_depth(d, vq, level, dplanes):
    """OR d into depth plane p of status word ``vq`` for every bit p set in the code of
    ``level``, level - DEPTH_BASE (``depths``: nothing below DEPTH_BASE or at it)."""
    bits = level - DEPTH_BASE
    p = 0
    while bits > 0:
        if bits & 1:
            dplanes[U(p), U(vq)] |= d
        bits >>= 1
        p += 1


def new_tallies(words: int) -> np.ndarray:
    """The per-level, per-instance counts of newly reached vertices, one row per thread of
    numba's pool (``flush_counts``; thread ids are below NUMBA_NUM_THREADS), at least two;
    the level's counts are the rows' sum. Starts numba's thread pool, as a first parallel
    call would: a ``flush_counts`` loaded from numba's cache links to the thread-id function
    the pool defines."""
    get_thread_id()
    return np.zeros((max(config.NUMBA_NUM_THREADS, 2), 64 * words), dtype=np.int64)


@njit(cache=True)
def flush_counts(planes, tallies):
    """Add a block's bit-sliced counters (``planes[q, p]``, bit p of word q's 64 counts) into
    the running thread's row of ``tallies`` (``new_tallies``): transposing the PLANES words of
    word q as a 64 x 64 bit matrix (``lanes.transpose64``) gives each lane's count as a word.
    Rows per thread, not atomic adds into one shared row: threads adding into one row
    contend for its cache lines."""
    shared = tallies.shape[0] == 1       # one row (not from new_tallies): every thread adds atomically
    row = tallies[0 if shared else get_thread_id()]
    lanes = np.empty(64, dtype=np.uint64)
    for q in range(planes.shape[0]):
        any_bits = np.uint64(0)
        for p in range(PLANES):
            lanes[p] = planes[q, p]
            any_bits |= planes[q, p]
        if not any_bits:
            continue
        for p in range(PLANES, 64):
            lanes[p] = np.uint64(0)
        transpose64(lanes, 0)
        for b in range(64):
            c = np.int64(lanes[b])
            if shared:
                if c:
                    atomic_add(row, q * 64 + b, c)
            else:
                row[q * 64 + b] += c


@njit(cache=True)
def sum_tallies(tallies, counts):
    """counts := the rows' sum of ``tallies``, which are zeroed for the next level."""
    counts[:] = 0
    for t in range(tallies.shape[0]):
        for j in range(counts.size):
            counts[j] += tallies[t, j]
            tallies[t, j] = 0


@njit(cache=True)
def _sparse_block(b, indptr, in_indptr, words, prev, status, changed, queue, qsize, tallies, level,
                  dplanes, write_depth, sums):
    """Identify JFQ entries of block b; sums[b] = (scout, vertices that became full, their in-degree sum)."""
    planes = np.zeros((words, PLANES), dtype=np.uint64)
    scout = 0
    nfull = 0
    nfull_in = 0
    for i in range(b * ID_BLOCK, min(qsize, (b + 1) * ID_BLOCK)):
        v = queue[i]
        vb = v * words
        changed[v >> 6] = np.uint64(0)
        full = ALL
        for q in range(words):
            cur = status[vb + q]
            d = cur ^ prev[vb + q]
            prev[vb + q] = cur
            full &= cur
            record_new(d, q, vb + q, planes, level, dplanes, write_depth)
        if full == ALL and in_indptr[v + 1] > in_indptr[v]:      # it was counted in unfull
            nfull += 1
            nfull_in += in_indptr[v + 1] - in_indptr[v]
        scout += indptr[v + 1] - indptr[v]
    flush_counts(planes, tallies)
    sums[b, 0] = scout
    sums[b, 1] = nfull
    sums[b, 2] = nfull_in


@njit(parallel=True, cache=True)
def _sparse_parallel(nblocks, indptr, in_indptr, words, prev, status, changed, queue, qsize, tallies, level,
                     dplanes, write_depth, sums):
    for b in prange(nblocks):
        _sparse_block(b, indptr, in_indptr, words, prev, status, changed, queue, qsize, tallies, level,
                      dplanes, write_depth, sums)


@njit(cache=True)
def identify_sparse(indptr, in_indptr, words, prev, status, changed, queue, qsize, tallies, level,
                    dplanes, write_depth):
    """Identify level ``level`` after a top-down step: its JFQ is ``queue[:qsize]`` already.

    Clears the ``changed`` words the top-down step set (racing writes of 0 are
    harmless). Returns (scout count of the queue, vertices with in-edges that
    became full, their in-degree sum).
    """
    nblocks = (qsize + ID_BLOCK - 1) // ID_BLOCK
    sums = np.zeros((nblocks, 3), dtype=np.int64)
    if nblocks <= SERIAL_BLOCKS:
        for b in range(nblocks):
            _sparse_block(b, indptr, in_indptr, words, prev, status, changed, queue, qsize, tallies, level,
                          dplanes, write_depth, sums)
    else:
        _sparse_parallel(nblocks, indptr, in_indptr, words, prev, status, changed, queue, qsize, tallies, level,
                         dplanes, write_depth, sums)
    return sums[:, 0].sum(), sums[:, 1].sum(), sums[:, 2].sum()


@njit(parallel=True, cache=True)
def _reach(prev, words, g, n, rows, indices, write):
    """Per block b of ELEM_BLOCK vertices, the vertices whose bit j (< g) is set: counted in
    rows[b, j], or (``write``) stored at indices[rows[b, j]], the block's next slot of row j."""
    for b in prange(rows.shape[0]):
        row = rows[b]
        for v in range(b * ELEM_BLOCK, min(n, (b + 1) * ELEM_BLOCK)):
            for q in range(words):
                x = prev[v * words + q]
                while x:
                    j = q * 64 + cttz(x)
                    x &= x - np.uint64(1)
                    if j < g:
                        if write:
                            indices[row[j]] = v
                        row[j] += 1


@njit(cache=True)
def reach_csr(prev, words, g, n):
    """The reach sets in the status array as CSR (row j = vertices with bit j set, ascending)."""
    nblocks = max(1, (n + ELEM_BLOCK - 1) // ELEM_BLOCK)
    counts = np.zeros((nblocks, g), dtype=np.int64)
    _reach(prev, words, g, n, counts, np.empty(0, dtype=np.int64), False)
    indptr = np.zeros(g + 1, dtype=np.int64)
    starts = np.empty((nblocks, g), dtype=np.int64)
    total = 0
    for j in range(g):
        indptr[j] = total
        for b in range(nblocks):
            starts[b, j] = total
            total += counts[b, j]
    indptr[g] = total
    indices = np.empty(total, dtype=np.int64)
    _reach(prev, words, g, n, starts, indices, True)
    return indptr, indices
