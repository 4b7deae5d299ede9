"""Distributed BFS with the ButterFly exchange on replicated levels (Green, "ButterFly BFS", Alg. 2).

Every rank keeps the level of every vertex (``lvl``) and the global queue of the level
being built. Per level: the local step on the owned frontier (``one_d.replicated_steps``:
top-down from the owned part of the queue, or bottom-up against the frontier bitmap
rebuilt locally from the queue), then ``Butterfly.synchronise`` completes the queue to
the level's global frontier on every rank. The frontier size is then known everywhere
and the scout count comes from a replicated out-degree array, so a level needs no other
communication (no control messages).

Parents never travel: owners record those they find, small frontiers are kept, and after
the search ``one_d.replicated_steps.recover_parents`` gives every other owned vertex a parent
from the replicated levels.

Invariants between levels: ``lvl`` is identical on all ranks; the global queue holds the
frontier (level ``level``) in the same set on every rank.
"""
from __future__ import annotations

import time

import numpy as np

from ...kernels.frontier import fill, num_words, queue_to_bitmap
from ...kernels.policy import BU, TD
from ...kernels.top_down import frontier_edge_offsets
from ..search_base import DistSearch, multithreaded, new_record
from . import replicated_steps as steps
from .butterfly_exchange import Butterfly

SMALL_FRONTIER = 256      # frontiers up to this size are kept for the parent recovery


def small_levels(small: dict, nlevels: int):
    """The kept small frontiers by level: (range[d] = (start, stop) in values, (-1, -1) if not kept; values)."""
    rng = np.full((nlevels, 2), -1, dtype=np.int64)
    vals, pos = [], 0
    for d in range(nlevels):
        if d in small:
            rng[d] = (pos, pos + small[d].size)
            vals.append(small[d])
            pos += small[d].size
    return rng, (np.concatenate(vals) if vals else np.zeros(0, dtype=np.int64))


class ButterflySearch(DistSearch):
    """The replicated-levels search with the butterfly exchange (``options.fanout``, ``options.encoding``)."""

    def __init__(self, comm, lg, options=None):
        super().__init__(comm, lg, options)
        n, nl = lg.num_vertices, lg.num_local
        self.exchange = Butterfly(comm, n, self.options.fanout, lg.vid_dtype, self.options.encoding)
        self.queue = np.empty(max(nl, 1), dtype=np.int64)
        self.offsets = np.empty(nl + 1, dtype=np.int64)
        self.front = np.empty(num_words(n), dtype=np.uint64)
        self.lvl = np.empty(n, dtype=lg.vid_dtype)
        self.odeg = lg.partition.allgather(comm, lg.out_degree().astype(lg.vid_dtype))   # replicated out-degrees

    @property
    def nbytes(self) -> int:
        return (self.queue.nbytes + self.offsets.nbytes + self.front.nbytes + self.exchange.nbytes
                + self.lvl.nbytes + self.odeg.nbytes)

    def control_messages(self, level: int, direction: int) -> int:
        return 0

    def _run(self, roots, max_depth):
        lg, ex, comm = self.lg, self.exchange, self.comm
        pmap = lg.partition.kernel_map()
        lvl, gq, tail, odeg = self.lvl, ex.gqueue, ex.tail, self.odeg
        atomic = multithreaded()
        parent = np.empty(lg.num_local, dtype=np.int64)
        fill(lvl, -1)
        fill(parent, -1)
        seeds = np.unique(roots)
        lvl[seeds] = 0
        total = seeds.size
        gq[:total] = seeds
        qsize, scout = steps.owned_and_scout(gq, total, pmap, odeg, self.queue)
        policy = self.policy()
        records = []
        small = {0: seeds}           # small frontiers by level, for parent recovery
        level = 0
        while total > 0 and level != max_depth:
            comm.next_level()
            t0 = time.perf_counter()
            frontier = total
            bottom_up = policy.direction(scout)
            tail[0] = 0
            if bottom_up:
                queue_to_bitmap(gq, total, self.front, atomic)
                examined = steps.bu_step(lg.in_indptr, lg.in_indices, pmap, lvl, self.front, level, gq, tail, parent)
            else:
                frontier_edge_offsets(lg.indptr, self.queue, qsize, self.offsets)
                examined = steps.td_step(lg.indptr, lg.indices, self.queue, qsize, self.offsets, lvl, level, gq, tail,
                                         pmap, parent, atomic)
            total = ex.synchronise(int(tail[0]), lvl, level + 1, atomic)
            qsize, scout = steps.owned_and_scout(gq, total, pmap, odeg, self.queue)
            if 0 < total <= SMALL_FRONTIER:
                small[level + 1] = np.sort(gq[:total].astype(np.int64))
            if bottom_up:
                policy.after_bottom_up(total, frontier)
            records.append(new_record(BU if bottom_up else TD, frontier, total, examined, t0))
            level += 1
        depth = np.empty(lg.num_local, dtype=np.int64)
        small_range, small_vals = small_levels(small, level + 1)
        steps.recover_parents(lg.in_indptr, lg.in_indices, pmap, lvl, parent, depth, small_range, small_vals)
        return parent, depth, records
