"""The level loop of every joint iBFS traversal, CPU and GPU (Liu, Huang, Hu, SIGMOD'16, Algorithm 1).

One source, two engines: ``bind(steps, name)`` binds the loop to a module of *steps* and
returns a plain function; the CPU traversal (``multisource.ibfs``) compiles it with numba
around its numba steps, the GPU traversal (``gpu.ibfs``) runs it in Python around steps that
launch kernels. A steps module provides, each returning the traversal's state ``space``
(whatever the engine keeps between levels: arrays, the JFQ's size, counter rows) first:

* ``seed_level(space)`` -> (space, JFQ size, its scout count, vertices not full, the in-degree
  sum of the full ones, the per-instance counts): the seeding, identified like a level;
* ``top_down_level(space, level, scout)`` -> (space, edges examined, next JFQ size, its scout
  count, vertices that became full, their in-degree sum, counts);
* ``bottom_up_level(space, level, scout)`` -> (space, edges examined, next JFQ size, its scout
  count, vertices not yet settled, their in-degree sum, counts).

Direction per level comes from the one direction policy (``kernels.policy``) on the group's
measures: the JFQ's scout count against the in-edges of the vertices not yet full (measured
after bottom-up, decreased after top-down), and the JFQ size against n / beta with
``stay_at_limit`` (a JFQ of exactly n / beta vertices stays bottom-up), so both engines take
the same direction at every level.

Invariants between levels: ``nf`` is the JFQ's size and ``scout`` its out-edges; ``nunfull``
counts the vertices that may still change; row k >= 1 of the statistics is the step that
expanded level k - 1 (row 0: the seeding, level -1), and ``hist[k, j]`` the vertices instance
j reached at depth k. The loop ends when the JFQ is empty, nothing can change, at
``max_depth``, or (``write_depth``) before a depth past ``depth_cap`` (``overflow``).
"""
import numpy as np

from ..kernels import levels as lv
from ..kernels.policy import (BU, TD, policy_after_bottom_up, policy_decide, policy_explored, policy_measured,
                              policy_state)

__all__ = ["bind", "LEVEL_FIELDS", "JOINT_FRONTIER"]

LEVEL_FIELDS = lv.LEVEL_FIELDS + ("joint_frontier",)
JOINT_FRONTIER = len(lv.LEVEL_FIELDS)

steps = None        # the steps module: each bound copy of ``_levels`` has its own (``bind``)


def _levels(space, group, n, in_edges, mode, alpha, beta, max_depth, write_depth, depth_cap):
    """Run the group's levels; returns (space, hist, stats, times in ``levels.ticks``, overflow)."""
    t0 = lv.ticks()
    space, nf, scout, nunfull, nfull_in, counts = steps.seed_level(space)
    hist = np.zeros((16, counts.size), dtype=np.int64)
    stats = np.zeros((16, len(LEVEL_FIELDS)), dtype=np.int64)
    times = np.zeros(16, dtype=np.int64)
    hist[0] = counts
    stats[0, lv.LEVEL] = -1      # row 0 is the seeding: each instance "reaches" its own source
    stats[0, lv.FRONTIER] = group
    stats[0, lv.DISCOVERED] = group
    stats[0, JOINT_FRONTIER] = nf
    times[0] = lv.ticks() - t0
    policy = policy_state(mode, alpha, beta, n, in_edges - nfull_in, True)
    level = 0
    overflow = False
    while nf > 0 and nunfull > 0 and level != max_depth:
        if write_depth and level + 1 > depth_cap:
            overflow = True
            break
        last_nf = nf
        t0 = lv.ticks()
        if policy_decide(policy, scout):
            direction = BU
            frontier = nunfull
            space, examined, nf, scout, nunfull, unexplored, counts = steps.bottom_up_level(space, level, scout)
            policy_measured(policy, unexplored)
            policy_after_bottom_up(policy, nf, last_nf)
        else:
            direction = TD
            frontier = nf
            space, examined, nf, scout, nfull, nfull_in, counts = steps.top_down_level(space, level, scout)
            nunfull -= nfull
            policy_explored(policy, nfull_in)
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
    return space, hist[:level + 1], stats[:level + 1], times[:level + 1], overflow


def bind(steps_module, name: str):
    """The level loop as a function named ``name`` that calls the steps of ``steps_module``
    (``levels.bind_steps``)."""
    return lv.bind_steps(_levels, steps_module, name)
