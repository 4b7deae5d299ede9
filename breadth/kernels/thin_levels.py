"""Runs of thin top-down levels on every thread, in one parallel region (deep, thin graphs).

Reference: the top-down step of Beamer, Asanovic, Patterson, "Direction-Optimizing
Breadth-First Search", SC'12 (GAP's ``TDStep``), as the driver in
``kernels.direction_optimizing`` runs it; this module changes how its small levels are
scheduled, not what they compute.

Why: a road network or a mesh has thousands of levels of a few hundred vertices each
(road-20: ~1,500 levels, ~700 vertices and ~2,000 edges each). Run serially such a level
costs ~25 us; split among threads it needs a way to start and end a level that costs far
less than the level. A parallel loop per level costs a region launch and a barrier per
level, and the barrier makes every level wait for the slowest thread -- on a machine where
another process holds a core, a descheduled thread stalls every level (the ×10 collapse
``README`` "Busy machines" describes).

How: one parallel loop with one iteration per thread runs the whole run of levels.
Iteration 0 is the *leader*: it runs the level loop, and for a level of more than one chunk
(``CHUNK`` frontier vertices) it publishes the level -- its frontier size, depth, which
queue is the frontier -- under a new *epoch* number. Every thread (the leader too) then
takes chunks from a shared counter that carries the epoch in its high 32 bits, so a
compare-and-swap only ever takes a chunk of the level it read; a chunk's vertices are
expanded with an atomic OR claim (``visit_tree``'s rule) and their discoveries appended to
the next queue through a thread-local buffer. The leader waits for the chunks that were
*taken* to be finished, never for a thread to show up: a helper that is descheduled (or
never starts, or runs after the leader) takes nothing and delays nothing -- the leader then
does the level alone, as the serial path would. A level of one chunk the leader does alone
with plain stores (``top_down.td_serial``): a path of single vertices pays no
synchronisation at all. Helpers wait by spinning with ``pause`` and, after ``SPIN_ROUNDS``,
give the core away with ``sched_yield`` each round, so a long serial stretch does not take
CPU time from the processes beside the search.

The run ends (returning to the driver, which then runs the level with its parallel
edge-balanced ``td_step`` or goes bottom-up) before a level whose scout count exceeds
``max_scout`` or for which ``policy.go_bottom_up`` says bottom-up, when the frontier is
empty, at ``max_depth``, or when the statistics rows are full.

Invariants: as in the driver -- between levels ``depth[v] == level`` exactly for the
frontier, v's visited bit is set iff v is visited and then its parent and depth are final;
the next queue holds each newly visited vertex once. Control words (``ctl``) are read and
written with sequentially consistent atomics (``atomics.load_seq``...): a thread that reads
epoch e sees every store the leader made before publishing it, and the leader sees every
store of a chunk once the chunk is counted done.
"""
import numpy as np
from numba import njit, prange

from .atomics import U, add_seq, atomic_or, cas_seq, load_seq, spin_pause, store_seq, yield_cpu
from .levels import DIRECTION, DISCOVERED, EDGES_EXAMINED, FRONTIER, LEVEL, ticks
from .policy import TD, go_bottom_up
from .top_down import TD_BUFFER, flush_buffer, td_serial

__all__ = ["run_thin_levels", "CHUNK", "SPIN_ROUNDS", "CTL_SIZE"]

CHUNK = 64            # frontier vertices per chunk (GAP's schedule(dynamic, 64))
SPIN_ROUNDS = 4096    # pause rounds a waiting helper spins before it yields the core each round

# ctl slots: the shared words each on its own cache line, the level's data on one line
_EPOCH, _NEXT, _DONE, _SCOUT = 0, 8, 16, 24
_QSIZE, _LEVEL, _PARITY, _NCHUNKS = 32, 33, 34, 35
_OUT_QSIZE, _OUT_LEVEL, _OUT_SCOUT, _OUT_PARITY, _OUT_NLEV, _OUT_UNEXPLORED = 40, 41, 42, 43, 44, 45
CTL_SIZE = 48
_LOW = (1 << 32) - 1


@njit(inline="always", cache=True)
def _take(ctl, epoch, nchunks):
    """The index of a chunk of level ``epoch`` not yet taken, or -1 (none left, or the level is over)."""
    while True:
        x = load_seq(ctl, _NEXT)
        if (x >> 32) != epoch or (x & _LOW) >= nchunks:
            return -1
        if cas_seq(ctl, _NEXT, x, x + 1):
            return x & _LOW


@njit(cache=True)
def _expand_chunks(indptr, indices, parent, depth, visited, src, dst, tail, ctl, epoch, qsize, nchunks, level,
                   buf):
    """Take and expand chunks of level ``epoch`` until none is left (every thread runs this)."""
    nl = level + 1
    while True:
        k = _take(ctl, epoch, nchunks)
        if k < 0:
            return
        nbuf = 0
        scout = 0
        for i in range(k * CHUNK, min(qsize, (k + 1) * CHUNK)):
            u = src[U(i)]
            for j in range(indptr[U(u)], indptr[U(u + 1)]):
                v = indices[U(j)]
                w = U(v >> 6)
                m = np.uint64(1) << np.uint64(v & 63)
                if not visited[w] & m and not atomic_or(visited, w, m) & m:
                    parent[U(v)] = u
                    depth[U(v)] = nl
                    buf[U(nbuf)] = v
                    nbuf += 1
                    scout += indptr[U(v + 1)] - indptr[U(v)]
                    if nbuf == TD_BUFFER:
                        flush_buffer(buf, nbuf, dst, tail)
                        nbuf = 0
        flush_buffer(buf, nbuf, dst, tail)
        add_seq(ctl, _SCOUT, scout)
        add_seq(ctl, _DONE, 1)


@njit(cache=True)
def _help(indptr, indices, parent, depth, visited, queue, next_queue, tail, ctl):
    """A helper thread: join each published level until the leader says the run is over."""
    buf = np.empty(TD_BUFFER, dtype=next_queue.dtype)
    seen = 0
    spins = 0
    while True:
        epoch = load_seq(ctl, _EPOCH)
        if epoch < 0:
            return
        if epoch == seen:
            spin_pause()
            spins += 1
            if spins > SPIN_ROUNDS:
                yield_cpu()
            continue
        seen = epoch
        spins = 0
        qsize = load_seq(ctl, _QSIZE)
        level = load_seq(ctl, _LEVEL)
        nchunks = load_seq(ctl, _NCHUNKS)
        if load_seq(ctl, _PARITY) == 0:
            _expand_chunks(indptr, indices, parent, depth, visited, queue, next_queue, tail, ctl, epoch, qsize,
                           nchunks, level, buf)
        else:
            _expand_chunks(indptr, indices, parent, depth, visited, next_queue, queue, tail, ctl, epoch, qsize,
                           nchunks, level, buf)


@njit(cache=True)
def _lead(indptr, indices, parent, depth, visited, queue, next_queue, tail, ctl, qsize, scout, level,
          unexplored, mode, alpha, max_depth, max_scout, stats, times, nlev):
    """The leader: run levels (see the module docstring), then end the run for the helpers."""
    buf = np.empty(TD_BUFFER, dtype=next_queue.dtype)
    epoch = 0
    parity = 0
    first = True
    while qsize > 0 and level != max_depth and nlev < stats.shape[0]:
        if not first and (scout > max_scout or go_bottom_up(mode, False, scout, unexplored, alpha)):
            break
        first = False
        unexplored -= scout
        t0 = ticks()
        nchunks = (qsize + CHUNK - 1) // CHUNK
        src, dst = (queue, next_queue) if parity == 0 else (next_queue, queue)
        if nchunks == 1:
            nq, next_scout = td_serial(indptr, indices, parent, depth, visited, src, qsize, dst, level)
        else:
            epoch += 1
            tail[0] = 0
            store_seq(ctl, _SCOUT, 0)
            store_seq(ctl, _DONE, 0)
            store_seq(ctl, _QSIZE, qsize)
            store_seq(ctl, _LEVEL, level)
            store_seq(ctl, _PARITY, parity)
            store_seq(ctl, _NCHUNKS, nchunks)
            store_seq(ctl, _NEXT, epoch << 32)
            store_seq(ctl, _EPOCH, epoch)
            _expand_chunks(indptr, indices, parent, depth, visited, src, dst, tail, ctl, epoch, qsize, nchunks,
                           level, buf)
            while load_seq(ctl, _DONE) < nchunks:
                spin_pause()
            nq = load_seq(tail, 0)
            next_scout = load_seq(ctl, _SCOUT)
        stats[nlev, LEVEL] = level
        stats[nlev, DIRECTION] = TD
        stats[nlev, FRONTIER] = qsize
        stats[nlev, EDGES_EXAMINED] = scout
        stats[nlev, DISCOVERED] = nq
        times[nlev] = ticks() - t0
        nlev += 1
        qsize = nq
        scout = next_scout
        parity ^= 1
        level += 1
    store_seq(ctl, _EPOCH, -1)
    ctl[_OUT_QSIZE] = qsize
    ctl[_OUT_LEVEL] = level
    ctl[_OUT_SCOUT] = scout
    ctl[_OUT_PARITY] = parity
    ctl[_OUT_NLEV] = nlev
    ctl[_OUT_UNEXPLORED] = unexplored


@njit(parallel=True, cache=True)
def _run(indptr, indices, parent, depth, visited, queue, next_queue, tail, ctl, qsize, scout, level, unexplored,
         mode, alpha, max_depth, max_scout, stats, times, nlev, threads):
    store_seq(ctl, _EPOCH, 0)
    for t in prange(threads):
        if t == 0:
            _lead(indptr, indices, parent, depth, visited, queue, next_queue, tail, ctl, qsize, scout, level,
                  unexplored, mode, alpha, max_depth, max_scout, stats, times, nlev)
        else:
            _help(indptr, indices, parent, depth, visited, queue, next_queue, tail, ctl)


@njit(cache=True)
def run_thin_levels(indptr, indices, parent, depth, visited, queue, next_queue, tail, ctl, qsize, scout, level,
                    unexplored, mode, alpha, max_depth, max_scout, stats, times, nlev, threads):
    """Run top-down levels from the frontier ``queue[:qsize]`` (scout count ``scout``, at depth
    ``level``, ``unexplored`` edges left) on ``threads`` threads until the run ends (module
    docstring); the first level always runs. Rows go to ``stats``/``times`` from row ``nlev``
    (columns of ``levels.LEVEL_FIELDS``; the run stops when they are full).

    Returns (qsize, scout, level, unexplored, nlev, swapped): ``swapped`` True when the
    frontier is now in ``next_queue`` (the caller swaps its names).
    """
    _run(indptr, indices, parent, depth, visited, queue, next_queue, tail, ctl, qsize, scout, level, unexplored,
         mode, alpha, max_depth, max_scout, stats, times, nlev, threads)
    return (ctl[_OUT_QSIZE], ctl[_OUT_SCOUT], ctl[_OUT_LEVEL], ctl[_OUT_UNEXPLORED], ctl[_OUT_NLEV],
            ctl[_OUT_PARITY] == 1)
