"""Direction-optimizing BFS (Beamer, Asanovic, Patterson, SC'12), after GAP's ``DOBFS``.

The search starts top-down. Before each top-down step it compares the scout
count m_f (out-edges of the frontier) with the edges still unexplored m_u:
when m_f > m_u / alpha it converts the queue to a bitmap and runs bottom-up
steps while the frontier grows or stays large (awake count n_f > n / beta);
when the frontier shrinks below n / beta it converts back and, as in GAP, takes
at least one top-down step. The driver steps the policy state of every driver
(``policy.policy_state``: the rule and its unexplored-edges bookkeeping). ``mode`` pins
the policy to always top-down (``TOP_DOWN``) or always bottom-up (``BOTTOM_UP``), which
is how the pure algorithms run: one driver, three policies.

The level loop (``level_loop``) is written once for the CPU and the GPU search: it calls
the engine's steps (``levels.bind_steps``); numba compiles the copy bound to the steps
here (``search``), ``breadth.gpu.search`` runs the copy bound to its kernel launches. A
top-down step here is one level or a run of thin levels (``thin_levels``, one parallel
region): the loop decides the run's first level, the policy bounds the rest
(``policy.policy_top_down_run``: within the bounds the rule would take each top-down), and the
run's explored edges go to the policy state after it, so that this loop alone steps it.

The queue becomes a bitmap by ``frontier.queue_to_bitmap`` (one atomic bit set per
vertex) or, after a parallel top-down level, by ``frontier.claimed_since``: ``td_step``
copies ``visited`` into ``front`` before it claims, and the XOR of the two is the new
frontier (a pass over n / 64 words, no atomics).

One ``visited`` bitmap is kept through the whole search (top-down claims bits
in it, bottom-up iterates its zero bits), so switching direction costs no pass
over the parent array. parent and depth are written once per visited vertex
and, at the end, -1 for the rest (``frontier.mark_unvisited``): no O(n) fill
up front. A top-down frontier with at most ``SERIAL_EDGES`` out-edges (known
before the level: it is the scout count) runs in the calling thread
(``top_down.td_serial``), so a level of a deep, thin graph costs microseconds:
no parallel region, no edge offsets, no atomics, no allocation, no clock that
leaves compiled code (``levels.ticks``). With one thread every top-down level
runs that way.

Invariants between levels: ``depth[v] == level`` exactly for the frontier,
v's visited bit is set iff v is visited, and then ``parent[v]``/``depth[v]``
are final; every seed is its own parent at depth 0. The search ends when the
frontier is empty or ``level == max_depth`` (``max_depth < 0``: no limit); on
return ``parent[v] == depth[v] == -1`` iff v is unvisited.

Per-level statistics are recorded as rows of ``levels.LEVEL_FIELDS`` (direction
``policy.TD`` or ``policy.BU``) plus the level's wall time in ticks.
"""
import sys
from typing import NamedTuple

import numpy as np

from ..jit import njit
from .bottom_up import bu_step
from .bundles import KernelGraph, SearchBuffers
from .frontier import bitmap_to_queue, claimed_since, clear_visited, mark_unvisited, queue_to_bitmap
from .levels import LEVEL_FIELDS, bind_steps, new_level_stats, record, room_for, ticks
from .policy import (BU, RUN_STEPS, TD, policy_after_bottom_up, policy_bottom_up, policy_decide, policy_explored,
                     policy_state, policy_top_down_run, run_row)
from .thin_levels import CTL_SIZE, run_region, run_thin_levels
from .top_down import frontier_edge_offsets, td_serial, td_step

__all__ = ["search", "level_loop", "compile_aside", "LEVEL_FIELDS", "SERIAL_EDGES"]

SERIAL_EDGES = 1 << 14   # a top-down frontier with at most this many out-edges runs as a thin level
THIN_ROWS = 1024         # statistics rows made free before each run of thin levels


@njit(cache=True)
def _seed(indptr, roots, parent, depth, visited, queue):
    qsize = 0
    scout = 0
    for r in roots:
        m = np.uint64(1) << np.uint64(r & 63)
        if not visited[r >> 6] & m:
            visited[r >> 6] |= m
            parent[r] = r
            depth[r] = 0
            queue[qsize] = r
            qsize += 1
            scout += indptr[r + 1] - indptr[r]
    return qsize, scout


steps = None        # the steps module of a bound copy of ``level_loop`` (``levels.bind_steps``)


def level_loop(space, qsize, scout, policy, max_depth):
    """The level loop of a single-source search, CPU or GPU: from the seeded frontier (``qsize``
    vertices, ``scout`` out-edges) until it is empty or ``max_depth``; returns (space, stats,
    ticks). ``steps`` supplies the engine's steps, each returning its state ``space`` first:
    ``to_bitmap(space, qsize)`` / ``to_queue(space)`` -> (space, qsize, scout) convert the
    frontier when the direction changes, ``bottom_up_level(space, level)`` -> (space, awake,
    edges examined), ``top_down_levels(space, qsize, scout, level, policy, max_depth, stats,
    times, nlev)`` -> (space, qsize, scout, level, stats, times, nlev) runs one top-down level or
    more (the CPU's runs of thin levels), stepping ``policy`` and recording their rows."""
    stats, times = new_level_stats(len(LEVEL_FIELDS))
    # counters start as typed values, not literals: numba would otherwise compile every
    # callee they reach once more, for the literal 0 its first typing pass sees
    nlev = np.int64(0)
    level = np.int64(0)
    while qsize > 0 and level != max_depth:
        if policy_decide(policy, scout):
            space = steps.to_bitmap(space, qsize)
            awake = qsize
            while True:
                old_awake = awake
                t0 = ticks()
                space, awake, examined = steps.bottom_up_level(space, level)
                stats, times, nlev = record(stats, times, nlev, level, BU, old_awake, examined, awake,
                                             ticks() - t0)
                level += 1
                if awake == 0 or level == max_depth:
                    break
                policy_after_bottom_up(policy, awake, old_awake)
                if not policy_bottom_up(policy):
                    break
            if awake == 0 or level == max_depth:
                break
            space, qsize, scout = steps.to_queue(space)
        else:
            space, qsize, scout, level, stats, times, nlev = steps.top_down_levels(
                space, qsize, scout, level, policy, max_depth, stats, times, nlev)
    return space, stats[:nlev], times[:nlev]


class _Space(NamedTuple):
    """What the CPU search keeps between levels: the graph, its buffers (queues and bitmaps
    swapped by returning a new tuple), the thin runs' control words and bounds, and ``front_claimed``:
    ``front`` holds ``visited`` from before the last level, a ``td_step``."""

    graph: KernelGraph
    buf: SearchBuffers
    ctl: np.ndarray
    bounds: np.ndarray
    serial_edges: int
    threads: int
    front_claimed: bool


@njit(inline="always", cache=True)
def _moved(s, queue, next_queue, front, next_front, front_claimed):
    """``s`` with its queues and frontier bitmaps (and ``front_claimed``) replaced."""
    b = s.buf
    buf = SearchBuffers(b.parent, b.depth, queue, next_queue, b.offsets, front, next_front, b.visited, b.tail, b.seen)
    return _Space(s.graph, buf, s.ctl, s.bounds, s.serial_edges, s.threads, front_claimed)


@njit(inline="always", cache=True)
def to_bitmap(s, qsize):
    """The frontier as the ``front`` bitmap (the step before bottom-up levels)."""
    b = s.buf
    if s.front_claimed:
        claimed_since(b.front, b.visited)
    else:
        queue_to_bitmap(b.queue, qsize, b.front)
    return _moved(s, b.queue, b.next_queue, b.front, b.next_front, False)


@njit(inline="always", cache=True)
def to_queue(s):
    """The frontier bitmap as the queue, with its scout count (the step after bottom-up levels)."""
    b = s.buf
    qsize, scout = bitmap_to_queue(b.front, s.graph.indptr, b.queue)
    return s, qsize, scout


@njit(inline="always", cache=True)
def bottom_up_level(s, level):
    """One bottom-up level; the next frontier becomes ``front``."""
    g, b = s.graph, s.buf
    awake, examined = bu_step(g.in_indptr, g.in_indices, b.parent, b.depth, b.front, b.next_front, b.visited, level)
    return _moved(s, b.queue, b.next_queue, b.next_front, b.front, False), awake, examined


@njit(inline="always", cache=True)
def top_down_levels(s, qsize, scout, level, policy, max_depth, stats, times, nlev):
    """Top-down from the frontier ``queue[:qsize]``: a run of thin levels (``run_thin_levels``,
    within the policy's bounds) or one level, serial or parallel. A run that the bounds would end
    after its first level (a second one as large would be past the bounds: near the rule's
    threshold) is that level, serial: no parallel region."""
    g, b = s.graph, s.buf
    policy_top_down_run(policy, s.serial_edges, s.bounds)
    row = run_row(s.bounds, 0, scout)
    if scout <= s.serial_edges and s.threads > 1 and row < RUN_STEPS and scout <= s.bounds[row, 1]:
        stats, times = room_for(stats, times, nlev + THIN_ROWS)
        qsize, scout, level, nlev, swapped, explored = run_thin_levels(
            g.indptr, g.indices, b.parent, b.depth, b.visited, b.seen, b.queue, b.next_queue, s.ctl, qsize, scout,
            level, max_depth, s.bounds, stats, times, nlev, s.threads)
        policy_explored(policy, explored)
        queue, next_queue = (b.next_queue, b.queue) if swapped else (b.queue, b.next_queue)
        return _moved(s, queue, next_queue, b.front, b.next_front, False), qsize, scout, level, stats, times, nlev
    policy_explored(policy, scout)
    t0 = ticks()
    if scout <= s.serial_edges:
        nq, next_scout = td_serial(g.indptr, g.indices, b.parent, b.depth, b.visited, b.queue, qsize, b.next_queue,
                                   level)
    else:
        b.tail[0] = 0
        frontier_edge_offsets(g.indptr, b.queue, qsize, b.offsets)
        next_scout = td_step(g.indptr, g.indices, b.parent, b.depth, b.visited, b.queue, qsize, b.offsets,
                             b.next_queue, b.tail, level, b.front)
        nq = b.tail[0]
    stats, times, nlev = record(stats, times, nlev, level, TD, qsize, scout, nq, ticks() - t0)
    # a td_step left visited's previous state in front
    return (_moved(s, b.next_queue, b.queue, b.front, b.next_front, scout > s.serial_edges), nq, next_scout,
            level + 1, stats, times, nlev)


def compile_aside(graph, buffers) -> tuple:
    """What ``jit.prepare``'s ``aside`` returns for ``search`` on these arguments, (kernel,
    arguments, meanwhile): the thin levels' parallel region, the largest part of compiling
    ``search``, with arguments of the types ``search`` passes it (a second process compiles it
    while this one compiles the rest), and what numba's typing of ``search`` reaches after the
    region (compiled here while waiting for it)."""
    i = np.int64(0)
    b = buffers
    region = (graph.indptr, graph.indices, b.parent, b.depth, b.visited, b.seen, b.queue, b.next_queue,
              np.empty(CTL_SIZE, dtype=np.int64), i, i, i, i, np.empty((RUN_STEPS, 2), dtype=np.float64),
              np.empty((1, len(LEVEL_FIELDS)), dtype=np.int64), np.empty(1, dtype=np.int64), i, i)
    after = [(td_step, (graph.indptr, graph.indices, b.parent, b.depth, b.visited, b.queue, i, b.offsets,
                        b.next_queue, b.tail, i, b.front)),
             (frontier_edge_offsets, (graph.indptr, b.queue, i, b.offsets)),
             (mark_unvisited, (b.visited, b.parent, b.depth))]
    return run_region, region, after


_cpu_levels = njit(inline="always", cache=True)(bind_steps(level_loop, sys.modules[__name__], "cpu_levels"))


@njit(cache=True)
def search(graph, roots, mode, alpha, beta, max_depth, threads, buffers):
    """Run one BFS of ``graph`` (a ``bundles.KernelGraph``) from the seed set ``roots`` into
    ``buffers.parent``/``buffers.depth``; returns (stats, ticks).

    ``threads``: numba's thread count (1: every top-down level runs serially).
    ``buffers``: a ``bundles.SearchBuffers`` (``breadth.search.BFSWorkspace``), the rest of it scratch.
    ``ticks`` holds each level's ``levels.ticks()`` difference.
    """
    indptr = graph.indptr
    n = indptr.size - 1
    b = buffers
    clear_visited(b.visited, n)
    qsize, scout = _seed(indptr, roots, b.parent, b.depth, b.visited, b.queue)
    policy = policy_state(mode, alpha, beta, n, indptr[n])
    space = _Space(graph, buffers, np.empty(CTL_SIZE, dtype=np.int64), np.empty((RUN_STEPS, 2), dtype=np.float64),
                   np.int64(SERIAL_EDGES if threads > 1 else indptr[n]), np.int64(threads), False)
    space, stats, times = _cpu_levels(space, qsize, scout, policy, max_depth)
    mark_unvisited(b.visited, b.parent, b.depth)
    return stats, times
