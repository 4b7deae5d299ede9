"""Direction-optimizing BFS on a 2D partition with bitmap frontiers and the row scan
(Fu et al., "Parallel Breadth First Search on GPU Clusters" -- MapGraph --, Section 3;
exchange ``two_d.scan_exchange.Scan``).

Frontiers are bitmaps throughout. Every rank of processor row i keeps the row range's
visited bitmap; per level, with the column range's frontier bitmap in hand:

* local step on the block (``two_d.scan_steps``): top-down, the frontier's out-arcs mark unvisited
  destinations; bottom-up, unvisited row-range vertices look for a frontier in-neighbour --
  either way a row-range bitmap of this block's discoveries;
* ``scan``: ceil(log2 C) rounds of pairwise OR along the row give every rank of the row the
  level's discoveries in its row range; the visited bitmap takes them in, and each owner
  sets the depths of its piece (``settle_piece``);
* ``broadcast``: the new frontier of each column range is gathered along the column;
* control: one Allreduce (new frontier size, scout count) per level, plus one before the
  first level for the seeds' out-degrees; the direction is the shared policy's
  (``kernels.policy.Policy``), so depths and directions are the single-node search's.

No parent travels during the search. After the last level the owners' depths are
all-gathered (at the narrowest width that holds them, ``depth_dtype``: a byte each below 128
levels), every rank proposes, for its row range, the smallest in-neighbour one level closer found
in its block, and a min-Reduce_scatter along the row leaves each owner a BFS parent per reached
vertex (``Scan.messages_after_levels``; reported as ``after_levels``). Candidates travel as ids do
(int32 while every id and the sentinel n fit).

The layout supplies ``DistSearch``'s hooks: the two local steps on the block, ``_exchange``
(scan, settle, broadcast, the control Allreduce) and ``_finish`` (the parent stage); the
level loop and the policy are ``DistSearch._run``'s.

Invariants between levels: all ranks agree on level, frontier size and direction; the
visited bitmaps of a row's ranks are equal and hold exactly the row range's reached
vertices; ``front`` holds the column range's vertices at depth ``level``.
"""
from __future__ import annotations

import numpy as np

from ...kernels.frontier import bitmap_to_queue, fill
from ...kernels.top_down import frontier_edge_offsets
from ..owned.build import vertex_dtype
from ..search_base import DirectionSearch
from .scan_exchange import Scan, depth_dtype
from .scan_steps import bu_scan, parent_candidates, settle_piece, td_scan


class ScanSearch(DirectionSearch):
    """The 2D levels-only search with the bitmap scan exchange."""

    def __init__(self, comm, lg, options=None):
        super().__init__(comm, lg, options)
        grid = lg.partition
        self.exchange = Scan(comm, lg)
        rw = self.exchange.row_words
        self.visited = np.empty(max(rw, 1), dtype=np.uint64)
        self.next_row = np.empty(max(rw, 1), dtype=np.uint64)
        self.front = np.empty(max(grid.col_words, 1), dtype=np.uint64)
        self.rows = np.empty(max(grid.num_cols, 1), dtype=np.int64)
        self.offsets = np.empty(grid.num_cols + 1, dtype=np.int64)
        self.cand = np.empty(grid.num_rows, dtype=vertex_dtype(lg.num_vertices + 1))   # ids and the sentinel n
        self.first_word = int(grid.word_bounds[grid.rank] - grid.word_bounds[grid.i * grid.cols])
        self.none = np.empty(0, dtype=np.int64)
        self.tail = np.zeros(1, dtype=np.int64)

    @property
    def nbytes(self) -> int:
        return (self.visited.nbytes + self.next_row.nbytes + self.front.nbytes + self.rows.nbytes
                + self.offsets.nbytes + self.cand.nbytes + self.exchange.nbytes)

    # ------------------------------------------------------------------ the hooks of DistSearch._run
    def _seed(self, seeds):
        grid = self.lg.partition
        self.depth = np.empty(self.lg.num_local, dtype=np.int64)
        fill(self.depth, -1)
        fill(self.visited, np.uint64(0))
        fill(self.front, np.uint64(0))
        for s in seeds:
            if grid.row_lo <= s < grid.row_hi:
                b = s - grid.row_lo
                self.visited[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
            if grid.col_lo <= s < grid.col_hi:
                b = s - grid.col_lo
                self.front[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        self.own = grid.to_local(seeds[grid.owns(seeds)])
        self.depth[self.own] = 0
        return seeds.size, None

    def _bottom_up(self, level, frontier):
        lg, grid = self.lg, self.lg.partition
        return bu_scan(lg.in_indptr, lg.in_indices, grid.num_rows, self.visited, self.front[:grid.col_words],
                       grid.col_lo, self.next_row[:self.exchange.row_words])

    def _top_down(self, level, frontier):
        lg, grid = self.lg, self.lg.partition
        qsize, _ = bitmap_to_queue(self.front[:grid.col_words], lg.indptr, self.rows)
        examined = frontier_edge_offsets(lg.indptr, self.rows, qsize, self.offsets)
        next_row = self.next_row[:self.exchange.row_words]
        fill(next_row, np.uint64(0))
        td_scan(lg.indptr, lg.indices, self.rows, qsize, self.offsets, self.visited, next_row, grid.row_lo,
                self.atomic, self.none, self.tail)
        return examined

    def _exchange(self, level, bottom_up):
        """The row scan of the discoveries, the owners' depths, the column broadcast; the level's counts."""
        ex, rw = self.exchange, self.exchange.row_words
        next_row = self.next_row[:rw]
        ex.contract(next_row)
        np.bitwise_or(self.visited[:rw], next_row, out=self.visited[:rw])
        new, scout = settle_piece(next_row, self.first_word, self.depth, level, self.lg.out_degree())
        ex.broadcast(next_row, self.front[:self.lg.partition.col_words])
        return self.global_counts(new, scout)

    def _finish(self, seeds, levels):
        self.comm.next_level()              # the parents, after the last level (``after_levels``)
        return self._parents(seeds, self.own, self.depth, levels), self.depth

    def _parents(self, seeds, own, depth, levels):
        """Each owned reached vertex's parent: an in-neighbour one level closer (min over the row's blocks)."""
        lg, ex = self.lg, self.exchange
        grid, n = lg.partition, lg.num_vertices
        depth_all = ex.all_depths(depth.astype(depth_dtype(levels)))      # the narrowest width that holds them
        parent_candidates(lg.in_indptr, lg.in_indices, grid.row_lo, depth_all, n, self.cand)
        parent = ex.row_min(self.cand).astype(np.int64)         # this rank's piece of the row's minima
        parent[parent == n] = -1
        parent[own] = seeds[grid.owns(seeds)]
        return parent

