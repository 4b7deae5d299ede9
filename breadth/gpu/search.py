"""The steps of a single-source GPU BFS: direction-optimizing, top-down (LRB) or bottom-up.

The level loop is the CPU search's (``breadth.kernels.direction_optimizing``'s
``_levels``, run here in Python): the one direction policy (Beamer's alpha/beta rule,
``breadth.kernels.policy``) picks top-down or bottom-up from the frontier size and scout
count; ``mode`` pins it for ``algorithm="td"``/``"bu"``. This module supplies its steps
(``to_bitmap``, ``to_queue``, ``bottom_up_level``, ``top_down_levels``). The counts are
computed on the device by the level's kernels (``primitives``: the level counter rows), and
a level costs exactly one small device->host copy: the head of the counter row (frontier
size, scout count, edges examined, LRB histogram; ``primitives.HEAD`` int64), from a view
of it sliced once into a pinned buffer (``SearchSpace.head_copies``: ``launcher.HeadCopy``,
numba-cuda's driver call made without its per-copy checks). No kernel
copies per vertex; one root is seeded by the kernel that fills parent and depth (several
seeds go up once), and parent/depth come down once per search.
``device.count_transfers`` counts it, and the tests check it. Every kernel launches through
``launcher.fast`` (each device array's parameters marshalled once, not on every launch).

A top-down level is ``lrb.launch_top_down``: it bins the frontier (``lrb.lrb_scatter``,
skipped when one bin holds it all) and expands every granularity in one launch
(``lrb.td_lrb``); a frontier of at most ``SMALL_FRONTIER`` vertices without block-bin
hubs (degree >= 1024) goes to its warp part as it is (a warp per vertex suits
every degree below 1024, and the level saves the binning launch: deep, thin graphs
are a long run of such levels). A bottom-up level runs ``bottom_up.bu_step``; the
frontier changes between a queue and a bitmap only when the direction changes
(``bottom_up.bitmaps_from_depth``, one launch; ``bottom_up.bitmap_to_queue``).

Invariants between levels (as on the CPU): ``depth[v] == level`` exactly for the
frontier, ``parent[v] == -1`` iff v is unvisited, every seed is its own parent at
depth 0; the frontier is in ``queue[:qsize]`` (top-down) or the ``front`` bitmap
(bottom-up); counter row ``cur`` holds its counts and zeroed cursors.
"""
from __future__ import annotations

import sys
import time

import numpy as np

from ..kernels.direction_optimizing import level_loop
from ..kernels.levels import bind_steps, record, seconds_per_tick, ticks
from ..kernels.policy import ALPHA, BETA, TD, policy_explored, policy_state
from ..result import BFSResult
from . import device
from .bottom_up import bitmap_to_queue, bitmaps_from_depth, bu_step, fill_search, in_degree_zero_words, seed
from .launcher import HeadCopy, fast
from .lrb import SMALL_FRONTIER, launch_top_down, td_lrb
from .primitives import BIN0, COUNT, CURSOR, EXAMINED, HEAD, NBINS, ROW, SCOUT, host_bins

__all__ = ["bfs", "SearchSpace", "SMALL_FRONTIER"]

HOST_PAIRS = 4     # pinned (parent, depth) pairs a SearchSpace keeps for host results
DEVICE_PAIRS = 4   # device (parent, depth) pairs lent to results that a SearchSpace keeps for reuse


class SearchSpace:
    """Device memory of single-source searches on one DeviceGraph (allocated once, reused)."""

    def __init__(self, dg):
        n = dg.num_vertices
        words = max(1, (n + 31) // 32)
        self.parent = device.empty(max(n, 1), np.int64)
        self.depth = device.empty(max(n, 1), np.int64)
        self.queue = device.empty(max(n, 1), dg.vid_dtype)
        self.next_queue = device.empty(max(n, 1), dg.vid_dtype)
        self.binned = device.empty(max(n, 1), dg.vid_dtype)
        self.front = device.empty(words, np.uint32)
        self.next_front = device.empty(words, np.uint32)
        self.spare = device.empty(words, np.uint32)
        self.visited = device.empty(words, np.uint32)
        self.idle = device.empty(words, np.uint32)          # vertices without in-edges (set once, here)
        launch = device.default_launch()
        fast(in_degree_zero_words)[launch.blocks(n, launch.thread_tpb), launch.thread_tpb](dg.in_indptr, n, self.idle)
        self.counters = device.empty(2 * ROW, np.int64)
        head_host = device.pinned(HEAD, np.int64)          # where a level's head is copied
        self.head_copies = (HeadCopy(self.counters[:HEAD], head_host),       # each row's head, sliced once
                            HeadCopy(self.counters[ROW:ROW + HEAD], head_host))
        self.stream = None
        self.hosts = []    # pinned (parent, depth) pairs, each reused while no result holds it
        self.host = None   # the pair the last host result was copied into
        self.lent = []     # device pairs whose views results hold (or held)

    def device_results(self, n: int):
        """The search's parent/depth for a result to keep on the device: views of its arrays,
        which are then lent; the next search writes into a lent pair none of whose views is
        alive any more, else into a new pair (allocated here, after the search's clock stopped)."""
        parent, depth = self.parent[:n], self.depth[:n]
        self.lent.append((self.parent, self.depth))
        for i, pair in enumerate(self.lent):
            if not any(device.views_alive(a) for a in pair):
                self.parent, self.depth = self.lent.pop(i)
                break
        else:
            self.parent = device.empty(max(n, 1), np.int64)
            self.depth = device.empty(max(n, 1), np.int64)
        del self.lent[:-DEVICE_PAIRS]          # older pairs are freed with their last view
        return parent, depth

    def _free_pair(self):
        """A pooled pinned pair that no result holds (the pool's tuple, this loop and
        ``getrefcount``'s argument are the only references to a free array), else None."""
        for pair in self.hosts:
            if all(sys.getrefcount(a) <= 3 for a in pair):
                return pair
        return None

    def host_results(self, n: int):
        """Copy parent/depth into pinned host arrays, asynchronously on one stream, and return them.

        A pooled pinned pair is reused when no result still refers to it: a loop that keeps
        the last result (``r = bfs(...)``) alternates between two pairs, and a returned
        result is never overwritten. When every pooled pair is held, a new pair is
        allocated, and kept while the pool has fewer than ``HOST_PAIRS``.
        """
        self.stream = self.stream or device.stream()
        pair = self._free_pair()
        if pair is None:
            pair = (device.pinned(max(n, 1), np.int64), device.pinned(max(n, 1), np.int64))
            if len(self.hosts) < HOST_PAIRS:
                self.hosts.append(pair)
        self.host = pair
        parent, depth = pair
        device.to_host_async(self.parent[:n], parent[:n], self.stream)
        device.to_host_async(self.depth[:n], depth[:n], self.stream)
        self.stream.synchronize()
        return parent[:n], depth[:n]


class _Search:
    """What the GPU search keeps between levels (the single-source loop's ``space``): device
    memory and launch shapes, the frontier's buffers (rotated), the counter rows (``cur``: the
    last level's, ``nxt``: the next's), the last head row and the frontier's LRB histogram."""

    def __init__(self, dg, sp, launch, bins):
        self.dg, self.sp, self.launch = dg, sp, launch
        self.queue, self.next_queue = sp.queue, sp.next_queue
        self.front, self.next_front, self.spare = sp.front, sp.next_front, sp.spare
        self.cur, self.nxt = 0, ROW
        self.bins = bins
        self.head = None
        self.level = 0          # the frontier's depth

    def read_head(self):
        """The head of the counter row the level just wrote (through ``SearchSpace.head_copies``);
        the rows then swap."""
        self.head = self.sp.head_copies[self.nxt // ROW]().copy()
        self.cur, self.nxt = self.nxt, self.cur
        return self.head


def to_bitmap(s, qsize):
    """The frontier (the vertices at depth ``s.level``) as the ``front`` bitmap, with ``visited``
    (and the vertices without in-edges) and a cleared ``next_front``, in one launch (a switch to
    bottom-up)."""
    tpb, launch = s.launch.thread_tpb, s.launch
    fast(bitmaps_from_depth)[launch.blocks(32 * s.front.size, tpb), tpb](
        s.sp.depth, s.level, s.sp.idle, s.front, s.next_front, s.sp.visited, s.dg.num_vertices)
    return s


def to_queue(s):
    """The frontier bitmap as the queue (a switch back to top-down); its size and scout count."""
    tpb, launch = s.launch.thread_tpb, s.launch
    fast(bitmap_to_queue)[launch.blocks(s.front.size, tpb), tpb](s.front, s.queue, s.sp.counters, s.cur + CURSOR)
    return s, int(s.head[COUNT]), int(s.head[SCOUT])


def bottom_up_level(s, level):
    """One bottom-up level (``bottom_up.bu_step``); the bitmaps rotate."""
    dg, sp, tpb, launch = s.dg, s.sp, s.launch.thread_tpb, s.launch
    fast(bu_step)[launch.blocks(dg.num_vertices, tpb), tpb](
        dg.indptr, dg.in_indptr, dg.in_indices, sp.parent, sp.depth, s.front, s.next_front, s.spare, sp.visited,
        dg.num_vertices, level, sp.counters, s.nxt, s.cur)
    head = s.read_head()
    s.level = level + 1
    s.front, s.next_front, s.spare = s.next_front, s.spare, s.front
    s.bins = head[BIN0:BIN0 + NBINS]
    return s, int(head[COUNT]), int(head[EXAMINED])


def top_down_levels(s, qsize, scout, level, policy, max_depth, stats, times, nlev):
    """One top-down level (``lrb.launch_top_down``), its row recorded; the queues swap."""
    dg, sp = s.dg, s.sp
    policy_explored(policy, scout)
    t0 = ticks()
    if launch_top_down(td_lrb, s.launch, dg.indptr, dg.indices, sp.parent, sp.depth, 0,
                       s.queue, qsize, s.bins, level, s.next_queue, sp.binned, sp.counters, s.cur, s.nxt, s.cur):
        head = s.read_head()
    else:
        head = np.zeros(HEAD, dtype=np.int64)
        s.cur, s.nxt = s.nxt, s.cur
    found = int(head[COUNT])
    stats, times, nlev = record(stats, times, nlev, level, TD, qsize, scout, found, ticks() - t0)
    s.queue, s.next_queue = s.next_queue, s.queue
    s.bins = head[BIN0:BIN0 + NBINS]
    s.level = level + 1
    return s, found, int(head[SCOUT]), level + 1, stats, times, nlev


_levels = bind_steps(level_loop, sys.modules[__name__], "gpu_levels")


def bfs(dg, roots, mode: int, alpha: float = ALPHA, beta: float = BETA, max_depth: int = -1,
        algorithm: str = "do", launch: device.Launch | None = None, to_host: bool = True) -> BFSResult:
    """BFS on a DeviceGraph from the int64 seed array ``roots`` (checked by the caller).

    ``mode``/``max_depth`` as ``checks.check_algorithm``/``check_max_depth`` return them;
    ``launch`` overrides the launch shapes (tests). Returns a BFSResult whose ``engine`` is
    "cuda": parent/depth in pinned host memory, or with ``to_host=False`` numba device
    arrays (the clock then stops with the search complete in device memory).
    """
    launch = device.check_launch(launch or device.default_launch())
    n = dg.num_vertices
    sp = dg.search_space()
    seeds = np.unique(np.asarray(roots, dtype=np.int64))
    t0 = time.perf_counter()
    tpb = launch.thread_tpb
    one = int(seeds[0]) if seeds.size == 1 else -1          # one root is seeded by the fill itself
    fast(fill_search)[launch.blocks(n, tpb), tpb](sp.parent, sp.depth, sp.counters, sp.queue, dg.indptr, one)
    if one < 0:
        fast(seed)[launch.blocks(seeds.size, tpb), tpb](
            device.to_device(seeds), dg.indptr, sp.parent, sp.depth, sp.queue, sp.counters)
    degrees = dg.out_degree(seeds)
    policy = policy_state(int(mode), float(alpha), float(beta), int(n), int(dg.num_arcs))
    space = _Search(dg, sp, launch, host_bins(degrees))
    _, stats, ticks = _levels(space, int(seeds.size), int(degrees.sum()), policy, max_depth)
    if to_host:
        parent, depth = sp.host_results(n)
        seconds = time.perf_counter() - t0
    else:
        device.require_cuda().synchronize()
        seconds = time.perf_counter() - t0
        parent, depth = sp.device_results(n)     # the next search's arrays are found after the clock stops
    result = BFSResult.from_kernel(parent, depth, np.asarray(roots, dtype=np.int64), algorithm, seconds, stats,
                                   ticks * seconds_per_tick(), engine="cuda")
    result.extra = {"device": device.device_name()}
    return result
