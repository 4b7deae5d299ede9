"""The host loop of one iBFS group on the GPU (Liu, Huang, Hu, SIGMOD'16, sections 4-6).

Same level structure, statistics and results as the CPU traversal
(``breadth.multisource.ibfs.traverse``): instance j of the group starts at
``sources[j]``; each level runs a top-down or bottom-up step
(``ibfs_kernels.ib_td`` / ``ib_bu``) then the frontier identification
(``ib_identify_sparse`` / ``ib_identify_dense``), and the host copies one
counter row (``ibfs_kernels.IROW`` int64: JFQ size, scout count, full vertices,
the per-instance histogram of the level) -- the level's only device->host copy.
Groups are formed on the host by the CPU path's GroupBy
(``breadth.multisource.groupby``), unchanged.

Direction per group is decided by the one direction policy
(``breadth.kernels.policy.Policy``, deciding with ``decide``) on the group's
counts, exactly as the CPU traversal decides: scout count of the JFQ against the
in-edges of vertices not yet full, and the JFQ size against n / beta with
``stay_at_limit=True`` (a JFQ of exactly n / beta vertices stays bottom-up), so
both devices take the same direction at every level.

Invariants between levels: ``prev == status`` (BSA_level); the JFQ is in
``queue[:nf]`` after a top-down level (``changed`` all zero) or is the
``changed`` bitmap after a bottom-up level; ``unfull`` holds every vertex with
in-edges that is not full (after top-down it may also hold vertices that just
became full). Device memory: 2 n W words of status, two queues, two bitmaps,
the optional n x g depth block; each checked against free GPU memory when first
allocated, then reused by every group.
"""
from __future__ import annotations

import time

import numpy as np

from ..errors import InputError
from ..kernels.policy import BU, TD, Policy
from ..multisource.ibfs import LEVEL_FIELDS
from ..multisource.status import unused_pattern
from . import device
from .bottom_up import bitmap_to_queue, fill_words, queue_to_bitmap
from .ibfs_kernels import (CURSOR, EXAMINED, HIST0, IROW, MAX_WORDS, NF, NFULL, NFULL_IN, NUNFULL, SCOUT,
                           UNEXPLORED, fill_any, ib_bu, ib_identify_dense, ib_identify_sparse, ib_init, ib_seed,
                           ib_td)
from .primitives import zero_int64


def group_bytes(n: int, words: int, group_size: int, depth_itemsize: int, vid_itemsize: int) -> int:
    """Device bytes of one group's traversal (status copies, queues, bitmaps, depth block)."""
    bitmaps = 2 * 4 * ((n + 31) // 32 + 1)
    return 16 * n * words + 2 * vid_itemsize * max(n, 1) + bitmaps + n * group_size * depth_itemsize + 2 * IROW * 8


class GroupSpace:
    """Device memory of iBFS groups of W words on one DeviceGraph (reused by every group)."""

    def __init__(self, dg, words: int):
        n = dg.num_vertices
        nw = max(1, (n + 31) // 32)
        device.check_device_fits(f"iBFS groups of W={words} on {n} vertices",
                                 group_bytes(n, words, 0, 0, dg.vid_dtype.itemsize))
        self.words = words
        self.prev = device.empty(max(n, 1) * words, np.uint64)
        self.status = device.empty(max(n, 1) * words, np.uint64)
        self.changed = device.empty(nw, np.uint32)
        self.unfull = device.empty(nw, np.uint32)
        self.queue = device.empty(max(n, 1), dg.vid_dtype)
        self.next_queue = device.empty(max(n, 1), dg.vid_dtype)
        self.counters = device.empty(2 * IROW, np.int64)
        self.idle = device.empty(MAX_WORDS, np.uint64)
        self.pattern = {}        # group size -> device copy of its unused-instance pattern
        self.depths = {}         # (group size, dtype) -> device depth block

    def pattern_for(self, g: int):
        if g not in self.pattern:
            self.pattern[g] = device.to_device(unused_pattern(g, self.words))
        return self.pattern[g]

    def depths_for(self, n: int, g: int, dtype):
        key = (g, np.dtype(dtype).str)
        if key not in self.depths:
            device.check_device_fits(f"the depths of a group of {g} sources", n * g * np.dtype(dtype).itemsize)
            self.depths[key] = device.empty(max(n * g, 1), dtype)
        return self.depths[key]


def traverse(dg, sources, words: int, mode: int, alpha: float, beta: float, max_depth: int = -1,
             depth_dtype=None, keep_status: bool = False, launch: device.Launch | None = None):
    """Joint BFS of ``sources`` (instance j = bit j) on the DeviceGraph ``dg``.

    Returns (hist, stats, times, overflow, depths, status) like the CPU ``traverse``:
    ``hist[k, j]`` vertices instance j reached at depth k (64 W columns), ``stats``
    rows of LEVEL_FIELDS, ``overflow`` True when ``depth_dtype`` was too narrow (the
    caller widens and reruns); ``depths`` the (n, g) host matrix when ``depth_dtype``
    is given (its maximum = unreachable), ``status`` the final BSA (n W uint64) when
    ``keep_status``.
    """
    launch = device.check_launch(launch or device.default_launch())
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    g = int(sources.size)
    if not 1 <= words <= MAX_WORDS or g > 64 * words:
        raise InputError(f"a GPU group holds 1..{64 * MAX_WORDS} sources in W = 1..{MAX_WORDS} words, "
                         f"got {g} sources and W = {words}")
    n = dg.num_vertices
    write_depth = depth_dtype is not None
    sp = dg.group_space(words)                 # memory checked when first allocated
    if write_depth:
        depths = sp.depths_for(n, g, depth_dtype)
        cap = int(np.iinfo(depth_dtype).max) - 1
        fill_any[launch.blocks(depths.size, launch.thread_tpb), launch.thread_tpb](
            depths, np.dtype(depth_dtype).type(cap + 1))
    else:
        depths, cap = sp.counters, 0           # any int64 array: never written
    tpb, wtpb = launch.thread_tpb, launch.warp_tpb
    nw = sp.unfull.size
    t0 = time.perf_counter()
    zero_int64[1, tpb](sp.counters)
    ib_init[launch.blocks(nw, tpb), tpb](dg.in_indptr, sp.pattern_for(g), sp.prev, sp.status, sp.changed,
                                         sp.unfull, n, sp.counters, 0)
    ib_seed[launch.blocks(g, tpb), tpb](device.to_device(sources), words, sp.status, sp.changed, sp.queue,
                                        sp.counters, 0)
    ib_identify_sparse[launch.blocks(g, tpb), tpb](dg.indptr, dg.in_indptr, words, sp.prev, sp.status, sp.changed,
                                                   sp.queue, 0, depths, g, write_depth, sp.counters, 0, IROW)
    row = device.to_host(sp.counters[0:IROW])
    hist = [row[HIST0:HIST0 + 64 * words].copy()]
    nf = qsize = int(row[NF])
    stats = [[-1, 0, g, 0, g, qsize]]
    times = [time.perf_counter() - t0]
    scout = int(row[SCOUT])
    nunfull = int(row[NUNFULL]) - int(row[NFULL])
    # the CPU traversal's policy, stay_at_limit included: the same directions
    policy = Policy(mode, alpha, beta, n, dg.graph.in_indptr[n] - int(row[NFULL_IN]), stay_at_limit=True)
    queue, next_queue = sp.queue, sp.next_queue
    cur, nxt = 0, IROW
    level, queue_valid, overflow = 0, True, False
    while nf > 0 and nunfull > 0 and level != max_depth:
        if write_depth and level + 1 > cap:
            overflow = True
            break
        bottom_up = policy.decide(scout)
        last_nf = nf
        tl = time.perf_counter()
        if bottom_up:
            if queue_valid:
                fill_words[launch.blocks(nw, tpb), tpb](sp.changed, np.uint32(0))
                queue_to_bitmap[launch.blocks(qsize, tpb), tpb](queue, qsize, sp.changed)
            frontier = nunfull
            ib_bu[launch.blocks(n, tpb), tpb](dg.in_indptr, dg.in_indices, words, sp.pattern_for(g), sp.prev,
                                              sp.status, sp.unfull, sp.changed, n, sp.counters, cur, nxt,
                                              sp.idle)
            ib_identify_dense[launch.blocks(nw, tpb), tpb](dg.indptr, dg.in_indptr, words, sp.prev, sp.status,
                                                           sp.changed, sp.unfull, sp.idle, n, level + 1, depths,
                                                           g, write_depth, sp.counters, nxt, cur)
            row = device.to_host(sp.counters[nxt:nxt + IROW])
            examined = int(row[EXAMINED])
            nf, scout = int(row[NF]), int(row[SCOUT])
            nunfull = int(row[NUNFULL])
            policy.measured(int(row[UNEXPLORED]))
            policy.after_bottom_up(nf, last_nf)
            queue_valid = False
        else:
            if not queue_valid:
                bitmap_to_queue[launch.blocks(nw, tpb), tpb](sp.changed, queue, sp.counters, cur + CURSOR)
                fill_words[launch.blocks(nw, tpb), tpb](sp.changed, np.uint32(0))
                qsize = nf
            frontier, examined = qsize, scout
            ib_td[launch.blocks(qsize, wtpb // 32), wtpb](dg.indptr, dg.indices, words, sp.prev, sp.status, queue,
                                                          qsize, sp.changed, next_queue, sp.counters, nxt)
            ib_identify_sparse[launch.blocks(n, tpb), tpb](dg.indptr, dg.in_indptr, words, sp.prev, sp.status,
                                                           sp.changed, next_queue, level + 1, depths, g,
                                                           write_depth, sp.counters, nxt, cur)
            row = device.to_host(sp.counters[nxt:nxt + IROW])
            queue, next_queue = next_queue, queue
            nf = qsize = int(row[NF])
            scout = int(row[SCOUT])
            nunfull -= int(row[NFULL])
            policy.explored(int(row[NFULL_IN]))
            queue_valid = True
        level += 1
        counts = row[HIST0:HIST0 + 64 * words].copy()
        hist.append(counts)
        stats.append([level - 1, BU if bottom_up else TD, frontier, examined, int(counts.sum()), nf])
        times.append(time.perf_counter() - tl)
        cur, nxt = nxt, cur
    depth_host = device.to_host(depths)[:n * g].reshape(n, g) if write_depth else None
    status_host = device.to_host(sp.prev)[:n * words] if keep_status else None
    return (np.array(hist, dtype=np.int64), np.array(stats, dtype=np.int64).reshape(-1, len(LEVEL_FIELDS)),
            np.array(times, dtype=np.float64), overflow, depth_host, status_host)

