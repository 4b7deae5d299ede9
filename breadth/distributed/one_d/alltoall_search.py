"""Distributed BFS with the all-to-all exchange on owner state (Buluç & Madduri, SC'11, 1D).

Owners keep parent and depth of their vertices only. Per level:

* top-down: the owned frontier is expanded (``one_d.owned_steps.td_step``); owned
  neighbours are settled at once, (vertex, parent) candidates for remote ones are
  routed to their owners (``AllToAll.route``: Alltoall of counts + Alltoallv) and
  settled there (``one_d.owned_steps.apply_received``);
* bottom-up: the frontier, as this rank's words of a bitmap, is all-gathered
  (``AllToAll.gather_frontier``) and owned unvisited vertices look for a parent in it
  (``one_d.owned_steps.bu_step``);
* control: one small Allreduce gives every rank the global frontier size and scout
  count (termination and the direction decision); before the first level a second
  one sums the seeds' out-degrees, which only their owners know.

Invariants between levels: every rank agrees on the level, the frontier size and the
direction; owned vertices at depth ``level`` are the local frontier (the queue after
top-down, this rank's bitmap words after bottom-up); a vertex is settled (depth >= 0)
exactly when it has been reached.
"""
from __future__ import annotations

import time

import numpy as np

from ...kernels.frontier import bitmap_to_queue, num_words, queue_to_bitmap
from ...kernels.policy import BU, TD
from ...kernels.top_down import frontier_edge_offsets
from ..search_base import DistSearch, multithreaded, new_record
from . import owned_steps as steps_owned
from .alltoall_exchange import AllToAll


class AllToAllSearch(DistSearch):
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

    def control_messages(self, level: int, direction: int) -> int:
        P = self.comm.size
        return P * (P - 1) * (2 if level == 0 else 1)

    def _run(self, roots, max_depth):
        lg, ex, comm = self.lg, self.exchange, self.comm
        pmap = lg.partition.kernel_map()
        atomic = multithreaded()
        parent, depth, own, total = self.seed_owned(roots)
        queue, next_queue = self.queue, self.next_queue
        qsize = own.size
        policy = self.policy()
        records = []
        level = 0
        scout = None
        words_hold_frontier = False
        while total > 0 and level != max_depth:
            comm.next_level()
            t0 = time.perf_counter()
            if scout is None:          # the seeds' out-degrees: owners know them
                local = int(np.diff(lg.indptr)[own].sum()) if own.size else 0
                scout = int(comm.allreduce(np.array([local], dtype=np.int64))[0])
            frontier = total
            bottom_up = policy.direction(scout)
            if bottom_up:
                if not words_hold_frontier:
                    queue_to_bitmap(queue, qsize, self.words, atomic)
                    words_hold_frontier = True
                ex.gather_frontier(self.words, self.front)
                new, examined, scout_l = steps_owned.bu_step(lg.in_indptr, lg.in_indices, lg.indptr, parent, depth,
                                                             self.front, self.words, level)
            else:
                if words_hold_frontier:
                    qsize, _ = bitmap_to_queue(self.words, lg.indptr, queue)
                    words_hold_frontier = False
                examined = frontier_edge_offsets(lg.indptr, queue, qsize, self.offsets)
                cand_v = np.empty(examined, dtype=np.int64)
                cand_p = np.empty(examined, dtype=np.int64)
                self.ntail[0] = 0
                self.ctail[0] = 0
                scout_l = steps_owned.td_step(lg.indptr, lg.indices, queue, qsize, self.offsets, pmap, parent, depth,
                                              level, self.sent, next_queue, self.ntail, cand_v, cand_p, self.ctail,
                                              atomic)
                pairs, npairs = ex.route(cand_v, cand_p, int(self.ctail[0]))
                scout_l += steps_owned.apply_received(pairs, npairs, pmap, lg.indptr, parent, depth, level,
                                                      next_queue, self.ntail, atomic)
                queue, next_queue = next_queue, queue
                qsize = new = int(self.ntail[0])
            total, scout = (int(x) for x in comm.allreduce(np.array([new, scout_l], dtype=np.int64)))
            if bottom_up:
                policy.after_bottom_up(total, frontier)
            records.append(new_record(BU if bottom_up else TD, frontier, total, examined, t0))
            level += 1
        self.queue, self.next_queue = queue, next_queue
        return parent, depth, records

