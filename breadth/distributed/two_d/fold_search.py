"""Direction-optimizing BFS on a 2D partition with the expand/fold exchange
(Beamer, Buluç, Asanović, Patterson, IPDPSW'13 -- "B2D" --, Section III, Algorithms 3 and 4).

Owners keep parent and depth of their vertex piece only (``two_d.grid.Grid2D``); the
edges live in the R x C blocks (``two_d.build.BlockGraph``). Per level, with the exchange
``two_d.fold_exchange.Fold``:

* top-down (Algorithm 3): the owned frontier (a queue) is transposed and expanded along
  the processor column as vertex ids; the block's out-arcs from those sources give
  (vertex, parent) candidates (``owned.steps.td_step`` with an empty owner map, each
  vertex offered at most once per search by a rank), which the fold routes along the
  processor row to their owners, who settle the still-unvisited ones
  (``owned.steps.apply_received``);
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

The layout supplies ``DistSearch``'s hooks: the two local steps (Algorithms 3 and 4,
expand and rotate included) and ``_exchange`` (the fold, the owners' settling, the control
Allreduce); the level loop and the policy are ``DistSearch._run``'s.

Invariants between levels: all ranks agree on level, frontier size and direction; the
owned frontier is the queue of owned vertices settled at depth ``level``; a vertex is
settled (depth >= 0) exactly when reached; ``sent`` holds vertices this rank has offered
(they are settled by the end of the level in which they were offered).
"""
from __future__ import annotations

import numpy as np

from ...kernels.frontier import num_words, queue_to_bitmap, visited_bitmap
from ...kernels.top_down import frontier_edge_offsets
from ..owned import steps as steps_owned
from ..search_base import DirectionSearch
from .fold_exchange import Fold
from .fold_steps import bu_piece, empty_map


class FoldSearch(DirectionSearch):
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

    # ------------------------------------------------------------------ the hooks of DistSearch._run
    def _seed(self, seeds):
        return self.seed_owned(seeds), None

    def _top_down(self, level, frontier):
        """Algorithm 3: the owned frontier transposed and expanded as ids, the block's out-arcs give candidates."""
        lg, ex, grid = self.lg, self.exchange, self.lg.partition
        ids = self.queue[:self.qsize] + grid.lo
        col = ex.expand_ids(ex.transpose_ids(ids))
        nrows = col.size
        np.subtract(col, grid.col_lo, out=self.rows[:nrows])
        examined = frontier_edge_offsets(lg.indptr, self.rows, nrows, self.offsets)
        self.cand_v = np.empty(examined, dtype=np.int64)
        self.cand_p = np.empty(examined, dtype=np.int64)
        self.ctail[0] = 0
        steps_owned.td_step(lg.indptr, lg.indices, self.rows, nrows, self.offsets, self.block_map, self.none,
                            self.none, level, self.sent, self.none, self.ntail, self.cand_v, self.cand_p, self.ctail,
                            self.atomic)
        return examined

    def _bottom_up(self, level, frontier):
        """Algorithm 4: the frontier words expanded along the column, the row's pieces rotated through."""
        lg, ex, grid = self.lg, self.exchange, self.lg.partition
        queue_to_bitmap(self.queue, self.qsize, self.words, self.atomic)
        ex.expand_words(ex.transpose_words(self.words), self.front[:grid.col_words])
        visited_bitmap(self.parent, self.words)
        C, first_piece = grid.cols, grid.i * grid.cols
        self.cand_v = np.empty(max(grid.num_rows, 1), dtype=np.int64)
        self.cand_p = np.empty(max(grid.num_rows, 1), dtype=np.int64)
        self.ctail[0] = 0
        completed = self.words
        examined = 0
        for s in range(C):
            q = first_piece + (grid.j - s) % C
            lo, hi = int(grid.bounds[q]), int(grid.bounds[q + 1])
            examined += bu_piece(lg.in_indptr, lg.in_indices, lo - grid.row_lo, lo, hi - lo, completed, self.front,
                                 grid.col_lo, self.sent, self.cand_v, self.cand_p, self.ctail)
            if s + 1 < C:
                nxt = first_piece + (grid.j - s - 1) % C
                completed = ex.rotate(completed, nxt, self.completed[s % 2])
        return examined

    def _exchange(self, level, bottom_up):
        """Either direction: fold the candidates to their owners, who settle them; then the level's counts."""
        pairs, npairs = self.exchange.fold(self.cand_v, self.cand_p, int(self.ctail[0]))
        self.ntail[0] = 0
        scout = steps_owned.apply_received(pairs, npairs, self.pmap, self.deg_ptr, self.parent, self.depth, level,
                                           self.next_queue, self.ntail, self.atomic)
        self.queue, self.next_queue = self.next_queue, self.queue
        self.qsize = int(self.ntail[0])
        return self.global_counts(self.qsize, scout)
