"""Runs of thin top-down levels on every thread, in one parallel region (deep, thin graphs).

Reference: the top-down step of Beamer, Asanovic, Patterson, "Direction-Optimizing
Breadth-First Search", SC'12 (GAP's ``TDStep``), as the driver in
``kernels.direction_optimizing`` runs it; this module changes how its small levels are
scheduled, not what they compute.

Why: a road network or a mesh has thousands of levels of a few hundred vertices each. Such a
level is cheap serially; split among threads it needs a way to start and end a level that
costs far less than the level. A parallel loop per level costs a region launch and a barrier
per level, and the barrier makes every level wait for the slowest thread -- on a machine where
another process holds a core, a descheduled thread stalls every level (docs/performance.md,
"Busy machines", has the figures).

How: one parallel loop with one iteration per thread runs the whole run of levels.
Iteration 0 is the *leader*: it runs the levels, and for a level of more than one chunk
(``CHUNK`` frontier vertices) it publishes the level -- its frontier, depth, which queue is
the frontier -- under a new *epoch* number. Every thread (the leader too) then takes chunks
from a shared word that carries the epoch's low 16 bits, so a compare-and-swap only ever
takes a chunk of the level it read; a chunk's vertices are expanded with an atomic OR claim
of the visited bit (or a byte claim: see below) and their discoveries appended to the next
queue through a thread-local buffer. The leader waits for the chunks that were *taken* to be
finished, never for a thread to show up: a helper that is descheduled (or never starts, or
runs after the leader) takes nothing and delays nothing -- the leader then does the level
alone. A level of one chunk the leader does alone with plain stores (``top_down.td_serial``).
Helpers wait by spinning with ``pause`` and, after ``SPIN_ROUNDS``, give the core away with
``sched_yield`` each round, so a long serial stretch does not take CPU time from the
processes beside the search.

Locality: even threads take chunks from the low end of the frontier and append to the front
of the next queue; odd threads take from the high end and append to its back, descending. The
frontier is thus two pieces, ``q[:a]`` and ``q[size - b:]``, and each thread keeps expanding
the part of the wavefront it discovered, whose cache lines its core already holds. The run's
last frontier is made contiguous again. Per-level counts are added to the shared words once
per thread and level: the only shared write per chunk is the compare-and-swap that takes it.

Byte claims: on these graphs the atomic OR of a claim costs more than the rest of the claim.
A run that lasts ``BYTE_AFTER`` levels (a deep graph's; a Kronecker search's runs are a level
or two) copies the bitmap into one byte per vertex (``seen``) and from then on claims with a
plain test and store of v's byte: bytes are never lost to a neighbour's store as bits in a
shared word are, but two threads can claim the same vertex in the same instant. Its entries
then carry the claiming parent (``v | parent << 32``) and a level expands an entry only if
that parent is the one left in ``parent[v]``: of a double claim exactly one copy is expanded,
counted and returned (the scout count the run checks may count a rare duplicate's edges
twice, which can only end the run early). At the run's end the frontier is unpacked without
the losing copies and the bitmap rebuilt from the bytes.

The run ends (returning to the driver) before a level outside its ``bounds`` (its scout count
over the cap of the row for the edges the run has explored), when the frontier is empty, at
``max_depth``, or when the statistics rows are full.

The direction policy: a run is not a level loop of its own. The driver's loop
(``direction_optimizing.level_loop``) decides the run's first level and alone steps the
policy state; the run never calls the rule. Its bounds come from the policy
(``policy.policy_top_down_run``, a staircase under the rule's line): within them every level
is one the rule takes top-down, past them the run returns and the driver decides the next
level itself, after reporting the run's explored edges. The run stays in one parallel region
because that is its point (no fork/join per level); the bounds end it early only near the
rule's threshold.

Invariants: as in the driver -- between levels ``depth[v] == level`` exactly for the
frontier, v's visited bit is set iff v is visited and then its parent and depth are final;
the two pieces of the next queue hold each newly visited vertex once. Control words (``ctl``)
are read and written with sequentially consistent atomics (``atomics.load_seq``...): a thread
that reads epoch e sees every store the leader made before publishing it, and the leader sees
every store of a chunk once the chunk is counted done.
"""
import numpy as np
from numba import prange

from ..jit import njit
from .atomics import U, add_seq, atomic_or, cas_seq, load_seq, spin_pause, store_seq, yield_cpu
from .frontier import bits_from_bytes, bytes_from_bits
from .levels import DIRECTION, DISCOVERED, EDGES_EXAMINED, FRONTIER, LEVEL, ticks
from .policy import TD, run_row
from .top_down import TD_BUFFER, td_serial

__all__ = ["run_thin_levels", "run_region", "CHUNK", "SPIN_ROUNDS", "SLOW_WAIT_TICKS", "BYTE_AFTER", "CTL_SIZE"]

CHUNK = 64            # frontier vertices per chunk (GAP's schedule(dynamic, 64))
SPIN_ROUNDS = 4096    # pause rounds a waiting helper spins before it yields the core each round
SLOW_WAIT_TICKS = 200_000   # a wait for taken chunks this long (~0.05-0.2 ms) means a helper lost its core
SOLO_LEVELS = 16            # then the leader runs this many levels alone, doubling while it recurs
MAX_SOLO_LEVELS = 4096
BYTE_AFTER = 16       # levels of a run claimed through the bitmap before it switches to byte claims

BITS, BYTES_IN, BYTES = 0, 1, 2   # a level's claims: bitmap atomics; bytes, from plain ids; bytes, from packed

# ctl slots: the shared words each on its own cache line, the level's data on one line
_EPOCH, _TAKE, _DONE, _SCOUT, _TAILF, _TAILB, _EXP, _EXAM = 0, 8, 16, 24, 32, 40, 48, 56
_A, _B, _LEVEL, _PARITY, _CA, _CSIZE, _MODE = 64, 65, 66, 67, 68, 69, 70
_OUT_QSIZE, _OUT_LEVEL, _OUT_SCOUT, _OUT_PARITY, _OUT_NLEV, _OUT_EXPLORED = 72, 73, 74, 75, 76, 77
CTL_SIZE = 80
_M24 = (1 << 24) - 1
_MAX_CHUNKS = 1 << 23
_LOW32 = (1 << 32) - 1


@njit(inline="always", cache=True)
def _take(ctl, e16, back):
    """A chunk of the level tagged ``e16`` not yet taken -- the lowest for a front thread, the
    highest for a back one -- or -1 (none left, or the level is over)."""
    while True:
        x = load_seq(ctl, _TAKE)
        lo = (x >> 24) & _M24
        hi = x & _M24
        if (x >> 48) != e16 or lo >= hi:
            return -1
        if back:
            if cas_seq(ctl, _TAKE, x, x - 1):
                return hi - 1
        elif cas_seq(ctl, _TAKE, x, x + (1 << 24)):
            return lo


@njit(inline="always", cache=True)
def _flush(buf, nbuf, dst, ctl, back):
    """Append buf[:nbuf] to the thread's end of ``dst``: ascending from the front, descending from the back."""
    if nbuf == 0:
        return
    if back:
        start = dst.size - 1 - add_seq(ctl, _TAILB, nbuf)
        for k in range(nbuf):
            dst[U(start - k)] = buf[U(k)]
    else:
        start = add_seq(ctl, _TAILF, nbuf)
        for k in range(nbuf):
            dst[U(start + k)] = buf[U(k)]


@njit(inline="always", cache=True)
def _expand_range(indptr, indices, parent, depth, visited, seen, src, lo, hi, dst, ctl, back, nl, mode, buf, counts):
    """Expand the frontier entries src[lo:hi] into the thread's buffer (flushed to its end of
    ``dst`` when full). ``counts`` = (buffer fill, vertices expanded, their out-edges, out-edges
    of the vertices claimed), returned updated.

    ``mode`` BITS: claim by an atomic OR in ``visited``, entries are vertex ids. BYTES_IN /
    BYTES: claim by a plain store in ``seen`` (one byte per vertex: no lost updates between
    threads, but two threads may both claim a vertex in the same instant); entries written are
    ``v | parent << 32``, and a BYTES level expands an entry only if its parent is the one that
    stayed in ``parent[v]`` -- of a doubly claimed vertex exactly one entry survives."""
    nbuf, nexp, exam, scout = counts
    for i in range(lo, hi):
        u = src[U(i)]
        if mode == BYTES:
            p = u >> 32
            u = u & _LOW32
            if parent[U(u)] != p:
                continue
        first = indptr[U(u)]
        last = indptr[U(u + 1)]
        nexp += 1
        exam += last - first
        for j in range(first, last):
            v = indices[U(j)]
            if mode == BITS:
                w = U(v >> 6)
                m = np.uint64(1) << np.uint64(v & 63)
                if visited[w] & m or atomic_or(visited, w, m) & m:
                    continue
                item = np.int64(v)
            else:
                if seen[U(v)]:
                    continue
                seen[U(v)] = 1
                item = np.int64(v) | (u << 32)
            parent[U(v)] = u
            depth[U(v)] = nl
            buf[U(nbuf)] = item
            nbuf += 1
            scout += indptr[U(v + 1)] - indptr[U(v)]
            if nbuf == TD_BUFFER:
                _flush(buf, nbuf, dst, ctl, back)
                nbuf = 0
    return nbuf, nexp, exam, scout


@njit(cache=True)
def _expand_chunks(indptr, indices, parent, depth, visited, seen, src, dst, ctl, e16, back, mode, buf):
    """Take and expand chunks of the level tagged ``e16`` until none is left (every thread runs
    this). The frontier is ``src[:a]`` (chunks 0 .. ca-1) and ``src[size - b:]`` (chunks ca ..).
    The thread's counts are added to the shared words once, at the end: the only shared write
    per chunk is the compare-and-swap that takes it."""
    a = load_seq(ctl, _A)
    b = load_seq(ctl, _B)
    ca = load_seq(ctl, _CA)
    csize = load_seq(ctl, _CSIZE)
    nl = load_seq(ctl, _LEVEL) + 1
    cap = src.size
    counts = (0, 0, 0, 0)
    done = 0
    while True:
        k = _take(ctl, e16, back)
        if k < 0:
            break
        done += 1
        if k < ca:
            lo = k * csize
            hi = min(a, lo + csize)
        else:
            lo = cap - b + (k - ca) * csize
            hi = min(cap, lo + csize)
        counts = _expand_range(indptr, indices, parent, depth, visited, seen, src, lo, hi, dst, ctl, back, nl,
                               mode, buf, counts)
    if done:
        nbuf, nexp, exam, scout = counts
        _flush(buf, nbuf, dst, ctl, back)
        add_seq(ctl, _EXP, nexp)
        add_seq(ctl, _EXAM, exam)
        add_seq(ctl, _SCOUT, scout)
        add_seq(ctl, _DONE, done)


@njit(cache=True)
def _help(indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, back):
    """A helper thread: join each published level until the leader says the run is over."""
    buf = np.empty(TD_BUFFER, dtype=next_queue.dtype)
    seen_epoch = 0
    spins = 0
    while True:
        epoch = load_seq(ctl, _EPOCH)
        if epoch < 0:
            return
        if epoch == seen_epoch:
            spin_pause()
            spins += 1
            if spins > SPIN_ROUNDS:
                yield_cpu()
            continue
        seen_epoch = epoch
        spins = 0
        mode = load_seq(ctl, _MODE)
        if load_seq(ctl, _PARITY) == 0:
            _expand_chunks(indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, epoch & 0xFFFF,
                           back, mode, buf)
        else:
            _expand_chunks(indptr, indices, parent, depth, visited, seen, next_queue, queue, ctl, epoch & 0xFFFF,
                           back, mode, buf)


@njit(cache=True)
def _contiguous(q, a, b):
    """Move the back piece ``q[size - b:]`` of a two-piece frontier to ``q[a:a + b]``."""
    start = q.size - b
    if b and start != a:
        for i in range(b):
            q[U(a + i)] = q[U(start + i)]


@njit(cache=True)
def _unpack(q, a, b, parent, indptr):
    """The packed two-piece frontier of a BYTES level as plain ids in ``q[:k]``, the entries of
    doubly claimed vertices that lost dropped; returns (k, their out-degree sum)."""
    k = 0
    scout = 0
    for piece in range(2):
        lo, hi = (0, a) if piece == 0 else (q.size - b, q.size)
        for i in range(lo, hi):
            e = q[U(i)]
            v = e & _LOW32
            if parent[U(v)] == e >> 32:
                q[U(k)] = v
                k += 1
                scout += indptr[U(v + 1)] - indptr[U(v)]
    return k, scout


@njit(cache=True)
def _publish(ctl, epoch, a, b, level, parity, mode):
    """Make level ``epoch`` (frontier pieces a, b) available to every thread; returns its chunk count."""
    csize = max(CHUNK, (a + b) // _MAX_CHUNKS + 1)
    ca = (a + csize - 1) // csize
    nch = ca + (b + csize - 1) // csize
    for slot in (_SCOUT, _EXP, _EXAM, _DONE, _TAILF, _TAILB):
        store_seq(ctl, slot, 0)
    store_seq(ctl, _A, a)
    store_seq(ctl, _B, b)
    store_seq(ctl, _LEVEL, level)
    store_seq(ctl, _PARITY, parity)
    store_seq(ctl, _CA, ca)
    store_seq(ctl, _CSIZE, csize)
    store_seq(ctl, _MODE, mode)
    store_seq(ctl, _TAKE, ((epoch & 0xFFFF) << 48) | nch)
    store_seq(ctl, _EPOCH, epoch)
    return nch


@njit(cache=True)
def _lead(indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, qsize, scout, level,
          max_depth, bounds, stats, times, nlev, back):
    """The leader (a front thread: ``back`` False): run levels (module docstring), then end the run."""
    buf = np.empty(TD_BUFFER, dtype=next_queue.dtype)
    # typed counters (numba compiles a callee once more for a literal 0); solo: levels the leader
    epoch = parity = b = solo = np.int64(0)     # will run alone (helpers found slow)
    a, backoff, claims = qsize, np.int64(SOLO_LEVELS), np.int64(BITS)
    row0 = nlev
    explored = step = np.int64(0)     # step: the row of ``bounds`` the run is in
    while a + b > 0 and level != max_depth and nlev < stats.shape[0]:
        if nlev > row0:
            step = run_row(bounds, step, explored)
            if step == bounds.shape[0] or scout > bounds[step, 1]:
                break
        if claims == BITS and seen.size and nlev - row0 == BYTE_AFTER:
            bytes_from_bits(visited, seen.view(np.uint64))
            claims = BYTES_IN
        t0 = ticks()
        src, dst = (queue, next_queue) if parity == 0 else (next_queue, queue)
        total = a + b
        if total <= CHUNK or solo > 0:
            solo = max(solo - 1, 0)
            _contiguous(src, a, b)
            if claims == BITS:
                nq, next_scout = td_serial(indptr, indices, parent, depth, visited, src, total, dst, level)
                na, nb, nexp, exam = nq, 0, total, scout
            else:
                store_seq(ctl, _TAILF, 0)
                nbuf, nexp, exam, next_scout = _expand_range(indptr, indices, parent, depth, visited, seen, src, 0,
                                                             total, dst, ctl, back, level + 1, claims, buf,
                                                             (0, 0, 0, 0))
                _flush(buf, nbuf, dst, ctl, back)
                na, nb = load_seq(ctl, _TAILF), 0
        else:
            epoch += 1
            nch = _publish(ctl, epoch, a, b, level, parity, claims)
            _expand_chunks(indptr, indices, parent, depth, visited, seen, src, dst, ctl, epoch & 0xFFFF, back,
                           claims, buf)
            t_wait = ticks()
            while load_seq(ctl, _DONE) < nch:
                spin_pause()
            if ticks() - t_wait > SLOW_WAIT_TICKS:        # a helper was descheduled holding a chunk
                solo = backoff
                backoff = min(2 * backoff, MAX_SOLO_LEVELS)
            else:
                backoff = max(backoff // 2, SOLO_LEVELS)
            na, nb = load_seq(ctl, _TAILF), load_seq(ctl, _TAILB)
            nexp, exam, next_scout = load_seq(ctl, _EXP), load_seq(ctl, _EXAM), load_seq(ctl, _SCOUT)
        explored += exam
        if claims == BYTES:
            stats[nlev - 1, DISCOVERED] = nexp      # the previous level's claims, duplicates dropped
        row = stats[nlev]
        row[LEVEL], row[DIRECTION], row[FRONTIER], row[EDGES_EXAMINED], row[DISCOVERED] = level, TD, nexp, exam, na + nb
        times[nlev] = ticks() - t0
        nlev += 1
        a, b = na, nb
        scout = next_scout
        parity ^= 1
        level += 1
        if claims != BITS:
            claims = BYTES
    store_seq(ctl, _EPOCH, -1)
    q = queue if parity == 0 else next_queue
    if claims == BYTES:
        a, scout = _unpack(q, a, b, parent, indptr)
        b = 0
        stats[nlev - 1, DISCOVERED] = a
        bits_from_bytes(seen.view(np.uint64), visited)
    else:
        _contiguous(q, a, b)
    ctl[_OUT_QSIZE] = a + b
    ctl[_OUT_LEVEL] = level
    ctl[_OUT_SCOUT] = scout
    ctl[_OUT_PARITY] = parity
    ctl[_OUT_NLEV] = nlev
    ctl[_OUT_EXPLORED] = explored


@njit(parallel=True, cache=True)
def run_region(indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, qsize, scout, level, max_depth,
               bounds, stats, times, nlev, threads):
    """The run's parallel region, one iteration per thread (``run_thin_levels`` is its caller: a
    kernel of its own, so that ``jit.prepare`` can compile it in a second process)."""
    store_seq(ctl, _EPOCH, 0)
    for t in prange(threads):
        back = t % 2 == 1        # one bool type for every caller of _expand_chunks: it compiles once
        if t == 0:
            _lead(indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, qsize, scout, level,
                  max_depth, bounds, stats, times, nlev, back)
        else:
            _help(indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, back)


@njit(inline="always", cache=True)
def run_thin_levels(indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, qsize, scout, level,
                    max_depth, bounds, stats, times, nlev, threads):
    """Run top-down levels from the frontier ``queue[:qsize]`` (scout count ``scout``, at depth
    ``level``) on ``threads`` threads until the run ends (module docstring): the first level always
    runs, a later one only if it is within ``bounds`` (rows of (explored limit, scout cap) that
    ``policy.policy_top_down_run`` fills, read by ``policy.run_row``). Rows go to
    ``stats``/``times`` from row ``nlev`` (columns of ``levels.LEVEL_FIELDS``; the run stops when
    they are full).

    ``seen``: scratch of one byte per vertex, 64 per ``visited`` word (uint8, size a multiple of
    8), for runs longer than BYTE_AFTER levels; empty: bitmap claims throughout (required when
    ids do not fit 31 bits, as entries then pack a vertex and its parent in one int64).

    Returns (qsize, scout, level, nlev, swapped, explored): ``swapped`` True when the frontier is
    now in ``next_queue[:qsize]`` (the caller swaps its names); ``explored`` the out-edges of the
    run's frontiers, for the driver's policy (``policy.policy_explored``).
    """
    run_region(indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, qsize, scout, level, max_depth,
               bounds, stats, times, nlev, threads)
    return (ctl[_OUT_QSIZE], ctl[_OUT_SCOUT], ctl[_OUT_LEVEL], ctl[_OUT_NLEV], ctl[_OUT_PARITY] == 1,
            ctl[_OUT_EXPLORED])
