"""The 2D partition: edge blocks on an R x C processor grid, vertex pieces owned one per rank.

Beamer, Buluç, Asanović, Patterson, "Distributed Memory Breadth-First Search
Revisited: Enabling Bottom-Up Search" (B2D), Section III, eq. (1) and Fig. 1; the
same checkerboard as Fu et al., "Parallel Breadth First Search on GPU Clusters"
(MapGraph), Section 3.1.

Convention. Rank r is processor P(i, j) = P(r // C, r % C) of an R x C grid (row-major).
The block it holds is the B2D paper's A_ij of the *pre-transposed* matrix ("our
top-down algorithm actually operates on the transpose ... we assume that the input is
pre-transposed"): matrix rows are arc *destinations*, columns arc *sources*, so
P(i, j) holds every arc u -> v whose source u lies in the vertex range of grid
column j and whose destination v lies in the vertex range of grid row i. Why this
way round: a top-down step reads frontier vertices (sources) and discovers
destinations, so the frontier it needs is one column range (gathered along the
processor column, the *expand*), and what it finds lies in one row range, owned by
the ranks of its processor row (sent along the row, the *fold*); a bottom-up step
scans the in-arcs of row-range vertices against the same column-range frontier. The
block is stored twice (out-arcs by source, in-arcs by destination), as the paper keeps
both A and A^T.

Vertex ownership (the ``Partition`` interface) is one owner per vertex: the vertex
vector is cut into P contiguous, 64-aligned, edge-balanced pieces (``owned.partition.Ranges``'
bounds), piece q owned by rank q, so local ids, ``allgather``, bitmap words and the
kernel map (``RangeMap``) are exactly 1D's. The 2D part is the edge blocks:

* row range i    = pieces iC .. iC+C-1 (owned by the C ranks of grid row i, in order);
* column range j = pieces jR .. jR+R-1 (contiguous too, but *not* owned by column j).

So a vertex's owner sits in the processor row that holds its in-arcs, and the
*transpose* (B2D's TRANSPOSEVECTOR) moves piece q to sigma(q) = P(q mod R, q div R),
the rank of grid column q div R (whose range contains piece q) at position q mod R:
after it, an Allgatherv along each processor column concatenates the column range in
order. On a square grid sigma is B2D's P(i, j) -> P(j, i); on 1 x P and P x 1 grids it
is the identity (a 1 x P grid is 1D by source: a column range is one piece and the
fold is an all-to-all over every rank; P x 1 is 1D by destination: the expand gathers
the whole frontier and the fold stays on the rank).

Invariants: bounds as ``Ranges`` (non-decreasing, 64-aligned inner bounds, [0, n]);
``word_bounds[q]`` = ceil(bounds[q] / 64), so piece q's bitmap words are
[word_bounds[q], word_bounds[q+1]) and row and column ranges are whole words too.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ...errors import InputError
from ..exchange import Exchange
from ..owned.partition import BLOCK, Ranges, balanced_bounds

_GRID = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


def default_grid(nprocs: int) -> tuple[int, int]:
    """The most square factorisation R x C of ``nprocs`` with R <= C (a prime P gives 1 x P)."""
    P = int(nprocs)
    R = max(r for r in range(1, math.isqrt(P) + 1) if P % r == 0)
    return R, P // R


def parse_grid(grid, nprocs: int) -> tuple[int, int]:
    """(R, C) from ``grid`` ("RxC", a pair, or None for ``default_grid``); InputError unless R * C == nprocs."""
    if grid is None:
        return default_grid(nprocs)
    if isinstance(grid, str):
        m = _GRID.match(grid)
        if not m:
            raise InputError(f"grid={grid!r} is not of the form RxC (rows x columns, e.g. 2x3)")
        R, C = int(m.group(1)), int(m.group(2))
    else:
        try:
            R, C = (int(x) for x in grid)
        except (TypeError, ValueError):
            raise InputError(f"grid={grid!r} is not of the form RxC (rows x columns, e.g. 2x3)") from None
    if R < 1 or C < 1:
        raise InputError(f"grid={R}x{C}: rows and columns must be >= 1")
    if R * C != nprocs:
        raise InputError(f"grid={R}x{C} needs {R * C} ranks, this job has {nprocs}")
    return R, C


def check_params(params: dict, nprocs: int) -> dict:
    """The 2D layouts' options: ``grid`` checked against the job size, as the string "RxC"."""
    out = dict(params)
    R, C = parse_grid(out.get("grid"), nprocs)
    out["grid"] = f"{R}x{C}"
    return out


class Grid2D(Ranges):
    """Vertex pieces owned one per rank (``Ranges``) plus the R x C grid's row and column ranges."""

    kind = "2d"

    def __init__(self, bounds, rank: int, rows: int, cols: int):
        super().__init__(bounds, rank)
        if rows * cols != self.nprocs:
            raise InputError(f"grid={rows}x{cols} needs {rows * cols} ranks, this job has {self.nprocs}")
        R, C = self.rows, self.cols = int(rows), int(cols)
        self.i, self.j = divmod(self.rank, C)
        b = self.bounds
        self.word_bounds = (b + BLOCK - 1) // BLOCK
        self.row_lo, self.row_hi = int(b[self.i * C]), int(b[(self.i + 1) * C])
        self.col_lo, self.col_hi = int(b[self.j * R]), int(b[(self.j + 1) * R])

    @classmethod
    def from_weights(cls, weights, num_vertices, nprocs, rank, rows=None, cols=None) -> "Grid2D":
        R, C = (rows, cols) if rows is not None else default_grid(nprocs)
        return cls(balanced_bounds(weights, num_vertices, nprocs), rank, R, C)

    # ------------------------------------------------------------------ grid geometry
    def row_pieces(self, i: int | None = None) -> range:
        i = self.i if i is None else i
        return range(i * self.cols, (i + 1) * self.cols)

    def transposed(self, q: int) -> int:
        """sigma(q): the rank piece q goes to before the column gather (see the module header)."""
        return (q % self.rows) * self.cols + q // self.rows

    def transpose_source(self, r: int) -> int:
        """sigma^-1(r): the piece (= owner rank) rank r receives in the transpose."""
        k, jj = divmod(r, self.cols)
        return jj * self.rows + k

    def transpose_senders(self) -> int:
        """Ranks whose piece goes to another rank (sigma(q) != q): the transpose's messages per level."""
        return sum(1 for q in range(self.nprocs) if self.transposed(q) != q)

    @property
    def col_words(self) -> int:
        return int(self.word_bounds[(self.j + 1) * self.rows] - self.word_bounds[self.j * self.rows])

    @property
    def num_rows(self) -> int:
        """Vertices of this rank's row range (rows of its in-arc CSR)."""
        return self.row_hi - self.row_lo

    @property
    def num_cols(self) -> int:
        """Vertices of this rank's column range (rows of its out-arc CSR)."""
        return self.col_hi - self.col_lo

    def block_of(self, src, dst) -> np.ndarray:
        """The rank holding each arc src -> dst: P(row of dst, column of src)."""
        return (self.owner(dst) // self.cols) * self.cols + self.owner(src) // self.rows

    def describe(self) -> dict:
        return {"partition": self.kind, "ranks": self.nprocs, "grid": f"{self.rows}x{self.cols}",
                "bounds": self.bounds.tolist()}


class GridExchange(Exchange):
    """What the exchanges on the R x C grid share: the grid, its row and column communicators
    (``two_d.build``), a description naming the grid, and a level's messages as the sum of its
    labelled operations' (``operation_messages``)."""

    def __init__(self, comm, lg):
        super().__init__(comm)
        self.grid = lg.partition
        self.row_comm, self.col_comm = lg.row_comm, lg.col_comm

    def describe(self) -> dict:
        return {"exchange": self.name, "fanout": None, "grid": f"{self.grid.rows}x{self.grid.cols}"}

    def messages_per_level(self, direction: int) -> int:
        return sum(self.operation_messages(direction).values())
