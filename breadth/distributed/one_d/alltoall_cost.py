"""Cost model of the 1D all-to-all layout (the classic pattern of Green, "ButterFly BFS", Sec. 2,
and Buluç and Madduri's 1D algorithm that B2D Sec. III-A describes; B2D Table I with p_r = 1,
p_c = P).

Per level on P ranks (counted as ``owned.alltoall`` does):

* top-down: an Alltoall of counts (8 bytes per peer) and an Alltoallv of (vertex, parent) pairs:
  2(P - 1) latency steps; a rank sends its distinct unreached targets of the X/P arcs it scans
  that other ranks own (``words.distinct``), two ids each, and packs them by owner, and the owner
  settles them (``route_pair`` each, ``owned.route_cost``);
* bottom-up: one Allgatherv of the frontier bitmap, n/(8P) bytes to each of P - 1 peers;
* control: one small Allreduce.
"""
from __future__ import annotations

from ..owned.route_cost import self_route  # noqa: F401  (the planner times it: ``route_pair``)
from ..planner.ops import Op, control_op, id_bytes, rounds_of, world
from ..planner.words import alltoall_messages, distinct

def candidates(P: int) -> list:
    return [{}]


def label(params) -> str:
    return "1d alltoall"


def level_ops(prof, lv, P: int, params) -> list:
    g, n, idb = world(P), prof.n, id_bytes(prof.n)
    if P <= 1:
        return []
    if lv.direction == "top-down":
        pairs = distinct(lv.examined / P, lv.unvisited) * (P - 1) / P
        nbytes = 8 * (P - 1) + 2 * idb * pairs
        op = Op("exchange", "alltoall", g, 2 * rounds_of("alltoall", P), nbytes, 0.0,
                alltoall_messages(P, True), P * nbytes, pairs)
    else:
        nbytes = (P - 1) * n / (8 * P)
        op = Op("exchange", "allgather", g, rounds_of("allgather", P), nbytes, 0.0,
                alltoall_messages(P, False), P * nbytes)
    return [op, control_op(P)]


def after_ops(prof, P: int, params) -> list:
    return []


def setup_bytes(prof, P: int, params) -> float:
    """Bytes every rank clears per search: the gathered frontier and the ``sent`` bitmaps (n bits each)."""
    return prof.n / 4
