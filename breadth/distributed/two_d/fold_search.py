"""Direction-optimizing BFS on a 2D partition with the expand/fold exchange
(Beamer, Buluç, Asanović, Patterson, IPDPSW'13 -- "B2D" --, Section III, Algorithms 3 and 4).

Owners keep parent and depth of their vertex piece only (``two_d.grid.Grid2D``); the
edges live in the R x C blocks (``two_d.build.BlockGraph``). Per level, with the exchange
``two_d.fold_exchange.Fold``:

* top-down (Algorithm 3): the owned frontier (a queue) is transposed and expanded along
  the processor column as vertex ids; the block's out-arcs from those sources give
  (vertex, parent) candidates (``one_d.owned_steps.td_step`` with an empty owner map, each
  vertex offered at most once per search by a rank), which the fold routes along the
  processor row to their owners, who settle the still-unvisited ones
  (``one_d.owned_steps.apply_received``);
* bottom-up (Algorithm 4): the owned frontier as bitmap words is transposed and expanded
  along the column; the row range's pieces then circulate rightwards along the processor
  row in C sub-steps (``rotate``), each rank searching, in the piece it holds, the vertices not
  yet completed for a parent in the column frontier (``two_d.fold_steps.bu_piece``); the parents
  found are folded to the owners like top-down's candidates (B2D: "2n" words per
  search, each vertex's parent sent once);
* control: one Allreduce (new frontier size, scout count) per level, plus one before the
  first level for the seeds' out-degrees; the direction is the shared policy's
  (``kernels.policy.Policy``) on these global values, so depths and directions are the
  single-node search's.

Invariants between levels: all ranks agree on level, frontier size and direction; the
owned frontier is the queue of owned vertices settled at depth ``level``; a vertex is
settled (depth >= 0) exactly when reached; ``sent`` holds vertices this rank has offered
(they are settled by the end of the level in which they were offered).
"""
from __future__ import annotations

import time

import numpy as np

from ...kernels.frontier import num_words, queue_to_bitmap, visited_bitmap
from ...kernels.policy import BU, TD
from ...kernels.top_down import frontier_edge_offsets
from ..one_d import owned_steps as steps_owned
from ..search_base import DistSearch, multithreaded, new_record
from .fold_exchange import Fold
from .fold_steps import bu_piece, empty_map


class FoldSearch(DistSearch):
    """The 2D owner-state search with the expand/fold exchange."""

    def __init__(self, comm, lg, options=None):
        super().__init__(comm, lg, options)
        grid = lg.partition
        n, nl = lg.num_vertices, lg.num_local
        self.exchange = Fold(comm, lg)
        self.queue = np.empty(max(nl, 1), dtype=np.int64)
        self.next_queue = np.empty(max(nl, 1), dtype=np.int64)
        self.rows = np.empty(max(grid.num_cols, 1), dtype=np.int64)         # expanded frontier, block rows
        self.offsets = np.empty(grid.num_cols + 1, dtype=np.int64)
        self.front = np.empty(max(grid.col_words, 1), dtype=np.uint64)      # column range frontier bitmap
        self.sent = np.empty(num_words(n), dtype=np.uint64)
        self.words = np.empty(num_words(nl), dtype=np.uint64)               # owned frontier / visited words
        pw = int(self.exchange.piece_words[grid.row_pieces()].max())
        self.completed = [np.empty(max(pw, 1), dtype=np.uint64) for _ in range(2)]
        self.deg_ptr = np.zeros(nl + 1, dtype=np.int64)                      # owned out-degree prefix sums
        np.cumsum(lg.out_degree(), out=self.deg_ptr[1:])
        self.block_map = empty_map(grid.bounds, grid.col_lo)
        self.none = np.empty(0, dtype=np.int64)
        self.ntail = np.zeros(1, dtype=np.int64)
        self.ctail = np.zeros(1, dtype=np.int64)

    @property
    def nbytes(self) -> int:
        return (2 * self.queue.nbytes + self.rows.nbytes + self.offsets.nbytes + self.front.nbytes
                + self.sent.nbytes + self.words.nbytes + 2 * self.completed[0].nbytes + self.deg_ptr.nbytes
                + self.exchange.nbytes)

    def control_messages(self, level: int, direction: int) -> int:
        P = self.comm.size
        return P * (P - 1) * (2 if level == 0 else 1)

    # ------------------------------------------------------------------ the two directions
    def _top_down(self, queue, qsize, parent, depth, level, next_queue, atomic):
        lg, ex, grid = self.lg, self.exchange, self.lg.partition
        ids = queue[:qsize] + grid.lo
        col = ex.expand_ids(ex.transpose_ids(ids))
        nrows = col.size
        np.subtract(col, grid.col_lo, out=self.rows[:nrows])
        examined = frontier_edge_offsets(lg.indptr, self.rows, nrows, self.offsets)
        cand_v = np.empty(examined, dtype=np.int64)
        cand_p = np.empty(examined, dtype=np.int64)
        self.ctail[0] = 0
        steps_owned.td_step(lg.indptr, lg.indices, self.rows, nrows, self.offsets, self.block_map, self.none,
                            self.none, level, self.sent, self.none, self.ntail, cand_v, cand_p, self.ctail, atomic)
        return self._settle(cand_v, cand_p, parent, depth, level, next_queue, atomic) + (examined,)

    def _bottom_up(self, queue, qsize, parent, depth, level, next_queue, atomic):
        lg, ex, grid = self.lg, self.exchange, self.lg.partition
        queue_to_bitmap(queue, qsize, self.words, atomic)
        ex.expand_words(ex.transpose_words(self.words), self.front[:grid.col_words])
        visited_bitmap(parent, self.words)
        C, first_piece = grid.cols, grid.i * grid.cols
        cand_v = np.empty(max(grid.num_rows, 1), dtype=np.int64)
        cand_p = np.empty(max(grid.num_rows, 1), dtype=np.int64)
        self.ctail[0] = 0
        completed = self.words
        examined = 0
        for s in range(C):
            q = first_piece + (grid.j - s) % C
            lo, hi = int(grid.bounds[q]), int(grid.bounds[q + 1])
            examined += bu_piece(lg.in_indptr, lg.in_indices, lo - grid.row_lo, lo, hi - lo, completed, self.front,
                                 grid.col_lo, self.sent, cand_v, cand_p, self.ctail)
            if s + 1 < C:
                nxt = first_piece + (grid.j - s - 1) % C
                completed = ex.rotate(completed, nxt, self.completed[s % 2])
        return self._settle(cand_v, cand_p, parent, depth, level, next_queue, atomic) + (examined,)

    def _settle(self, cand_v, cand_p, parent, depth, level, next_queue, atomic):
        """Fold the candidates to their owners and settle them: (new owned vertices, their scout count)."""
        pairs, npairs = self.exchange.fold(cand_v, cand_p, int(self.ctail[0]))
        self.ntail[0] = 0
        scout = steps_owned.apply_received(pairs, npairs, self.lg.partition.kernel_map(), self.deg_ptr, parent,
                                           depth, level, next_queue, self.ntail, atomic)
        return int(self.ntail[0]), int(scout)

    # ------------------------------------------------------------------ the level loop
    def _run(self, roots, max_depth):
        lg, comm = self.lg, self.comm
        atomic = multithreaded()
        parent, depth, own, total = self.seed_owned(roots)
        queue, next_queue = self.queue, self.next_queue
        qsize = own.size
        policy = self.policy()
        records = []
        level = 0
        scout = None
        while total > 0 and level != max_depth:
            comm.next_level()
            t0 = time.perf_counter()
            if scout is None:          # the seeds' out-degrees: owners know them
                local = int(lg.out_degree()[own].sum()) if own.size else 0
                scout = int(comm.allreduce(np.array([local], dtype=np.int64))[0])
            frontier = total
            bottom_up = policy.direction(scout)
            step = self._bottom_up if bottom_up else self._top_down
            new, scout_l, examined = step(queue, qsize, parent, depth, level, next_queue, atomic)
            queue, next_queue = next_queue, queue
            qsize = new
            total, scout = (int(x) for x in comm.allreduce(np.array([new, scout_l], dtype=np.int64)))
            if bottom_up:
                policy.after_bottom_up(total, frontier)
            records.append(new_record(BU if bottom_up else TD, frontier, total, examined, t0))
            level += 1
        self.queue, self.next_queue = queue, next_queue
        return parent, depth, records
