"""Cost model of the 2D expand/fold layout (Beamer, Buluç, Asanović, Patterson, "Distributed
Memory Breadth-First Search Revisited: Enabling Bottom-Up Search", Sec. III-B, Algorithms 3 and 4;
its words are Table I's: ``words.b2d_topdown_words``, ``words.b2d_bottomup_step_words``).

Per level on an R x C grid (rank r = (r // C, r % C); ``two_d.fold_exchange``):

* transpose: one Sendrecv of the owner's frontier piece (top-down: F/P int64 ids; bottom-up:
  n/(8P) bytes of bitmap) -- the n-words term of Table I; none on a 1 x C or R x 1 grid;
* expand: an Allgatherv along the processor column (R ranks; top-down after a count Allgather):
  a rank sends its piece to R - 1 peers -- Table I's n p_r;
* fold: counts and (vertex, parent) pairs along the processor row (C ranks): top-down the
  distinct unreached targets among the X/P arcs a rank scans in its row range (the 4m of
  Table I before the senders' dedup), bottom-up those of the N/P vertices found that a rank
  other than their owner found (``found_away``), to their owners;
* rotate (bottom-up): C - 1 Sendrecvs of an n/P-bit completed piece along the row -- Table I's
  n p_c / 64;
* control: one small Allreduce.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..owned.route_cost import self_route  # noqa: F401  (the planner times it: ``route_pair``)
from ..planner.ops import Op, control_op, id_bytes, rounds_of
from ..planner.words import distinct


def grids(P: int) -> list:
    """Every R x C factorisation of P (R rows, C columns)."""
    return [(r, P // r) for r in range(1, P + 1) if P % r == 0]


def candidates(P: int) -> list:
    return [{"grid": f"{r}x{c}"} for r, c in grids(P) if r > 1 and c > 1] or [{"grid": f"1x{P}"}]


def state_vertices(n: float, P: int, params) -> float:
    """A rank's edges point into its grid column's n / C vertices, whose frontier state it holds."""
    return n / dims(params)[1]


def spread(direction: str, P: int, params) -> int:
    """The ranks one vertex's arcs fall on (``planner.balance``): top-down, the R ranks of its
    processor column expand it; bottom-up, the C ranks of its processor row scan its in-arcs."""
    R, C = dims(params)
    return R if direction == "top-down" else C


def label(params) -> str:
    return f"2d fold {params['grid']}"


def rule(params):
    """The direction rule: the paper's code (``params["code"] == "paper"``) switches by B2D Sec. VI's
    own rule (bottom-up when m_f > m/10, back when n_f < n/(14k)); breadth's layout by breadth's."""
    return "b2d" if params.get("code") == "paper" else None


def dims(params):
    r, c = (int(x) for x in params["grid"].split("x"))
    return r, c


def row(R, C) -> range:
    """Rank 0's processor row (ranks are row-major on the grid)."""
    return range(C)


def col(R, C) -> range:
    """Rank 0's processor column."""
    return range(0, R * C, C)


def transposed(q, R, C) -> int:
    return (q % R) * C + q // R


@lru_cache(maxsize=256)
def transpose_senders(R: int, C: int) -> int:
    """Ranks whose transpose partner is another rank (the others keep their piece)."""
    q = np.arange(R * C, dtype=np.int64)
    return int(np.count_nonzero((q % R) * C + q // R != q))


def level_ops(prof, lv, P: int, params) -> list:
    R, C = dims(params)
    n, idb = prof.n, id_bytes(prof.n)
    t_pair = (1, transposed(1, R, C)) if P > 1 else (0,)
    senders = transpose_senders(R, C)
    if lv.direction == "top-down":
        piece = 8 * lv.frontier / P
        ops = transpose_ops(piece, t_pair, senders)
        ex = (R - 1) * lv.frontier / P * idb + 8 * (R - 1)
        ops.append(Op("expand", "allgather", col(R, C), 2 * rounds_of("allgather", R), ex, lv.frontier / C,
                      2 * P * (R - 1), P * ex))
        pairs = distinct(lv.examined / P, lv.unvisited / R) * (C - 1) / C
    else:
        piece = n / (8 * P)
        ops = transpose_ops(piece, t_pair, senders)
        ops.append(Op("expand", "allgather", col(R, C), rounds_of("allgather", R), (R - 1) * piece, 0.0,
                      P * (R - 1), P * (R - 1) * piece))
        ops.append(Op("rotate", "p2p", (0, 1 % C), C - 1, (C - 1) * piece, 0.0, P * (C - 1),
                      P * (C - 1) * piece))
        isolated = prof.degrees.isolated() if prof.degrees is not None else 0.0      # never found
        pairs = lv.discovered / P * found_away(lv.discovered, max(lv.discovered, lv.unvisited - isolated), C)
    fb = 2 * idb * pairs + 8 * (C - 1)
    ops.append(Op("fold", "alltoall", row(R, C), 2 * rounds_of("alltoall", C), fb, 0.0, 2 * P * (C - 1),
                  P * fb, pairs))
    ops.append(control_op(P))
    return ops


def found_away(discovered: float, unvisited: float, C: int) -> float:
    """The share of a bottom-up level's discoveries made by a rank other than the vertex's owner,
    which the fold then sends (Algorithm 4). The owner searches its own piece first (sub-step 0),
    against its column block, 1/C of the columns; a vertex goes to the fold only when none of its
    frontier neighbours lies in that block. With k ~ Poisson(lam) frontier neighbours per unvisited
    vertex, spread evenly over the C blocks, a share 1 - exp(-lam) of the unvisited is found, so
    lam = -ln(1 - discovered / unvisited); of those, exp(-lam / C) - exp(-lam) are found only
    later. (C - 1) / C as lam -> 0 (one neighbour each), 0 as lam grows (dense levels). The
    isolated vertices, which no level finds, are left out of ``unvisited`` where the degree model
    knows them."""
    if C <= 1:
        return 0.0
    if unvisited <= 0 or discovered <= 0:
        return (C - 1) / C
    lam = -math.log(max(1e-12, 1.0 - min(discovered / unvisited, 1.0)))
    if lam < 1e-9:
        return (C - 1) / C
    return (math.exp(-lam / C) - math.exp(-lam)) / -math.expm1(-lam)


def transpose_ops(piece: float, pair, senders: int) -> list:
    """The transpose of a ``piece``-byte frontier piece: none on a 1 x C or R x 1 grid, where every
    rank is its own transpose partner and copies its piece (``fold_exchange``: no message)."""
    if senders == 0:
        return []
    return [Op("transpose", "p2p", pair, 1, piece, 0.0, senders, senders * piece)]


def after_ops(prof, P: int, params) -> list:
    return [control_op(P)]
