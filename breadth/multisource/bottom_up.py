"""The bottom-up level of bitwise iBFS, with frontier identification fused in (Liu, Huang, Hu, SIGMOD'16).

Section 4 of the paper: every vertex v that is not *full* (visited by every
instance) ORs the status words ``BSA_k[u]`` of its in-neighbours u into
``BSA_{k+1}[v]`` and stops at the first neighbour that makes it full (early
termination). One thread owns v, so no atomics. Only in-neighbours in the
joint frontier (``front``: the vertices whose bits changed at level k) are
read: a bit u got earlier reached v one level later, so it is in v already.
``idle`` holds the bits of instances whose last level found nothing: no
neighbour can give them to v, so early termination waits only for the running
instances.

Algorithm 2 (frontier identification: ``BSA_{k+1} XOR BSA_k``) runs in the same
loop: the thread that finished v knows its old and new words, so it tallies
the new bits (per-instance counts, depths), marks v in ``next_front`` (the next
JFQ) and keeps the direction counters, without a second pass over the status
arrays. The two copies are double-buffered instead of copied: the level reads
``prev`` and writes ``status[v]`` for every vertex in ``unfull``; the caller
swaps them afterwards.

A vertex is *settled* when ``prev`` has the bit of every instance still running
(``prev | idle`` all ones): an idle instance has an empty frontier and never
reaches anything again, so a settled vertex never changes. (Full is the special
case; with a source in a small component no vertex of the rest is ever full,
and without this rule every bottom-up level would keep visiting all of them.)

Invariants. On entry, ``prev`` holds BSA_k for every vertex; ``status`` equals
``prev`` on every vertex outside ``unfull``. On exit, ``status`` holds BSA_{k+1}
for every vertex; a vertex is dropped from ``unfull`` when ``prev`` already shows
it settled (``prev`` is copied into ``status`` then), so one that settles at
this level stays one more level and the invariant holds after the swap. After
the swap the two copies differ exactly on ``next_front``. A top-down level
never changes a settled vertex either: an idle instance's bit in a JFQ vertex
is already in all its out-neighbours (that instance's search is complete).

W = 8 (the default from 449 sources on) runs ``bottom_up8``'s block kernel: the same
level with the vertex's words in registers, an in-neighbour loop picked by the
JFQ's density and batched counting; ``_bu_block`` here serves every other W. Both are the
bottom-up walk of every kernel in breadth (``kernels.bottom_up.walk_words``, with ``walk``'s
todo and done), each with its own per-vertex visit: the in-neighbour OR with early termination.
"""
import numpy as np
from numba import prange

from ..jit import njit
from ..kernels.atomics import U
from ..kernels.bottom_up import SETTLED
from ..kernels.frontier import WORD_BLOCK
from .bottom_up8 import bu_block8, sparse_front
from .status import ALL, PLANES, SERIAL_BLOCKS, flush_counts, record_new
from .walk import (EXAMINED, NEXT_FRONT, SCOUT, UNEXPLORED, UNFULL, ctx_type, finish, level_ctx, rows, new_counts,
                   walk_block)

__all__ = ["bu_identify", "sync_queue"]

_Ctx = ctx_type("_Ctx", __name__, ("words",))     # the general visit's ctx: W words per vertex


@njit(inline="always", cache=True)
def _visit(ctx, v):
    """One unfull vertex v of any W: OR the rows of its JFQ in-neighbours until every running
    instance has reached it, store the row and tally its new bits (``walk``'s visit)."""
    in_indptr, in_indices, prev, status, idle, front = rows(ctx)
    acc = ctx.acc
    words = ctx.words
    v = np.int64(v)
    vb = v * words
    done = ALL
    for q in range(words):
        a = prev[U(vb + q)]
        acc[U(q)] = a
        done &= a | idle[U(q)]
    if done == ALL:          # settled: the same in both copies from now on, leave unfull
        for q in range(words):
            status[U(vb + q)] = acc[U(q)]
        return np.int64(SETTLED), np.int64(0), np.int64(0)
    examined = 0
    for j in range(in_indptr[U(v)], in_indptr[U(v + 1)]):     # some running instance lacks v
        u = in_indices[U(j)]
        examined += 1
        if not (front[U(u >> 6)] >> np.uint64(u & 63)) & np.uint64(1):
            continue         # not in the JFQ: its older bits are in v already
        ub = u * words
        done = ALL
        for q in range(words):
            a = acc[q] | prev[U(ub + q)]
            acc[q] = a
            done &= a | idle[q]
        if done == ALL:      # early termination: every running instance has reached v
            break
    moved = np.uint64(0)
    for q in range(words):
        a = acc[q]
        d = a ^ prev[U(vb + q)]
        status[U(vb + q)] = a
        if d:
            moved |= d
            record_new(d, q, vb + q, ctx.counters, ctx.level, ctx.dplanes, ctx.write_depth)
    return finish(ctx, v, done == ALL, moved != 0, examined)     # done: as of the last in-neighbour ORed


@njit(cache=True)
def _bu_block(b, indptr, in_indptr, in_indices, words, prev, status, unfull, idle, front, next_front, tallies,
              level, dplanes, write_depth, sums):
    ctx = level_ctx(_Ctx, unfull, next_front, indptr, in_indptr, in_indices, prev, status, idle, front, level, dplanes,
                    write_depth, np.zeros((words, PLANES), dtype=np.uint64), np.empty(words, dtype=np.uint64),
                    new_counts(0), (words,))
    walk_block(b, _visit, ctx, sums)
    flush_counts(ctx.counters, tallies)      # ctx used after the walk: it keeps the block's scratch alive


@njit(inline="always", cache=True)
def _block(b, indptr, in_indptr, in_indices, words, prev, status, unfull, idle, front, next_front, tallies, level,
           dplanes, write_depth, sums, sparse):
    """Block b of the level: W = 8's kernel (``sparse`` picks its in-neighbour loop), else the general one."""
    if words == 8:
        bu_block8(b, indptr, in_indptr, in_indices, prev, status, unfull, idle, front, next_front, tallies, level,
                  dplanes, write_depth, sums, sparse)
    else:
        _bu_block(b, indptr, in_indptr, in_indices, words, prev, status, unfull, idle, front, next_front, tallies,
                  level, dplanes, write_depth, sums)


@njit(parallel=True, cache=True)
def _bu_parallel(nblocks, indptr, in_indptr, in_indices, words, prev, status, unfull, idle, front, next_front,
                 tallies, level, dplanes, write_depth, sums, sparse):
    for b in prange(nblocks):
        _block(b, indptr, in_indptr, in_indices, words, prev, status, unfull, idle, front, next_front, tallies,
               level, dplanes, write_depth, sums, sparse)


@njit(cache=True)
def bu_identify(indptr, in_indptr, in_indices, words, prev, status, unfull, idle, front, next_front, tallies,
                level, dplanes, write_depth, front_edges):
    """Bottom-up level ``level`` (reads ``prev``, writes ``status``) and its identification.

    ``tallies`` (``status.new_tallies``) get the vertices each instance reached at ``level`` (and the depth planes
    ``dplanes`` their depths when ``write_depth``, see ``depths``). ``front_edges``: the
    JFQ's out-degree sum, its scout count (picks W = 8's in-neighbour loop). Returns (in-edges
    examined, next JFQ size, its scout count, vertices still not full, their in-degree sum).
    W = 8 runs ``bottom_up8``'s block kernel, any other W the general ``_bu_block``.
    """
    nblocks = (unfull.size + WORD_BLOCK - 1) // WORD_BLOCK
    sums = np.zeros((max(nblocks, 1), 5), dtype=np.int64)
    sparse = sparse_front(front_edges, indptr[indptr.size - 1])
    if nblocks <= SERIAL_BLOCKS:
        for b in range(nblocks):
            _block(b, indptr, in_indptr, in_indices, words, prev, status, unfull, idle, front, next_front, tallies,
                   level, dplanes, write_depth, sums, sparse)
    else:
        _bu_parallel(nblocks, indptr, in_indptr, in_indices, words, prev, status, unfull, idle, front,
                     next_front, tallies, level, dplanes, write_depth, sums, sparse)
    return (sums[:, EXAMINED].sum(), sums[:, NEXT_FRONT].sum(), sums[:, SCOUT].sum(), sums[:, UNFULL].sum(),
            sums[:, UNEXPLORED].sum())


@njit(parallel=True, cache=True)
def _sync_parallel(words, prev, status, queue, qsize):
    for i in prange(qsize):
        vb = queue[i] * words
        for q in range(words):
            status[vb + q] = prev[vb + q]


@njit(cache=True)
def sync_queue(words, prev, status, queue, qsize):
    """status[v] := prev[v] for the queue's vertices: after a swapped bottom-up level the copies
    differ only on its JFQ, and a top-down level needs them equal."""
    if qsize * words <= 1 << 14:
        for i in range(qsize):
            vb = queue[i] * words
            for q in range(words):
                status[vb + q] = prev[vb + q]
    else:
        _sync_parallel(words, prev, status, queue, qsize)
