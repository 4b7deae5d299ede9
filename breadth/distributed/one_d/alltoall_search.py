"""Distributed BFS with the all-to-all exchange on owner state (Buluç & Madduri, SC'11, 1D).

Owners keep parent and depth of their vertices only. Per level:

* top-down: the owned frontier is expanded (``owned.steps.td_step``); owned
  neighbours are settled at once, (vertex, parent) candidates for remote ones are
  routed to their owners (``AllToAll.route``: Alltoall of counts + Alltoallv) and
  settled there (``owned.steps.apply_received``);
* bottom-up: the frontier, as this rank's words of a bitmap, is all-gathered
  (``AllToAll.gather_frontier``) and owned unvisited vertices look for a parent in it
  (``owned.steps.bu_step``);
* control: one small Allreduce gives every rank the global frontier size and scout
  count (termination and the direction decision); before the first level a second
  one sums the seeds' out-degrees, which only their owners know.

The layout supplies ``DistSearch``'s hooks: the two local steps above (bottom-up
includes the frontier's all-gather) and ``_exchange`` (top-down: route and settle; then
the control Allreduce); the level loop and the policy are ``DistSearch._run``'s.

Invariants between levels: every rank agrees on the level, the frontier size and the
direction; owned vertices at depth ``level`` are the local frontier (the queue after
top-down, this rank's bitmap words after bottom-up); a vertex is settled (depth >= 0)
exactly when it has been reached.
"""
from __future__ import annotations

import numpy as np

from ...kernels.frontier import bitmap_to_queue, num_words, queue_to_bitmap
from ...kernels.top_down import frontier_edge_offsets
from ..owned import steps as steps_owned
from ..owned.alltoall import AllToAll
from ..search_base import DirectionSearch


class AllToAllSearch(DirectionSearch):
    """The owner-state search with the all-to-all exchange."""

    def __init__(self, comm, lg, options=None):
        super().__init__(comm, lg, options)
        n, nl = lg.num_vertices, lg.num_local
        self.exchange = AllToAll(comm, lg.partition, lg.vid_dtype)
        self.queue = np.empty(max(nl, 1), dtype=np.int64)
        self.next_queue = np.empty(max(nl, 1), dtype=np.int64)
        self.offsets = np.empty(nl + 1, dtype=np.int64)
        self.front = np.empty(num_words(n), dtype=np.uint64)       # the gathered global frontier
        self.sent = np.empty(num_words(n), dtype=np.uint64)        # remote vertices already sent this search
        self.words = np.empty(num_words(nl), dtype=np.uint64)      # this rank's frontier words
        self.ntail = np.zeros(1, dtype=np.int64)
        self.ctail = np.zeros(1, dtype=np.int64)

    @property
    def nbytes(self) -> int:
        return (self.queue.nbytes * 2 + self.offsets.nbytes + self.front.nbytes + self.sent.nbytes
                + self.words.nbytes + self.exchange.nbytes)

    # the hooks of ``DistSearch._run``
    def _seed(self, seeds):
        self.words_hold_frontier = False       # the frontier is queue[:qsize], or this rank's bitmap words
        return self.seed_owned(seeds), None

    def _bottom_up(self, level, frontier):
        lg = self.lg
        if not self.words_hold_frontier:
            queue_to_bitmap(self.queue, self.qsize, self.words, self.atomic)
            self.words_hold_frontier = True
        self.exchange.gather_frontier(self.words, self.front)
        self.new, examined, self.scout = steps_owned.bu_step(lg.in_indptr, lg.in_indices, lg.indptr, self.parent,
                                                             self.depth, self.front, self.words, level)
        return examined

    def _top_down(self, level, frontier):
        lg = self.lg
        if self.words_hold_frontier:
            self.qsize, _ = bitmap_to_queue(self.words, lg.indptr, self.queue)
            self.words_hold_frontier = False
        examined = frontier_edge_offsets(lg.indptr, self.queue, self.qsize, self.offsets)
        self.cand_v = np.empty(examined, dtype=np.int64)
        self.cand_p = np.empty(examined, dtype=np.int64)
        self.ntail[0] = 0
        self.ctail[0] = 0
        self.scout = steps_owned.td_step(lg.indptr, lg.indices, self.queue, self.qsize, self.offsets,
                                         self.pmap, self.parent, self.depth, level, self.sent,
                                         self.next_queue, self.ntail, self.cand_v, self.cand_p, self.ctail,
                                         self.atomic)
        return examined

    def _exchange(self, level, bottom_up):
        """Top-down: the candidates to their owners, who settle them; then the level's counts."""
        if not bottom_up:
            pairs, npairs = self.exchange.route(self.cand_v, self.cand_p, int(self.ctail[0]))
            self.scout += steps_owned.apply_received(pairs, npairs, self.pmap, self.lg.indptr,
                                                     self.parent, self.depth, level, self.next_queue, self.ntail,
                                                     self.atomic)
            self.queue, self.next_queue = self.next_queue, self.queue
            self.qsize = self.new = int(self.ntail[0])
        return self.global_counts(self.new, self.scout)
