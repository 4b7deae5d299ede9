"""The 2D bitmap-scan exchange (Fu et al., "Parallel Breadth First Search on GPU Clusters" --
MapGraph --, Section 3: 2D partitioning with bitmap frontiers, a prefix-scan contraction along
the processor rows and a broadcast along the columns; predecessors from the levels).

On the R x C grid of ``two_d.grid.Grid2D`` each rank's level step yields its block's
discoveries as a bitmap over its row range. Per level, summed over ranks:

* ``scan``: the row contraction -- ceil(log2 C) rounds of pairwise bitmap OR along the
  processor row (round k: send to the rank 2^k to the right, receive from the one 2^k to
  the left, OR it in; OR is idempotent, so after the rounds every rank of the row holds the
  OR of all C bitmaps for any C): P ceil(log2 C) messages;
* ``broadcast``: the column range's new frontier along the processor column -- each rank
  contributes the pieces of the column range its grid row holds (on a square grid only the
  diagonal rank, whose row range *is* the column range: a broadcast from it), gathered with
  one Allgatherv of known counts: P(R - 1) messages;
* after the last level, ``parents``: no predecessor travels during the search; the owners'
  depths are all-gathered (P(P - 1), at ``depth_dtype``'s width: a byte each below 128 levels),
  every rank proposes for its row range the smallest block in-neighbour one level closer, and a
  min-Reduce_scatter along the row (P(C - 1)) gives each owner a BFS parent of each of its
  reached vertices (its own piece of the minima only: half the bytes an Allreduce puts on the
  wire).
"""
from __future__ import annotations

import numpy as np

from .grid import GridExchange


def depth_dtype(levels: int) -> np.dtype:
    """The narrowest signed integer that holds every depth of a search of ``levels`` levels and -1
    (unreached): the width at which the parents step gathers the depths (int8 below 128 levels)."""
    for dt in (np.int8, np.int16, np.int32):
        if levels <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


def scan_rounds(C: int) -> int:
    """ceil(log2 C): the pairwise rounds of the row contraction."""
    return (int(C) - 1).bit_length()


class Scan(GridExchange):
    """Bitmap OR contraction along rows, column broadcast; parents from levels after the search."""

    name = "scan"
    operations = ("scan", "broadcast", "parents")

    def __init__(self, comm, lg):
        super().__init__(comm, lg)
        grid = self.grid
        R, C, i, j = grid.rows, grid.cols, grid.i, grid.j
        wb = grid.word_bounds
        self.row_words = int(wb[(i + 1) * C] - wb[i * C])
        counts = []
        for r in range(R):                       # column member r: the pieces of column range j in row r
            a, b = max(j * R, r * C), min((j + 1) * R, (r + 1) * C)
            counts.append(int(wb[b] - wb[a]) if a < b else 0)
        self.bcast_counts = np.array(counts, dtype=np.int64)
        a, b = max(j * R, i * C), min((j + 1) * R, (i + 1) * C)
        self.bcast_slice = (int(wb[a] - wb[i * C]), int(wb[b] - wb[i * C])) if a < b else (0, 0)
        self.recv = np.empty(max(self.row_words, 1), dtype=np.uint64)
        # the vertices each owner of the row holds, in row order: the Reduce_scatter's pieces
        self.row_pieces = np.diff(grid.bounds[i * C:(i + 1) * C + 1]).astype(np.int64)

    @property
    def nbytes(self) -> int:
        return self.recv.nbytes

    def operation_messages(self, direction: int) -> dict[str, int]:
        P, R, C = self.grid.nprocs, self.grid.rows, self.grid.cols
        return {k: v for k, v in (("scan", P * scan_rounds(C)), ("broadcast", P * (R - 1))) if v}

    def messages_after_levels(self) -> int:
        P, C = self.grid.nprocs, self.grid.cols
        return P * (P - 1) + P * (C - 1)

    # ------------------------------------------------------------------ steps
    def contract(self, words) -> np.ndarray:
        """words := the OR of the processor row's bitmaps (ceil(log2 C) Sendrecv rounds), in place."""
        C, j = self.grid.cols, self.grid.j
        recv = self.recv[:words.size]
        k = 1
        with self.comm.operation("scan"):
            while k < C:
                got = self.row_comm.sendrecv(words, (j + k) % C, recv, (j - k) % C)
                if got != words.size:
                    raise RuntimeError(f"scan: expected {words.size} words, received {got}")
                np.bitwise_or(words, recv, out=words)
                k *= 2
        return words

    def broadcast(self, row_words, out) -> np.ndarray:
        """out := the column range's bitmap, from the row-range bitmaps of the column's ranks."""
        a, b = self.bcast_slice
        with self.comm.operation("broadcast"):
            return self.col_comm.allgatherv(row_words[a:b], counts=self.bcast_counts, out=out, category="exchange")

    def all_depths(self, depth) -> np.ndarray:
        """Every vertex's depth on every rank (one Allgatherv of the owners' pieces)."""
        with self.comm.operation("parents"):
            return self.comm.allgatherv(np.ascontiguousarray(depth), counts=self.grid.local_counts(),
                                        category="exchange")

    def row_min(self, cand) -> np.ndarray:
        """The element-wise minimum of the row's candidate arrays over this rank's own piece of the row
        range (one Reduce_scatter along the row: each rank needs only its piece's minima)."""
        with self.comm.operation("parents"):
            return self.row_comm.reduce_scatter(cand, self.row_pieces, op="min", category="exchange")
