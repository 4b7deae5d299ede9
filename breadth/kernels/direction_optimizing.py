"""Direction-optimizing BFS (Beamer, Asanovic, Patterson, SC'12), after GAP's ``DOBFS``.

The search starts top-down. Before each top-down step it compares the scout
count m_f (out-edges of the frontier) with the edges still unexplored m_u:
when m_f > m_u / alpha it converts the queue to a bitmap and runs bottom-up
steps while the frontier grows or stays large (awake count n_f > n / beta);
when the frontier shrinks below n / beta it converts back and, as in GAP, takes
at least one top-down step. The driver steps the policy state of every driver
(``policy.policy_state``: the rule and its unexplored-edges bookkeeping). ``mode`` pins the policy to
always top-down (``TOP_DOWN``) or always bottom-up (``BOTTOM_UP``), which is
how the pure algorithms run: one driver, three policies.

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
import numpy as np
from numba import njit

from .bottom_up import bu_step
from .frontier import bitmap_to_queue, claimed_since, clear_visited, mark_unvisited, queue_to_bitmap
from .levels import LEVEL_FIELDS, new_level_stats, record, room_for, ticks
from .policy import BU, TD, policy_after_bottom_up, policy_bottom_up, policy_decide, policy_explored, policy_state
from .thin_levels import CTL_SIZE, run_thin_levels
from .top_down import frontier_edge_offsets, td_serial, td_step

__all__ = ["search", "LEVEL_FIELDS", "SERIAL_EDGES"]

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


@njit(cache=True)
def search(graph, roots, mode, alpha, beta, max_depth, threads, buffers):
    """Run one BFS of ``graph`` (a ``bundles.KernelGraph``) from the seed set ``roots`` into
    ``buffers.parent``/``buffers.depth``; returns (stats, ticks).

    ``threads``: numba's thread count (1: every top-down level runs serially).
    ``buffers``: a ``bundles.SearchBuffers`` (``breadth.search.BFSWorkspace``), the rest of it scratch.
    ``ticks`` holds each level's ``levels.ticks()`` difference.
    """
    indptr, indices, in_indptr, in_indices = graph
    parent, depth, queue, next_queue, offsets, front, next_front, visited, tail, seen = buffers
    n = indptr.size - 1
    ctl = np.empty(CTL_SIZE, dtype=np.int64)
    serial_edges = SERIAL_EDGES if threads > 1 else indptr[n]
    clear_visited(visited, n)
    stats, times = new_level_stats(len(LEVEL_FIELDS))
    # counters and flags start as typed values, not literals: numba would otherwise compile every
    # callee they reach once more, for the literal (0, False) its first typing pass sees
    nlev = np.int64(0)

    qsize, scout = _seed(indptr, roots, parent, depth, visited, queue)
    policy = policy_state(mode, alpha, beta, n, indptr[n])
    level = np.int64(0)
    front_claimed = False    # front holds visited before the last level, which was a td_step
    while qsize > 0 and level != max_depth:
        if policy_decide(policy, scout):
            if front_claimed:
                claimed_since(front, visited)
            else:
                queue_to_bitmap(queue, qsize, front)
            front_claimed = False
            awake = qsize
            while True:
                old_awake = awake
                t0 = ticks()
                awake, examined = bu_step(in_indptr, in_indices, parent, depth, front, next_front, visited,
                                          level)
                stats, times, nlev = record(stats, times, nlev, level, BU, old_awake, examined, awake,
                                             ticks() - t0)
                front, next_front = next_front, front
                level += 1
                if awake == 0 or level == max_depth:
                    break
                policy_after_bottom_up(policy, awake, old_awake)
                if not policy_bottom_up(policy):
                    break
            if awake == 0 or level == max_depth:
                break
            qsize, scout = bitmap_to_queue(front, indptr, queue)
        elif scout <= serial_edges and threads > 1:
            stats, times = room_for(stats, times, nlev + THIN_ROWS)
            qsize, scout, level, nlev, swapped = run_thin_levels(
                indptr, indices, parent, depth, visited, seen, queue, next_queue, ctl, qsize, scout, level,
                policy, max_depth, serial_edges, stats, times, nlev, threads)
            if swapped:
                queue, next_queue = next_queue, queue
            front_claimed = False
        else:
            policy_explored(policy, scout)        # the thin run counts its own levels
            t0 = ticks()
            if scout <= serial_edges:
                nq, next_scout = td_serial(indptr, indices, parent, depth, visited, queue, qsize, next_queue, level)
            else:
                tail[0] = 0
                frontier_edge_offsets(indptr, queue, qsize, offsets)
                next_scout = td_step(indptr, indices, parent, depth, visited, queue, qsize, offsets, next_queue,
                                     tail, level, front)
                nq = tail[0]
            front_claimed = scout > serial_edges      # td_step left visited's previous state in front
            stats, times, nlev = record(stats, times, nlev, level, TD, qsize, scout, nq, ticks() - t0)
            queue, next_queue = next_queue, queue
            qsize = nq
            scout = next_scout
            level += 1
    mark_unvisited(visited, parent, depth)
    return stats[:nlev], times[:nlev]
