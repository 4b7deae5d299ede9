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

The level loop, direction policy included, is the CPU traversal's
(``breadth.multisource.level_loop``, run here in Python): this module supplies its steps
(``seed_level``, ``top_down_level``, ``bottom_up_level``, which launch the kernels and read
the counter row), so both devices take the same direction at every level.

Invariants between levels: ``prev == status`` (BSA_level); the JFQ is in
``queue[:nf]`` after a top-down level (``changed`` all zero) or is the
``changed`` bitmap after a bottom-up level; ``unfull`` holds every vertex with
in-edges that is not full (after top-down it may also hold vertices that just
became full). Device memory: 2 n W words of status, two queues, two bitmaps,
the optional n x g depth block; each checked against free GPU memory when first
allocated, then reused by every group.
"""
from __future__ import annotations

import sys

import numpy as np

from ..errors import InputError
from ..kernels.levels import seconds_per_tick
from ..multisource.level_loop import bind
from ..multisource.status import unused_pattern
from . import device
from .bottom_up import bitmap_to_queue, fill_words, queue_to_bitmap
from .ibfs_kernels import (CURSOR, EXAMINED, HIST0, IROW, MAX_WORDS, NF, NFULL, NFULL_IN, NUNFULL, SCOUT,
                           UNEXPLORED, fill_any, ib_bu, ib_identify_dense, ib_identify_sparse, ib_init, ib_seed,
                           ib_td)
from .launcher import HeadCopy, fast
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
        row_host = device.pinned(IROW, np.int64)                      # where a level's row is copied
        self.row_copies = (HeadCopy(self.counters[:IROW], row_host),  # each counter row, sliced once
                           HeadCopy(self.counters[IROW:], row_host))
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


class _Group:
    """What a GPU group's traversal keeps between levels (``level_loop``'s ``space``): the device
    memory, the launch shapes, the JFQ (``queue[:qsize]`` when ``queue_valid``, else the
    ``changed`` bitmap) and the counter rows (``cur``: the last level's, ``nxt``: the next's)."""

    def __init__(self, dg, sp, launch, sources, depths, write_depth):
        self.dg, self.sp, self.launch = dg, sp, launch
        self.sources, self.g = sources, int(sources.size)
        self.depths, self.write_depth = depths, write_depth
        self.queue, self.next_queue = sp.queue, sp.next_queue
        self.cur, self.nxt = 0, IROW
        self.qsize, self.queue_valid = 0, True

    def row(self, at):
        return self.sp.row_copies[at // IROW]().copy()

    def counts(self, row):
        return row[HIST0:HIST0 + 64 * self.sp.words].copy()


def seed_level(s):
    """The seeding (``level_loop``'s step): the sources' JFQ, identified as level 0."""
    dg, sp, launch, tpb = s.dg, s.sp, s.launch, s.launch.thread_tpb
    fast(zero_int64)[1, tpb](sp.counters)
    fast(ib_init)[launch.blocks(sp.unfull.size, tpb), tpb](
        dg.in_indptr, sp.pattern_for(s.g), sp.prev, sp.status, sp.changed, sp.unfull, dg.num_vertices,
        sp.counters, 0)
    fast(ib_seed)[launch.blocks(s.g, tpb), tpb](
        device.to_device(s.sources), sp.words, sp.status, sp.changed, sp.queue, sp.counters, 0)
    fast(ib_identify_sparse)[launch.blocks(s.g, tpb), tpb](
        dg.indptr, dg.in_indptr, sp.words, sp.prev, sp.status, sp.changed, sp.queue, 0, s.depths, s.g,
        s.write_depth, sp.counters, 0, IROW)
    row = s.row(0)
    s.qsize = int(row[NF])
    return s, s.qsize, int(row[SCOUT]), int(row[NUNFULL]) - int(row[NFULL]), int(row[NFULL_IN]), s.counts(row)


def top_down_level(s, level, scout):
    """A top-down level (``level_loop``'s step): the JFQ as a queue, ``ib_td``, identification."""
    dg, sp, launch, tpb = s.dg, s.sp, s.launch, s.launch.thread_tpb
    nw = sp.unfull.size
    if not s.queue_valid:
        fast(bitmap_to_queue)[launch.blocks(nw, tpb), tpb](sp.changed, s.queue, sp.counters, s.cur + CURSOR)
        fast(fill_words)[launch.blocks(nw, tpb), tpb](sp.changed, np.uint32(0))
    wtpb = launch.warp_tpb
    fast(ib_td)[launch.blocks(s.qsize, wtpb // 32), wtpb](
        dg.indptr, dg.indices, sp.words, sp.prev, sp.status, s.queue, s.qsize, sp.changed, s.next_queue,
        sp.counters, s.nxt)
    fast(ib_identify_sparse)[launch.blocks(dg.num_vertices, tpb), tpb](
        dg.indptr, dg.in_indptr, sp.words, sp.prev, sp.status, sp.changed, s.next_queue, level + 1, s.depths, s.g,
        s.write_depth, sp.counters, s.nxt, s.cur)
    row = s.row(s.nxt)
    s.queue, s.next_queue = s.next_queue, s.queue
    s.qsize, s.queue_valid = int(row[NF]), True
    s.cur, s.nxt = s.nxt, s.cur
    return s, scout, s.qsize, int(row[SCOUT]), int(row[NFULL]), int(row[NFULL_IN]), s.counts(row)


def bottom_up_level(s, level, scout):
    """A bottom-up level (``level_loop``'s step): the JFQ as a bitmap, ``ib_bu``, dense identification."""
    dg, sp, launch, tpb = s.dg, s.sp, s.launch, s.launch.thread_tpb
    n, nw = dg.num_vertices, sp.unfull.size
    if s.queue_valid:
        fast(fill_words)[launch.blocks(nw, tpb), tpb](sp.changed, np.uint32(0))
        fast(queue_to_bitmap)[launch.blocks(s.qsize, tpb), tpb](s.queue, s.qsize, sp.changed)
    fast(ib_bu)[launch.blocks(n, tpb), tpb](
        dg.in_indptr, dg.in_indices, sp.words, sp.pattern_for(s.g), sp.prev, sp.status, sp.unfull, sp.changed, n,
        sp.counters, s.cur, s.nxt, sp.idle)
    fast(ib_identify_dense)[launch.blocks(nw, tpb), tpb](
        dg.indptr, dg.in_indptr, sp.words, sp.prev, sp.status, sp.changed, sp.unfull, sp.idle, n, level + 1,
        s.depths, s.g, s.write_depth, sp.counters, s.nxt, s.cur)
    row = s.row(s.nxt)
    s.qsize, s.queue_valid = int(row[NF]), False
    s.cur, s.nxt = s.nxt, s.cur
    return (s, int(row[EXAMINED]), s.qsize, int(row[SCOUT]), int(row[NUNFULL]), int(row[UNEXPLORED]),
            s.counts(row))


_levels = bind(sys.modules[__name__], "gpu_ibfs_levels")


def traverse(dg, sources, words: int, mode: int, alpha: float, beta: float, max_depth: int = -1,
             depth_dtype=None, keep_status: bool = False, launch: device.Launch | None = None,
             depths_to_host: bool = True):
    """Joint BFS of ``sources`` (instance j = bit j) on the DeviceGraph ``dg``.

    Returns (hist, stats, times, overflow, depths, status) like the CPU ``traverse``:
    ``hist[k, j]`` vertices instance j reached at depth k (64 W columns), ``stats``
    rows of LEVEL_FIELDS, ``times`` their seconds, ``overflow`` True when ``depth_dtype``
    was too narrow (the caller widens and reruns); ``depths`` the (n, g) host matrix when
    ``depth_dtype`` is given (its maximum = unreachable; with ``depths_to_host=False`` the
    device block itself, n g values and perhaps more, reused by the next group of the same
    size), ``status`` the final BSA (n W uint64) when ``keep_status``.
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
        fast(fill_any)[launch.blocks(depths.size, launch.thread_tpb), launch.thread_tpb](
            depths, np.dtype(depth_dtype).type(cap + 1))
    else:
        depths, cap = sp.counters, 0           # any int64 array: never written
    space = _Group(dg, sp, launch, sources, depths, write_depth)
    _, hist, stats, ticks, overflow = _levels(space, g, n, int(dg.graph.in_indptr[n]), mode, alpha, beta, max_depth,
                                              write_depth, cap)
    depth_host = None
    if write_depth:
        depth_host = device.to_host(depths)[:n * g].reshape(n, g) if depths_to_host else depths
    status_host = device.to_host(sp.prev)[:n * words] if keep_status else None
    return hist, stats, ticks * seconds_per_tick(), overflow, depth_host, status_host
