"""The host loop of a single-source GPU BFS: direction-optimizing, top-down (LRB) or bottom-up.

The same driver as ``breadth.kernels.direction_optimizing``, run from the host:
before each level the one direction policy (``breadth.kernels.policy.Policy``,
Beamer's alpha/beta rule) picks top-down or bottom-up from the frontier size
and scout count; ``mode`` pins it for ``algorithm="td"``/``"bu"``. Those counts
are computed on the device by the level's kernels (``primitives``: the level
counter rows), and a level costs exactly one small device->host copy: the head
of the counter row (frontier size, scout count, edges examined, LRB histogram;
``primitives.HEAD`` int64). No kernel copies per vertex; the seeds go up once
and parent/depth come down once per search. ``device.count_transfers`` counts
it, and the tests check it.

A top-down level is ``lrb.launch_top_down``: it bins the frontier (``lrb.lrb_scatter``,
skipped when one bin holds it all) and launches one LRB kernel per non-empty
granularity; a frontier of at most ``SMALL_FRONTIER`` vertices without block-bin
hubs (degree >= 1024) goes to the warp kernel as it is (a warp per vertex suits
every degree below 1024, and the level saves the binning launch: deep, thin graphs
are a long run of such levels). A bottom-up level runs ``bottom_up.bu_step``; the
frontier changes between a queue and a bitmap only when the direction changes.

Invariants between levels (as on the CPU): ``depth[v] == level`` exactly for the
frontier, ``parent[v] == -1`` iff v is unvisited, every seed is its own parent at
depth 0; the frontier is in ``queue[:qsize]`` (top-down) or the ``front`` bitmap
(bottom-up); counter row ``cur`` holds its counts and zeroed cursors.
"""
from __future__ import annotations

import time

import numpy as np

from ..kernels.policy import ALPHA, BETA, Policy
from ..result import DIRECTIONS, BFSResult, LevelStats
from . import device
from .bottom_up import bitmap_to_queue, bu_step, fill_search, fill_words, queue_to_bitmap, seed, visited_from_parent
from .lrb import SMALL_FRONTIER, launch_top_down, td_block, td_thread, td_warp
from .primitives import BIN0, COUNT, CURSOR, EXAMINED, HEAD, NBINS, ROW, SCOUT

__all__ = ["bfs", "SearchSpace", "SMALL_FRONTIER", "host_bins"]


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
        self.counters = device.empty(2 * ROW, np.int64)


def host_bins(degrees) -> np.ndarray:
    """The LRB histogram of a set of degrees (what the device tallies), computed on the host."""
    x = np.asarray(degrees, dtype=np.int64).copy()
    b = np.zeros(x.size, dtype=np.int64)
    while np.any(x > 0):           # bit length: floor(log2 d) + 1, exactly, for every int64
        b += x > 0
        x >>= 1
    return np.bincount(b, minlength=NBINS)[:NBINS].astype(np.int64)


def bfs(dg, roots, mode: int, alpha: float = ALPHA, beta: float = BETA, max_depth: int = -1,
        algorithm: str = "do", launch: device.Launch | None = None) -> BFSResult:
    """BFS on a DeviceGraph from the int64 seed array ``roots`` (checked by the caller).

    ``mode``/``max_depth`` as ``checks.check_algorithm``/``check_max_depth`` return them;
    ``launch`` overrides the launch shapes (tests). Returns host arrays in a BFSResult
    whose ``engine`` is "cuda".
    """
    launch = device.check_launch(launch or device.default_launch())
    n = dg.num_vertices
    sp = dg.search_space()
    seeds = np.unique(np.asarray(roots, dtype=np.int64))
    t0 = time.perf_counter()
    tpb = launch.thread_tpb
    fill_search[launch.blocks(n, tpb), tpb](sp.parent, sp.depth, sp.counters)
    seed[launch.blocks(seeds.size, tpb), tpb](device.to_device(seeds), dg.indptr, sp.parent, sp.depth, sp.queue,
                                              sp.counters)
    degrees = dg.out_degree(seeds)
    qsize, scout, bins = int(seeds.size), int(degrees.sum()), host_bins(degrees)
    policy = Policy(mode, alpha, beta, n, dg.num_arcs)
    queue, next_queue = sp.queue, sp.next_queue
    front, next_front, spare = sp.front, sp.next_front, sp.spare
    cur, nxt = 0, ROW
    in_bitmap = False
    levels = []
    level = 0
    while qsize > 0 and level != max_depth:
        tl = time.perf_counter()
        bottom_up = policy.direction(scout)
        if bottom_up:
            if not in_bitmap:
                fill_words[launch.blocks(front.size, tpb), tpb](front, np.uint32(0))
                fill_words[launch.blocks(front.size, tpb), tpb](next_front, np.uint32(0))
                queue_to_bitmap[launch.blocks(qsize, tpb), tpb](queue, qsize, front)
                visited_from_parent[launch.blocks(front.size, tpb), tpb](sp.parent, sp.visited, n)
                in_bitmap = True
            bu_step[launch.blocks(n, tpb), tpb](dg.indptr, dg.in_indptr, dg.in_indices, sp.parent, sp.depth, front,
                                                next_front, spare, sp.visited, n, level, sp.counters, nxt, cur)
            head = device.to_host(sp.counters[nxt:nxt + HEAD])
            examined = int(head[EXAMINED])
            policy.after_bottom_up(int(head[COUNT]), qsize)
            front, next_front, spare = next_front, spare, front
        else:
            if in_bitmap:
                bitmap_to_queue[launch.blocks(front.size, tpb), tpb](front, queue, sp.counters, cur + CURSOR)
                in_bitmap = False
            if launch_top_down((td_thread, td_warp, td_block), launch, dg.indptr, dg.indices, sp.parent, sp.depth, 0,
                               queue, qsize, bins, level, next_queue, sp.binned, sp.counters, cur, nxt, cur):
                head = device.to_host(sp.counters[nxt:nxt + HEAD])
            else:
                head = np.zeros(HEAD, dtype=np.int64)
            examined = scout
            queue, next_queue = next_queue, queue
        found = int(head[COUNT])
        levels.append(LevelStats(level, DIRECTIONS[int(bottom_up)], qsize, examined, found,
                                 time.perf_counter() - tl))
        qsize, scout, bins = found, int(head[SCOUT]), head[BIN0:BIN0 + NBINS]
        cur, nxt = nxt, cur
        level += 1
    parent = device.to_host(sp.parent)[:n]
    depth = device.to_host(sp.depth)[:n]
    seconds = time.perf_counter() - t0
    return BFSResult(parent, depth, np.asarray(roots, dtype=np.int64), algorithm, seconds, levels, engine="cuda",
                     extra={"device": device.device_name()})
