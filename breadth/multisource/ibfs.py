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

The level loop, with its direction switching per group (the one direction policy on the
traversal's own measures), is ``level_loop``'s, shared with the GPU traversal; this module
supplies its CPU steps (``seed_level``, ``top_down_level``, ``bottom_up_level``) and the
state they pass along (``GroupSpace``). The top-down step is the shared block walk
(``kernels.top_down.walk_block``) with an OR-ing visit.

Invariants between levels: ``prev`` holds BSA_level; ``status`` equals it
except, after a bottom-up level (which swaps the two), on the JFQ, which a
top-down level first copies over (``sync_queue``). The JFQ is the queue (after
top-down) or the ``changed`` bitmap (after bottom-up); the ``unfull`` bitmap
holds every vertex with in-edges that is not full or settled (``bottom_up``: no
running instance lacks it; it may also hold vertices that just became so, which
bottom-up drops one level later).
"""
import sys
from typing import NamedTuple

import numpy as np
from numba import prange

from ..jit import njit
from ..kernels.atomics import U, atomic_or
from ..kernels.bundles import KernelGraph
from ..kernels.frontier import bitmap_to_queue, fill, queue_to_bitmap
from ..kernels.policy import BOTTOM_UP, DIRECTION_OPTIMIZING, TOP_DOWN
from ..kernels.top_down import TD_EDGE_BLOCK, frontier_edge_offsets, walk_block
from .bottom_up import bu_identify, sync_queue
from .level_loop import JOINT_FRONTIER, LEVEL_FIELDS, bind
from .status import SERIAL_BLOCKS, identify_sparse, seed_group, sum_tallies

__all__ = ["traverse", "td_step", "seed_level", "top_down_level", "bottom_up_level", "GroupSpace",
           "LEVEL_FIELDS", "JOINT_FRONTIER", "DIRECTION_OPTIMIZING", "TOP_DOWN", "BOTTOM_UP"]


class _OrCtx(NamedTuple):
    """The top-down visit's ctx."""

    prev: np.ndarray
    status: np.ndarray
    changed: np.ndarray
    words: int


@njit(inline="always", cache=True)
def _visit_or(ctx, u, v):
    """OR frontier vertex u's bits into v; v joins the next JFQ the first time it grows (``changed``)."""
    words = ctx.words
    grew = False
    for q in range(words):
        bits = ctx.prev[U(u * words + q)]
        if bits & ~ctx.status[U(v * words + q)]:
            atomic_or(ctx.status, v * words + q, bits)
            grew = True
    if grew:
        m = np.uint64(1) << np.uint64(v & 63)
        if not (ctx.changed[U(v >> 6)] & m) and not (atomic_or(ctx.changed, v >> 6, m) & m):
            return np.int64(v), np.int64(0)
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def _td_block(b, indptr, indices, words, prev, status, queue, qsize, offsets, changed, next_queue, tail):
    walk_block(b, indptr, indices, queue, qsize, offsets, _visit_or, _OrCtx(prev, status, changed, words),
               next_queue, tail)


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


class GroupSpace(NamedTuple):
    """What a CPU group's traversal keeps between levels (``level_loop``'s ``space``): the
    graph, the group, scratch, the double buffers (swapped by returning a new tuple) and the
    JFQ: ``queue[:qsize]`` when ``queue_valid``, else the ``changed`` bitmap."""

    graph: KernelGraph
    sources: np.ndarray
    words: int
    pattern: np.ndarray
    unfull: np.ndarray
    offsets: np.ndarray
    tail: np.ndarray
    tallies: np.ndarray
    dplanes: np.ndarray
    write_depth: bool
    idle: np.ndarray
    counts: np.ndarray
    prev: np.ndarray
    status: np.ndarray
    changed: np.ndarray
    next_changed: np.ndarray
    queue: np.ndarray
    next_queue: np.ndarray
    qsize: int
    queue_valid: bool


@njit(cache=True)
def _moved(s, prev, status, changed, next_changed, queue, next_queue, qsize, queue_valid):
    """``s`` with its buffers and JFQ replaced."""
    return GroupSpace(s.graph, s.sources, s.words, s.pattern, s.unfull, s.offsets, s.tail, s.tallies, s.dplanes,
                      s.write_depth, s.idle, s.counts, prev, status, changed, next_changed, queue, next_queue,
                      np.int64(qsize), queue_valid)


@njit(cache=True)
def seed_level(s):
    """The seeding (``level_loop``'s step): the sources' JFQ, identified as level 0."""
    g = s.graph
    qsize, nunfull = seed_group(s.sources, g.in_indptr, s.words, s.pattern, s.prev, s.status, s.changed, s.unfull,
                                s.queue)
    s.tallies[:] = 0
    scout, nfull, nfull_in = identify_sparse(g.indptr, g.in_indptr, s.words, s.prev, s.status, s.changed, s.queue,
                                             qsize, s.tallies, 0, s.dplanes, s.write_depth)
    sum_tallies(s.tallies, s.counts)
    return (_moved(s, s.prev, s.status, s.changed, s.next_changed, s.queue, s.next_queue, qsize, True), qsize, scout,
            nunfull - nfull, nfull_in, s.counts)


@njit(cache=True)
def top_down_level(s, level, scout):
    """A top-down level (``level_loop``'s step): the JFQ as a queue, ``td_step``, identification."""
    g = s.graph
    qsize = s.qsize
    if not s.queue_valid:
        qsize, _ = bitmap_to_queue(s.changed, g.indptr, s.queue)
        fill(s.changed, np.uint64(0))
        sync_queue(s.words, s.prev, s.status, s.queue, qsize)
    examined = frontier_edge_offsets(g.indptr, s.queue, qsize, s.offsets)
    s.tail[0] = 0
    td_step(g.indptr, g.indices, s.words, s.prev, s.status, s.queue, qsize, s.offsets, s.changed, s.next_queue,
            s.tail)
    nq = s.tail[0]
    next_scout, nfull, nfull_in = identify_sparse(g.indptr, g.in_indptr, s.words, s.prev, s.status, s.changed,
                                                  s.next_queue, nq, s.tallies, level + 1, s.dplanes, s.write_depth)
    sum_tallies(s.tallies, s.counts)
    return (_moved(s, s.prev, s.status, s.changed, s.next_changed, s.next_queue, s.queue, nq, True), examined, nq,
            next_scout, nfull, nfull_in, s.counts)


@njit(cache=True)
def bottom_up_level(s, level, scout):
    """A bottom-up level (``level_loop``'s step): the JFQ as a bitmap, ``bu_identify``, swapped copies."""
    g = s.graph
    _idle_bits(s.counts, s.pattern, s.idle)
    if s.queue_valid:      # the JFQ as a bitmap for bottom-up's frontier test
        queue_to_bitmap(s.queue, s.qsize, s.changed)
    examined, nf, next_scout, nunfull, unexplored = bu_identify(
        g.indptr, g.in_indptr, g.in_indices, s.words, s.prev, s.status, s.unfull, s.idle, s.changed, s.next_changed,
        s.tallies, level + 1, s.dplanes, s.write_depth, scout)
    sum_tallies(s.tallies, s.counts)
    return (_moved(s, s.status, s.prev, s.next_changed, s.changed, s.queue, s.next_queue, s.qsize, False), examined,
            nf, next_scout, nunfull, unexplored, s.counts)


_levels = njit(cache=True)(bind(sys.modules[__name__], "cpu_ibfs_levels"))


@njit(cache=True)
def traverse(indptr, indices, in_indptr, in_indices, sources, words, pattern, mode, alpha, beta,
             max_depth, prev, status, changed, next_changed, unfull, queue, next_queue, offsets, tail,
             tallies, dplanes, write_depth, depth_cap):
    """Joint BFS of ``sources`` (instance j = bit j). Scratch arrays come from the caller.

    Returns (hist, stats, times, overflow, final): ``hist[k, j]`` = vertices instance j
    reached at depth k; ``stats`` rows of LEVEL_FIELDS (row 0 = the seeding, level -1;
    row k >= 1 = the step that expanded level k - 1), ``times`` their ``levels.ticks``;
    ``overflow`` is True when ``write_depth`` and the search went past
    ``depth_cap`` (the output dtype is too small; nothing past it was recorded);
    with ``write_depth`` the depths are in the planes ``dplanes`` (``depths.decode``);
    ``final`` is whichever of ``prev`` and ``status`` holds the last BSA (the reach sets).
    """
    n = indptr.size - 1
    space = GroupSpace(KernelGraph(indptr, indices, in_indptr, in_indices), sources, words, pattern, unfull, offsets,
                       tail, tallies, dplanes, write_depth, np.empty(words, dtype=np.uint64),
                       np.zeros(tallies.shape[1], dtype=np.int64), prev, status, changed, next_changed, queue,
                       next_queue, np.int64(0), True)
    space, hist, stats, times, overflow = _levels(space, sources.size, n, in_indptr[n], mode, alpha, beta, max_depth,
                                                  write_depth, depth_cap)
    return hist, stats, times, overflow, space.prev
