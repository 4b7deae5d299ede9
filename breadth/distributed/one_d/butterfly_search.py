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

The layout supplies ``DistSearch``'s hooks: the two local steps, ``_exchange`` (the
butterfly rounds, the owned part of the new frontier and its scout count) and ``_finish``
(the parent recovery); the level loop and the policy are ``DistSearch._run``'s.

Invariants between levels: ``lvl`` is identical on all ranks; the global queue holds the
frontier (level ``level``) in the same set on every rank.
"""
from __future__ import annotations

import time

import numpy as np

from ...kernels.frontier import fill, num_words, queue_to_bitmap
from ...kernels.top_down import frontier_edge_offsets
from ..search_base import DirectionSearch
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


class ButterflySearch(DirectionSearch):
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

    # ------------------------------------------------------------------ the hooks of DistSearch._run
    def _seed(self, seeds):
        lvl, gq = self.lvl, self.exchange.gqueue
        self.pmap = self.lg.partition.kernel_map()
        self.parent = np.empty(self.lg.num_local, dtype=np.int64)
        fill(lvl, -1)
        fill(self.parent, -1)
        lvl[seeds] = 0
        gq[:seeds.size] = seeds
        self.small = {0: seeds}           # small frontiers by level, for parent recovery
        return seeds.size, self._owned_frontier(seeds.size)

    def _owned_frontier(self, total):
        """The owned part of the global queue into ``queue[:qsize]``; returns the frontier's scout count."""
        self.qsize, scout = steps.owned_and_scout(self.exchange.gqueue, total, self.pmap, self.odeg, self.queue)
        return scout

    def _bottom_up(self, level, frontier):
        lg, ex = self.lg, self.exchange
        ex.tail[0] = 0
        queue_to_bitmap(ex.gqueue, frontier, self.front, self.atomic)
        return steps.bu_step(lg.in_indptr, lg.in_indices, self.pmap, self.lvl, self.front, level, ex.gqueue, ex.tail,
                             self.parent)

    def _top_down(self, level, frontier):
        lg, ex = self.lg, self.exchange
        ex.tail[0] = 0
        frontier_edge_offsets(lg.indptr, self.queue, self.qsize, self.offsets)
        return steps.td_step(lg.indptr, lg.indices, self.queue, self.qsize, self.offsets, self.lvl, level, ex.gqueue,
                             ex.tail, self.pmap, self.parent, self.atomic)

    def _exchange(self, level, bottom_up):
        """The butterfly rounds complete the queue to the global frontier; its size and scout count."""
        total = self.exchange.synchronise(int(self.exchange.tail[0]), self.lvl, level + 1, self.atomic)
        scout = self._owned_frontier(total)
        if 0 < total <= SMALL_FRONTIER:
            self.small[level + 1] = np.sort(self.exchange.gqueue[:total].astype(np.int64))
        return total, scout

    def _finish(self, seeds, levels):
        """Every owned vertex's depth from the replicated levels, a parent for those without one."""
        lg = self.lg
        depth = np.empty(lg.num_local, dtype=np.int64)
        small_range, small_vals = small_levels(self.small, levels + 1)
        steps.recover_parents(lg.in_indptr, lg.in_indices, self.pmap, self.lvl, self.parent, depth, small_range,
                              small_vals)
        return self.parent, depth


def scanned_arcs(in_indptr, in_indices, lvl, nl: int) -> int:
    """The in-arcs ``recover_parents`` scans when no parent is known and no small frontier is kept:
    for each of the ``nl`` owned vertices at depth d > 0, up to and including its first in-neighbour
    at depth d - 1 (vertex ids are local = global on one rank)."""
    ip, ix = np.asarray(in_indptr, dtype=np.int64), np.asarray(in_indices, dtype=np.int64)
    d = np.asarray(lvl[:nl], dtype=np.int64)
    deg = np.diff(ip)
    rows = np.repeat(np.arange(nl), deg)
    hit = (np.asarray(lvl)[ix].astype(np.int64) == d[rows] - 1) & (d[rows] > 0)
    first = np.full(nl, ix.size, dtype=np.int64)
    np.minimum.at(first, rows[hit], np.flatnonzero(hit))
    found = (d > 0) & (first < ix.size)
    return int((first[found] - ip[:-1][found] + 1).sum())


def self_finish(engine, root: int, reps: int = 7) -> float:
    """Seconds per in-arc that the parent recovery scans, on a one-rank ``engine`` of this layout
    (a search on one rank recovers nothing; ``planner.overhead`` prices a run's recovery with it):
    after a search from ``root``, ``recover_parents`` with every parent forgotten, as if another
    rank had found every vertex, less the same with every parent known (the sweep alone), over
    ``scanned_arcs``; medians of ``reps`` calls each."""
    st = engine.state
    res = engine.search(root)
    lg, nl = st.lg, st.lg.num_local
    lvl = st.lvl.copy()
    known = np.asarray(res.parent, dtype=np.int64).copy()
    forgot = np.where(lvl[:nl] == 0, known, -1).astype(np.int64)
    depth = np.empty(nl, dtype=np.int64)
    no_small, none = np.full((0, 2), -1, dtype=np.int64), np.zeros(0, dtype=np.int64)

    def timed(parent):
        p = parent.copy()
        t = time.perf_counter()
        steps.recover_parents(lg.in_indptr, lg.in_indices, st.pmap, lvl, p, depth, no_small, none)
        return time.perf_counter() - t

    timed(forgot)                                       # loads the kernel
    spent = np.median([timed(forgot) for _ in range(reps)]) - np.median([timed(known) for _ in range(reps)])
    arcs = scanned_arcs(lg.in_indptr, lg.in_indices, lvl, nl)
    return float(max(spent, 0.0) / arcs) if arcs else 0.0
