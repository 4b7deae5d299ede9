"""Direction-optimizing BFS (Beamer, Asanovic, Patterson, SC'12), after GAP's ``DOBFS``.

The search starts top-down. Before each top-down step it compares the scout
count m_f (out-edges of the frontier) with the edges still unexplored m_u:
when m_f > m_u / alpha it converts the queue to a bitmap and runs bottom-up
steps while the frontier grows or stays large (awake count n_f > n / beta);
when the frontier shrinks below n / beta it converts back and, as in GAP, takes
at least one top-down step. The rule is ``policy.go_bottom_up`` /
``policy.stay_bottom_up``, shared by every driver. ``mode`` pins the policy to
always top-down (``TOP_DOWN``) or always bottom-up (``BOTTOM_UP``), which is
how the pure algorithms run: one driver, three policies.

Invariants between levels: ``depth[v] == level`` exactly for the frontier,
``parent[v] == -1`` iff v is unvisited, every seed is its own parent at depth 0.
The search ends when the frontier is empty or ``level == max_depth``
(``max_depth < 0``: no limit).

Per-level statistics are recorded as rows of ``LEVEL_FIELDS`` (direction
0 = top-down, 1 = bottom-up) plus the level's wall seconds.
"""
import time

import numpy as np
from numba import njit, objmode

from .bottom_up import bu_step
from .frontier import bitmap_to_queue, fill2, queue_to_bitmap, visited_bitmap
from .policy import BU, TD, go_bottom_up, stay_bottom_up
from .top_down import frontier_edge_offsets, td_step
LEVEL_FIELDS = ("level", "direction", "frontier", "edges_examined", "discovered")


@njit(cache=True)
def _now():
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def _record(stats, times, nlev, level, direction, frontier, examined, discovered, seconds):
    if nlev == stats.shape[0]:
        grown = np.empty((2 * stats.shape[0], stats.shape[1]), dtype=np.int64)
        grown[:nlev] = stats
        stats = grown
        grown_t = np.empty(2 * times.size, dtype=np.float64)
        grown_t[:nlev] = times
        times = grown_t
    stats[nlev, 0] = level
    stats[nlev, 1] = direction
    stats[nlev, 2] = frontier
    stats[nlev, 3] = examined
    stats[nlev, 4] = discovered
    times[nlev] = seconds
    return stats, times, nlev + 1


@njit(cache=True)
def _seed(indptr, roots, parent, depth, queue):
    qsize = 0
    scout = 0
    for r in roots:
        if parent[r] < 0:
            parent[r] = r
            depth[r] = 0
            queue[qsize] = r
            qsize += 1
            scout += indptr[r + 1] - indptr[r]
    return qsize, scout


@njit(cache=True)
def search(indptr, indices, in_indptr, in_indices, roots, mode, alpha, beta, max_depth,
           parent, depth, queue, next_queue, offsets, front, next_front, visited, tail):
    """Run one BFS from the seed set ``roots`` into ``parent``/``depth``; returns (stats, times).

    The remaining arrays are scratch (see ``breadth.search.BFSWorkspace``): queues and
    ``offsets`` of n (+1) int64, bitmaps of ceil(n / 64) uint64 words, ``tail`` of 1.
    """
    n = indptr.size - 1
    fill2(parent, depth, -1)
    stats = np.empty((64, len(LEVEL_FIELDS)), dtype=np.int64)
    times = np.empty(64, dtype=np.float64)
    nlev = 0

    qsize, scout = _seed(indptr, roots, parent, depth, queue)
    edges_to_check = indptr[n]
    level = 0
    force_td = False
    while qsize > 0 and level != max_depth:
        go_bu = go_bottom_up(mode, force_td, scout, edges_to_check, alpha)
        force_td = False
        if go_bu:
            queue_to_bitmap(queue, qsize, front)
            visited_bitmap(parent, visited)
            awake = qsize
            while True:
                old_awake = awake
                t0 = _now()
                awake, examined = bu_step(in_indptr, in_indices, parent, depth, front, next_front, visited,
                                          level)
                stats, times, nlev = _record(stats, times, nlev, level, BU, old_awake, examined, awake,
                                             _now() - t0)
                front, next_front = next_front, front
                level += 1
                if awake == 0 or level == max_depth:
                    break
                if not stay_bottom_up(mode, awake, old_awake, n, beta):
                    break
            if awake == 0 or level == max_depth:
                break
            qsize, scout = bitmap_to_queue(front, indptr, queue)
            force_td = True
        else:
            edges_to_check -= scout
            tail[0] = 0
            t0 = _now()
            frontier_edge_offsets(indptr, queue, qsize, offsets)
            next_scout = td_step(indptr, indices, parent, depth, queue, qsize, offsets, next_queue, tail,
                                 level)
            stats, times, nlev = _record(stats, times, nlev, level, TD, qsize, scout, tail[0], _now() - t0)
            queue, next_queue = next_queue, queue
            qsize = tail[0]
            scout = next_scout
            level += 1
    return stats[:nlev], times[:nlev]
