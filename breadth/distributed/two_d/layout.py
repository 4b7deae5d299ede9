"""The 2D layouts: edge blocks on an R x C processor grid (``two_d.grid.Grid2D``) with the
Beamer--Buluç expand/fold exchange (``two_d.fold_exchange``, ``two_d.fold_search``; "2d"/"fold", the
default) or MapGraph's bitmap scan (``two_d.scan_exchange``, ``two_d.scan_search``; "2d"/"scan").
The grid is the layout parameter ``grid`` ("RxC", default: the most square factorisation
of the job size, ``two_d.grid.default_grid``).

Construction: ``two_d.build.build_2d`` (block histogram -> pieces -> Alltoallv routing to
blocks -> block CSRs by source and by destination) or ``two_d.build.slice_native_2d``.
A generated graph can instead be streamed (``two_d.stream_build.build_2d_stream``: each rank's
tuple share regenerated and routed to the blocks round by round, never held whole).
Validation: ``two_d.validate.validate_2d``. Memory: ``estimate_rank_bytes`` below. Cost models:
``fold_cost``, ``scan_cost``. Registered with ``registry`` through ``LAYOUTS``.
"""
from __future__ import annotations

from ...graph.memory import index_itemsize
from ..owned.memory import INTERPRETER_BYTES, stream_round_bytes
from ..layout import Layout, Param
from . import fold_cost, scan_cost
from .build import build_2d, slice_native_2d
from .fold_search import FoldSearch
from .grid import Grid2D, check_params, parse_grid
from .scan_search import ScanSearch
from .stream_build import build_2d_stream
from .validate import validate_2d


def estimate_rank_bytes(num_vertices, num_tuples, nprocs, grid=None, directed=False, streamed=False,
                        threads=None) -> int:
    """Peak bytes of one rank: max(construction, graph + search state + validation), averaged shares.

    Construction from tuple arrays holds the tuple share, the packed and the received arcs, their
    swapped copy and the unsorted block CSR; ``streamed`` (``build_2d_stream``): the block's two
    unsorted ``indices``, int64 arrays per row of its column and row ranges and one round's buffers."""
    n, P = int(num_vertices), max(1, int(nprocs))
    R, C = parse_grid(grid, P)
    isz = index_itemsize(n)
    tuples = num_tuples / P
    arcs = tuples * (1 if directed else 2)                 # arcs per block
    rows, owned = n / R + n / C, n / P
    blocks = 2 * arcs * isz + 8 * rows                      # out-arc and in-arc CSRs of the block
    if streamed:                                            # raw degrees, indptr, cursor per row
        build = 2 * arcs * isz + 24 * rows + stream_round_bytes(n, tuples, directed, rows, isz, threads)
    else:
        build = 16 * tuples + 2 * (2 * arcs * isz) + 2 * arcs * isz + 8 * rows
    search = blocks + n / 8 + n / (8 * R) + 16 * arcs + 8 * n / C + 40 * owned + 16 * n   # + candidates, gathers
    return int(max(build + 8 * rows, search)) + INTERPRETER_BYTES


def _build(comm, src, dst, num_vertices, directed, options):
    return build_2d(comm, src, dst, num_vertices, directed, options.params.get("grid"))


def _slice(comm, graph, options):
    return slice_native_2d(comm, graph, options.params.get("grid"))


def _stream(comm, source, num_vertices, directed, options):
    return build_2d_stream(comm, source, num_vertices, directed, options.params.get("grid"))


def _estimate(num_vertices, num_tuples, nprocs, options, directed):
    return estimate_rank_bytes(num_vertices, num_tuples, nprocs, options.params.get("grid"), directed)


def _estimate_stream(num_vertices, num_tuples, nprocs, options, directed):
    return estimate_rank_bytes(num_vertices, num_tuples, nprocs, options.params.get("grid"), directed, True)


GRID = Param("grid", "--grid", metavar="RxC",
             help="the processor grid, R rows x C columns with R*C ranks (default: the most square "
                  "factorisation, R <= C); edges are cut into R x C blocks, the frontier is expanded along grid "
                  "columns and discoveries folded along grid rows (Beamer, Bulu\u00e7)")
_COMMON = dict(partition_type=Grid2D, build=_build, slice_native=_slice, validate=validate_2d,
               estimate_bytes=_estimate, build_stream=_stream, estimate_stream=_estimate_stream, params=(GRID,),
               check_params=check_params, about="a processor grid of edge blocks")

LAYOUTS = (
    Layout("2d", "fold", FoldSearch, cost=fold_cost, default=True,
           summary="expands the frontier along grid columns and folds (vertex, parent) pairs along rows; "
                   "bottom-up sub-steps rotate completed bitmaps (Beamer, Bulu\u00e7)", **_COMMON),
    Layout("2d", "scan", ScanSearch, cost=scan_cost,
           summary="OR-contracts bitmap frontiers along rows in ceil(log2 C) pairwise rounds, broadcasts them "
                   "along columns, computes parents from the levels (MapGraph)", **_COMMON),
)
