"""The 2D expand/fold exchange (Beamer, Buluç, Asanović, Patterson, "Distributed Memory
Breadth-First Search Revisited: Enabling Bottom-Up Search", Section III-B, Algorithms 3 and 4).

On the R x C grid of ``two_d.grid.Grid2D`` (rank r = P(r // C, r % C), block A_ij holds
the arcs from column range j to row range i), one level moves, in order:

* ``transpose`` (TRANSPOSEVECTOR): each owner sends its frontier piece q to
  sigma(q) = P(q mod R, q div R) (``Grid2D.transposed``) with one Sendrecv; ranks with
  sigma(q) = q copy instead (no message);
* ``expand``: an Allgatherv along the processor column concatenates the column range's
  frontier -- top-down as vertex ids (sparse: the counts travel first, an Allgather),
  bottom-up as bitmap words (dense: the counts are known from the partition);
* ``fold``: (vertex, parent) pairs found in the block go to the vertices' owners, all in
  this rank's processor row: an Alltoall of counts and an Alltoallv along the row;
* ``rotate`` (bottom-up only, Algorithm 4): the row range is cut into the C owner pieces;
  in sub-step s rank P(i, j) works on piece iC + (j - s) mod C, then passes that piece's
  *completed* bitmap to its right neighbour P(i, j + 1) and receives the next one from its
  left neighbour P(i, j - 1) (one Sendrecv along the row) -- C - 1 passes per level, so a
  vertex found in one sub-step is not searched again by the ranks after it.

Messages per level, summed over ranks (T = ranks with sigma(q) != q):
top-down T + 2P(R - 1) + 2P(C - 1); bottom-up T + P(R - 1) + P(C - 1) + 2P(C - 1).
Each step is labelled with ``Comm.operation`` so the report gives its words separately
(the bench compares them with the paper's Table I).
"""
from __future__ import annotations

import numpy as np

from ...kernels.policy import TD
from ..owned.build import pack_arcs
from .grid import GridExchange


class Fold(GridExchange):
    """Transpose, expand along columns, fold along rows; rotate completed bitmaps bottom-up."""

    name = "fold"
    operations = ("transpose", "expand", "fold", "rotate")

    def __init__(self, comm, lg):
        super().__init__(comm, lg)
        grid = self.grid
        self.dtype = lg.vid_dtype
        R = grid.rows
        self.to_rank = grid.transposed(grid.rank)
        self.from_rank = grid.transpose_source(grid.rank)
        b, wb = grid.bounds, grid.word_bounds
        self.from_vertices = int(b[self.from_rank + 1] - b[self.from_rank])
        self.from_words = int(wb[self.from_rank + 1] - wb[self.from_rank])
        self.col_word_counts = np.diff(wb[grid.j * R:(grid.j + 1) * R + 1]).astype(np.int64)
        self.piece_words = np.diff(wb).astype(np.int64)
        self.ids_in = np.empty(max(self.from_vertices, 1), dtype=np.int64)
        self.words_in = np.empty(max(self.from_words, 1), dtype=np.uint64)

    @property
    def nbytes(self) -> int:
        return self.ids_in.nbytes + self.words_in.nbytes

    def operation_messages(self, direction: int) -> dict[str, int]:
        P, R, C = self.grid.nprocs, self.grid.rows, self.grid.cols
        out = {"transpose": self.grid.transpose_senders(),
               "expand": (2 if direction == TD else 1) * P * (R - 1),
               "fold": 2 * P * (C - 1)}
        if direction != TD:
            out["rotate"] = P * (C - 1)
        return {k: v for k, v in out.items() if v}

    # ------------------------------------------------------------------ steps
    def transpose_ids(self, ids) -> np.ndarray:
        """This owner's frontier ids to sigma(rank); returns the ids of piece sigma^-1(rank)."""
        with self.comm.operation("transpose"):
            got = self.comm.sendrecv(np.ascontiguousarray(ids, dtype=np.int64), self.to_rank, self.ids_in,
                                     self.from_rank)
        return self.ids_in[:got]

    def expand_ids(self, ids) -> np.ndarray:
        """The column range's frontier ids (concatenated along the processor column, in range order)."""
        with self.comm.operation("expand"):
            return self.col_comm.allgatherv(ids, category="exchange")

    def transpose_words(self, words) -> np.ndarray:
        """This owner's frontier bitmap words to sigma(rank); returns piece sigma^-1(rank)'s words."""
        with self.comm.operation("transpose"):
            got = self.comm.sendrecv(np.ascontiguousarray(words), self.to_rank, self.words_in, self.from_rank)
        if got != self.from_words:
            raise RuntimeError(f"transpose: expected {self.from_words} words, received {got}")
        return self.words_in[:got]

    def expand_words(self, words, out) -> np.ndarray:
        """out := the column range's frontier bitmap (words concatenated along the processor column)."""
        with self.comm.operation("expand"):
            return self.col_comm.allgatherv(words, counts=self.col_word_counts, out=out, category="exchange")

    def fold(self, cand_v, cand_p, count):
        """Pairs (cand_v[k], cand_p[k]), k < count, to the owners of cand_v[k] (this processor row).

        Returns (received pairs interleaved [v0, p0, v1, p1, ...], number of pairs)."""
        grid = self.grid
        send, per_rank = pack_arcs(cand_v[:count], cand_p[:count], grid, False, self.dtype)
        first = grid.i * grid.cols
        row = per_rank[first:first + grid.cols]
        if int(row.sum()) != int(per_rank.sum()):
            raise RuntimeError("fold: a discovered vertex is owned outside this processor row")
        with self.comm.operation("fold"):
            recv, _ = self.row_comm.alltoallv(send, 2 * row, category="exchange")
        return recv, recv.size // 2

    def rotate(self, words, piece_next, out) -> np.ndarray:
        """Pass ``words`` (a completed bitmap) to the right neighbour in the row; receive into ``out`` the
        left neighbour's, of piece ``piece_next``; returns the received words."""
        C, j = self.grid.cols, self.grid.j
        with self.comm.operation("rotate"):
            got = self.row_comm.sendrecv(np.ascontiguousarray(words), (j + 1) % C, out, (j - 1) % C)
        expect = int(self.piece_words[piece_next])
        if got != expect:
            raise RuntimeError(f"rotate: expected {expect} words of piece {piece_next}, received {got}")
        return out[:got]
