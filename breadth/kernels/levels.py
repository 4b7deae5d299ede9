"""Per-level statistics of the BFS kernels: rows of named int64 columns plus a seconds array.

Every driver (single-node, distributed, multi-source) records one row per level;
the columns are ``LEVEL_FIELDS`` and code reads and writes them by the index
constants below, never by bare position, so a field can be added without
shifting anyone's numbers. ``BFSResult.from_kernel`` turns rows into
``LevelStats`` by these names; the multi-source traversal appends its own field
(``joint_frontier``) after them.

``direction`` holds ``policy.TD`` or ``policy.BU``. The arrays start small and
double when full (``grown``), so a deep, thin graph costs no up-front O(depth).
"""
import time

import numpy as np
from numba import njit, objmode

LEVEL_FIELDS = ("level", "direction", "frontier", "edges_examined", "discovered")
LEVEL, DIRECTION, FRONTIER, EDGES_EXAMINED, DISCOVERED = range(len(LEVEL_FIELDS))
INITIAL_ROWS = 64


@njit(cache=True)
def now():
    """``time.perf_counter()`` from inside a jitted function."""
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def grown(a, nrows):
    """``a`` while it has a row ``nrows``, else a copy of its first ``nrows`` rows with twice the room."""
    if nrows < a.shape[0]:
        return a
    out = np.zeros((2 * a.shape[0],) + a.shape[1:], dtype=a.dtype)
    out[:nrows] = a[:nrows]
    return out


@njit(cache=True)
def new_level_stats(ncols):
    """Empty (stats, times) arrays for ``ncols`` fields."""
    return np.zeros((INITIAL_ROWS, ncols), dtype=np.int64), np.zeros(INITIAL_ROWS, dtype=np.float64)


@njit(cache=True)
def record(stats, times, nlev, level, direction, frontier, examined, discovered, seconds):
    """Append one level's row; returns (stats, times, nlev + 1) (the arrays may have grown)."""
    stats = grown(stats, nlev)
    times = grown(times, nlev)
    stats[nlev, LEVEL] = level
    stats[nlev, DIRECTION] = direction
    stats[nlev, FRONTIER] = frontier
    stats[nlev, EDGES_EXAMINED] = examined
    stats[nlev, DISCOVERED] = discovered
    times[nlev] = seconds
    return stats, times, nlev + 1
