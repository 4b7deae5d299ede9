"""Cost model of the 2D bitmap-scan layout (Fu et al., "Parallel Breadth First Search on GPU
Clusters" -- MapGraph --, Sec. 3: bitmap frontiers, a ceil(log2 C)-round contraction along the
processor rows, a broadcast along the columns, predecessors from the levels; ``two_d.scan_exchange``).

Per level on an R x C grid, whatever the direction (the frontier is always a bitmap):

* scan: ceil(log2 C) pairwise Sendrecv rounds of the row range's bitmap, n/(8R) bytes each;
* broadcast: an Allgatherv along the column of the column range's n/C bits (on R <= C grids one
  or two ranks of the column hold it all: they send it to R - 1 peers);
* control: one small Allreduce.

A bottom-up level's unreached row-range vertices are swept by every rank of the processor row
(``swept``), each against its own block's in-arcs, and no rank hears of another's find until the
scan: a vertex's arcs are cut into C pieces, each scanned to its own first frontier neighbour
(``level_edges``, ``DegreeModel.split_scans``); on a 1 x 2 grid, 1.7x the edges one rank examines.

After the last level (breadth's layout; MapGraph's own code, ``params["code"] == "paper"``,
computes predecessors locally from the levels and sends nothing), ``parents``: an Allgatherv of
the owners' depths (P - 1 peers, n/P depths, a byte each below 128 levels) and a
min-Reduce_scatter of the row range's candidate parents along the row (n/R ids; each owner
receives its piece), with a pass over the rank's arcs to propose them; ids are int32 while every
id fits.
"""
from __future__ import annotations

from ..planner.ops import Op, control_op, id_bytes, rounds_of, world
from .fold_cost import candidates as _grid_candidates
from .fold_cost import col, dims, row, spread  # noqa: F401  (the grid spreads a vertex's arcs alike)
from .scan_exchange import depth_dtype, scan_rounds


def candidates(P: int) -> list:
    return _grid_candidates(P)


def rule(params):
    """The direction rule: MapGraph's own code (``params["code"] == "paper"``) traverses top-down every level (Sec. 5.2:
    "the full edge-to-edge traversal"); breadth's layout is direction-optimizing."""
    return "top-down" if params.get("code") == "paper" else None


def state_vertices(n: float, P: int, params) -> float:
    """A rank's edges point into its grid column's n / C vertices, whose frontier state it holds."""
    return n / dims(params)[1]


def swept(prof, lv, P: int, params) -> float:
    """The share of a level's swept vertices one rank sweeps: bottom-up, its row range's unreached
    (1/R: ``scan_steps.bu_scan`` walks the row range); top-down, its share of the vertices."""
    return 1.0 / dims(params)[0] if lv.direction == "bottom-up" else 1.0 / P


def level_edges(prof, lv, P: int, params) -> tuple:
    """(top-down, bottom-up) edges of a level, summed over ranks (``choose.level_edges``): a
    bottom-up level's scans over C pieces of every unreached vertex's arcs, weighed against one scan
    per vertex by the degree model (module header); the level's own count where there is none."""
    if lv.direction == "top-down":
        return lv.examined, 0.0
    C = dims(params)[1]
    model = prof.degrees
    if model is None or C == 1 or lv.examined <= 0 or lv.unvisited <= 0:
        return 0.0, lv.examined
    return 0.0, prof.n * model.split_scans(lv.unvisited / prof.n, lv.examined / prof.n, C)


def label(params) -> str:
    return f"2d scan {params['grid']}"


def level_ops(prof, lv, P: int, params) -> list:
    R, C = dims(params)
    n = prof.n
    k = scan_rounds(C)
    rb = n / (8 * R)
    ops = [Op("scan", "p2p", (0, 1 % C), k, k * rb, 0.0, P * k, P * k * rb)] if k else []
    cb = (R - 1) * n / (8 * C)
    ops.append(Op("broadcast", "allgather", col(R, C), rounds_of("allgather", R), cb, 0.0, P * (R - 1), C * cb))
    ops.append(control_op(P))
    return ops


def after_ops(prof, P: int, params) -> list:
    if params.get("code") == "paper":       # MapGraph computes predecessors locally from the levels (Sec. 3)
        return [control_op(P)]
    R, C = dims(params)
    n = prof.n
    idb = id_bytes(n + 1)           # candidate parents travel as ids (``scan_search``)
    dep = (P - 1) * depth_dtype(len(prof.levels)).itemsize * n / P      # the depths at their narrowest width
    buf = idb * n / R
    # the Reduce_scatter sends each rank of the row its piece of the buffer: (C - 1) / C of it per rank
    # (recursive halving's log2 C steps), as Comm counts it too
    return [Op("parents depths", "allgather", world(P), rounds_of("allgather", P), dep, 2 * prof.m / P,
               P * (P - 1), P * dep),
            Op("parents min", "allreduce", row(R, C), rounds_of("allreduce", C), (C - 1) / C * buf, 0.0,
               P * (C - 1), P * (C - 1) / C * buf),
            control_op(P)]
