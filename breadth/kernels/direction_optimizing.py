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

Per-level statistics are recorded as rows of ``levels.LEVEL_FIELDS`` (direction
``policy.TD`` or ``policy.BU``) plus the level's wall seconds.
"""
import numpy as np
from numba import njit

from .bottom_up import bu_step
from .frontier import bitmap_to_queue, fill2, queue_to_bitmap, visited_bitmap
from .levels import LEVEL_FIELDS, new_level_stats, now, record
from .policy import BU, TD, go_bottom_up, stay_bottom_up
from .top_down import frontier_edge_offsets, td_step

__all__ = ["search", "LEVEL_FIELDS"]


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
    stats, times = new_level_stats(len(LEVEL_FIELDS))
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
                t0 = now()
                awake, examined = bu_step(in_indptr, in_indices, parent, depth, front, next_front, visited,
                                          level)
                stats, times, nlev = record(stats, times, nlev, level, BU, old_awake, examined, awake,
                                             now() - t0)
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
            t0 = now()
            frontier_edge_offsets(indptr, queue, qsize, offsets)
            next_scout = td_step(indptr, indices, parent, depth, queue, qsize, offsets, next_queue, tail,
                                 level)
            stats, times, nlev = record(stats, times, nlev, level, TD, qsize, scout, tail[0], now() - t0)
            queue, next_queue = next_queue, queue
            qsize = tail[0]
            scout = next_scout
            level += 1
    return stats[:nlev], times[:nlev]
