"""Joint traversal of one group of BFS instances: bitwise iBFS (Liu, Huang, Hu, SIGMOD'16).

All instances of a group share one joint frontier queue (JFQ: each vertex
once, however many instances have it in their frontier) and one bitwise status
array (see ``status``). Algorithm 1 of the paper, level k+1:

* top-down: every JFQ vertex f ORs its status word(s) ``BSA_k[f]`` into each
  out-neighbour v with an atomic OR (threads share status words). ``BSA_k[f]``
  may hold bits of instances that reached f earlier; those bits are already set
  in v (f's neighbours were reached one level after f), so the OR only adds the
  bits of the instances for which f is a frontier. The OR is skipped when v
  already has every bit, and the first thread to grow v appends it to the next
  JFQ (deduplicated through the ``changed`` bitmap).
* bottom-up: every vertex f that is not full ORs ``BSA_k[v]`` of its
  in-neighbours into its own ``BSA_{k+1}[f]`` (no atomics: one thread per f)
  and stops at the first neighbour that makes it full (*early termination*);
  ``bottom_up.bu_identify``, which identifies the new frontier in the same loop.

Direction switching is per group, by the shared policy state (``kernels.policy``:
``policy_decide``, the unexplored edges reported as measured) on this traversal's own measures: go
bottom-up when the JFQ's out-edges (scout count) exceed the in-edges of
not-full vertices / alpha, back to top-down when the JFQ holds fewer than
n / beta vertices and shrinks. The top-down step is the shared block walk
(``kernels.top_down.walk_block``) with an OR-ing visit.

Invariants between levels: ``prev`` holds BSA_level; ``status`` equals it
except, after a bottom-up level (which swaps the two), on the JFQ, which a
top-down level first copies over (``sync_queue``). The JFQ is the queue (after
top-down) or the ``changed`` bitmap (after bottom-up); the ``unfull`` bitmap
holds every vertex with in-edges that is not full or settled (``bottom_up``: no
running instance lacks it; it may also hold vertices that just became so, which
bottom-up drops one level later).
"""
import numpy as np
from numba import njit, prange

from ..kernels import levels as lv
from ..kernels.atomics import U, atomic_or
from ..kernels.frontier import bitmap_to_queue, fill, queue_to_bitmap
from ..kernels.policy import (BOTTOM_UP, BU, DIRECTION_OPTIMIZING, TD, TOP_DOWN, policy_after_bottom_up, policy_decide,
                              policy_explored, policy_measured, policy_state)
from ..kernels.top_down import TD_EDGE_BLOCK, frontier_edge_offsets, walk_block
from .bottom_up import bu_identify, sync_queue
from .status import SERIAL_BLOCKS, identify_sparse, seed_group, sum_tallies

__all__ = ["traverse", "td_step", "LEVEL_FIELDS", "DIRECTION_OPTIMIZING", "TOP_DOWN", "BOTTOM_UP"]

LEVEL_FIELDS = lv.LEVEL_FIELDS + ("joint_frontier",)
JOINT_FRONTIER = len(lv.LEVEL_FIELDS)

_PREV, _STATUS, _CHANGED, _WORDS = range(4)      # the top-down visit's ctx


@njit(inline="always", cache=True)
def _visit_or(ctx, u, v):
    """OR frontier vertex u's bits into v; v joins the next JFQ the first time it grows (``changed``)."""
    words = ctx[_WORDS]
    grew = False
    for q in range(words):
        bits = ctx[_PREV][U(u * words + q)]
        if bits & ~ctx[_STATUS][U(v * words + q)]:
            atomic_or(ctx[_STATUS], v * words + q, bits)
            grew = True
    if grew:
        m = np.uint64(1) << np.uint64(v & 63)
        if not (ctx[_CHANGED][U(v >> 6)] & m) and not (atomic_or(ctx[_CHANGED], v >> 6, m) & m):
            return np.int64(v), np.int64(0)
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def _td_block(b, indptr, indices, words, prev, status, queue, qsize, offsets, changed, next_queue, tail):
    walk_block(b, indptr, indices, queue, qsize, offsets, _visit_or, (prev, status, changed, words), next_queue,
               tail)


@njit(parallel=True, cache=True)
def _td_parallel(nblocks, indptr, indices, words, prev, status, queue, qsize, offsets, changed, next_queue,
                 tail):
    for b in prange(nblocks):
        _td_block(b, indptr, indices, words, prev, status, queue, qsize, offsets, changed, next_queue, tail)


@njit(cache=True)
def td_step(indptr, indices, words, prev, status, queue, qsize, offsets, changed, next_queue, tail):
    """Top-down level: OR each JFQ vertex's bits into its out-neighbours; next JFQ -> next_queue.

    ``offsets`` = ``frontier_edge_offsets`` of the queue: the frontier's edges are
    cut into blocks of equal count, so hubs are shared among threads.
    ``changed`` all zero on entry, marks the next JFQ on exit; ``tail[0] = 0``.
    """
    nblocks = (offsets[qsize] + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK
    if nblocks <= SERIAL_BLOCKS:
        for b in range(nblocks):
            _td_block(b, indptr, indices, words, prev, status, queue, qsize, offsets, changed, next_queue, tail)
    else:
        _td_parallel(nblocks, indptr, indices, words, prev, status, queue, qsize, offsets, changed, next_queue,
                     tail)


@njit(cache=True)
def _idle_bits(counts, pattern, idle):
    """idle := instances that reached no new vertex at the last level (plus unused bits)."""
    for q in range(idle.size):
        x = pattern[q]
        for b in range(64):
            if counts[q * 64 + b] == 0:
                x |= np.uint64(1) << np.uint64(b)
        idle[q] = x


@njit(cache=True)
def traverse(indptr, indices, in_indptr, in_indices, sources, words, pattern, mode, alpha, beta,
             max_depth, prev, status, changed, next_changed, unfull, queue, next_queue, offsets, tail,
             tallies, dplanes, write_depth, depth_cap):
    """Joint BFS of ``sources`` (instance j = bit j). Scratch arrays come from the caller.

    Returns (hist, stats, times, overflow, final): ``hist[k, j]`` = vertices instance j
    reached at depth k; ``stats`` rows of LEVEL_FIELDS (row 0 = the seeding, level -1;
    row k >= 1 = the step that expanded level k - 1);
    ``overflow`` is True when ``write_depth`` and the search went past
    ``depth_cap`` (the output dtype is too small; nothing past it was recorded);
    with ``write_depth`` the depths are in the planes ``dplanes`` (``depths.decode``);
    ``final`` is whichever of ``prev`` and ``status`` holds the last BSA (the reach sets).
    """
    n = indptr.size - 1
    idle = np.empty(words, dtype=np.uint64)
    counts = np.zeros(tallies.shape[1], dtype=np.int64)     # the level's, summed from tallies
    hist = np.zeros((16, counts.size), dtype=np.int64)
    stats = np.zeros((16, len(LEVEL_FIELDS)), dtype=np.int64)
    times = np.zeros(16, dtype=np.int64)       # levels.ticks() differences
    t0 = lv.ticks()
    qsize, nunfull = seed_group(sources, in_indptr, words, pattern, prev, status, changed, unfull, queue)
    tallies[:] = 0
    scout, nfull, nfull_in = identify_sparse(indptr, in_indptr, words, prev, status, changed, queue, qsize,
                                             tallies, 0, dplanes, write_depth)
    sum_tallies(tallies, counts)
    hist[0] = counts
    stats[0, lv.LEVEL] = -1      # row 0 is the seeding: each instance "reaches" its own source
    stats[0, lv.FRONTIER] = sources.size
    stats[0, lv.DISCOVERED] = sources.size
    stats[0, JOINT_FRONTIER] = qsize
    times[0] = lv.ticks() - t0
    nunfull -= nfull
    policy = policy_state(mode, alpha, beta, n, in_indptr[n] - nfull_in, True)
    nf = qsize
    level = 0
    queue_valid = True           # the JFQ is in queue[:qsize] (else in the changed bitmap)
    overflow = False
    while nf > 0 and nunfull > 0 and level != max_depth:
        if write_depth and level + 1 > depth_cap:
            overflow = True
            break
        direction = BU if policy_decide(policy, scout) else TD
        last_nf = nf
        t0 = lv.ticks()
        _idle_bits(counts, pattern, idle)
        if direction == BU:
            if queue_valid:      # the JFQ as a bitmap for bottom-up's frontier test
                queue_to_bitmap(queue, qsize, changed)
            frontier = nunfull
            examined, nf, scout, nunfull, unexplored = bu_identify(
                indptr, in_indptr, in_indices, words, prev, status, unfull, idle, changed, next_changed, tallies,
                level + 1, dplanes, write_depth, scout)
            policy_measured(policy, unexplored)
            policy_after_bottom_up(policy, nf, last_nf)
            prev, status = status, prev
            changed, next_changed = next_changed, changed
            queue_valid = False
        else:
            if not queue_valid:
                qsize, scout = bitmap_to_queue(changed, indptr, queue)
                fill(changed, np.uint64(0))
                sync_queue(words, prev, status, queue, qsize)
            frontier = qsize
            examined = frontier_edge_offsets(indptr, queue, qsize, offsets)
            tail[0] = 0
            td_step(indptr, indices, words, prev, status, queue, qsize, offsets, changed, next_queue, tail)
            queue, next_queue = next_queue, queue
            qsize = tail[0]
            scout, nfull, nfull_in = identify_sparse(indptr, in_indptr, words, prev, status, changed, queue,
                                                     qsize, tallies, level + 1, dplanes, write_depth)
            nf = qsize
            nunfull -= nfull
            policy_explored(policy, nfull_in)
            queue_valid = True
        sum_tallies(tallies, counts)
        level += 1
        hist = lv.grown(hist, level)
        stats = lv.grown(stats, level)
        times = lv.grown(times, level)
        hist[level] = counts
        stats[level, lv.LEVEL] = level - 1
        stats[level, lv.DIRECTION] = direction
        stats[level, lv.FRONTIER] = frontier
        stats[level, lv.EDGES_EXAMINED] = examined
        stats[level, lv.DISCOVERED] = counts.sum()
        stats[level, JOINT_FRONTIER] = nf
        times[level] = lv.ticks() - t0
    return hist[:level + 1], stats[:level + 1], times[:level + 1], overflow, prev
