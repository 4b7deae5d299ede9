"""The cost of routing one (vertex, parent) pair, for the planner (``planner.overhead``).

A layout that sends top-down candidates to their owners (1D all-to-all, the 2D fold, the delegates'
nn ids) packs each pair by owner at the rank that found it (``build.pack_arcs``) and settles it at
the owner (``steps.apply_received``): a random access to the owner's state per pair. A search on one
rank routes nothing -- every candidate is its own -- so the one-rank calibration of the engine's
cost never sees this work, and it grows with the pairs a rank sends and receives when P > 1.
``self_route`` times the two steps directly on the calibration graph: distinct targets drawn as
arc endpoints (a candidate is reached through an arc, so hubs come up by their degree), parents at
random, settled into a fresh state; the cost per pair is the slope between two batch sizes, which
leaves out each call's fixed part (the level's fixed cost has it).
"""
from __future__ import annotations

import time

import numpy as np

from .build import pack_arcs, vertex_dtype
from .partition import Ranges
from .steps import apply_received


def self_route(n: int, src, dst, reps: int = 7, seed: int = 0) -> float:
    """Seconds per (vertex, parent) pair packed by owner and settled at the owner, on the graph of
    ``n`` vertices and arcs ``src``-``dst`` (both directions), on this process alone."""
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    if n < 8 or src.size == 0:
        return 0.0
    part = Ranges(np.array([0, n], dtype=np.int64), 0)
    pmap = part.kernel_map()
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n) + np.bincount(dst, minlength=n), out=indptr[1:])
    rng = np.random.default_rng(seed)
    ends = np.concatenate([src, dst])
    targets = rng.permutation(np.unique(ends[rng.integers(0, ends.size, n)]))
    parents = rng.integers(0, n, targets.size)
    vdt = vertex_dtype(n)
    state = (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
             np.zeros(1, dtype=np.int64))

    def once(k: int) -> float:
        parent, depth, queue, tail = state
        parent.fill(-1)
        depth.fill(-1)
        tail[0] = 0
        t = time.perf_counter()
        pairs, per_rank = pack_arcs(targets[:k], parents[:k], part, False, vdt)
        apply_received(pairs, int(per_rank.sum()), pmap, indptr, parent, depth, 0, queue, tail, False)
        return time.perf_counter() - t

    big, small = int(targets.size), int(targets.size) // 4
    once(big)                                              # loads the kernels
    slope = (np.median([once(big) for _ in range(reps)]) - np.median([once(small) for _ in range(reps)])) / (big - small)
    return float(max(slope, 0.0))
