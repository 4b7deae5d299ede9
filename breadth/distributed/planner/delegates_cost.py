"""Cost model of the degree-separation layout (Pan, Pearce, Owens, "Scalable Breadth-First Search
on a GPU Cluster", Sec. V: the nn ids routed to their owners, the delegate mask OR-reduced;
``delegates.search``).

With d = n/P delegates (threshold "auto": the smallest power of two leaving at most n/P), the
graph's skew (``graph.Profile.nn_share``) gives the share of arcs between normals. Per level:

* nn exchange: an Alltoall of counts (with the delegate count as a header) and an Alltoallv of
  ids: a rank sends its distinct unreached nn targets among its X nn_share / P scanned arcs that
  other ranks own;
* mask: in levels that find delegates, the d-bit mask by one Allreduce, or the new delegates'
  numbers by an Allgatherv when 4 bytes each is smaller (the layout picks the smaller);
* control: one small Allreduce.

After the last level: the nn vertices' parents asked of their senders (one Alltoallv round trip
of ids) and the delegates' parents (an Allreduce of d ids).
"""
from __future__ import annotations

from .network import Op, control_op, id_bytes, rounds_of, world
from .words import distinct, pan_mask_bytes

NAME = ("delegates", "alltoall")


def candidates(P: int) -> list:
    return [{"threshold": "auto"}]


def label(params) -> str:
    return f"delegates TH={params.get('threshold', 'auto')}"


def level_ops(prof, lv, P: int, params) -> list:
    if P <= 1:
        return []
    g, idb = world(P), id_bytes(prof.n)
    nn = prof.nn_share(P)
    d = max(1.0, prof.n / P)
    ids = distinct(lv.examined * nn / P, lv.unvisited) * (P - 1) / P if lv.direction == "top-down" else 0.0
    nb = 16 * (P - 1) + idb * ids
    ops = [Op("nn ids", "alltoall", g, 2 * rounds_of("alltoall", P), nb, 2 * ids, 2 * P * (P - 1), P * nb)]
    found = min(d, lv.discovered * prof.delegate_share(P))
    if found >= 1:
        mask = pan_mask_bytes(d)
        if 4 * found < mask:
            nbm = (P - 1) * 4 * found / P
            ops.append(Op("mask", "allgather", g, rounds_of("allgather", P), nbm, 0.0, P * (P - 1), P * nbm))
        else:
            ops.append(Op("mask", "allreduce", g, rounds_of("allreduce", P), 2 * mask, 0.0, P * (P - 1),
                          P * (P - 1) * mask))
    ops.append(control_op(P, 40))
    return ops


def after_ops(prof, P: int, params) -> list:
    g, idb = world(P), id_bytes(prof.n)
    reached = prof.n - (prof.levels[-1].unvisited - prof.levels[-1].discovered if prof.levels else 0.0)
    asks = reached * prof.nn_share(P) / P * (P - 1) / P
    nb = 2 * idb * asks + 8 * (P - 1)
    d = max(1.0, prof.n / P)
    return [Op("nn parents", "alltoall", g, 4 * rounds_of("alltoall", P), 2 * nb, 2 * asks, 4 * P * (P - 1),
               2 * P * nb),
            Op("delegate parents", "allreduce", g, rounds_of("allreduce", P), 2 * idb * d, 0.0, P * (P - 1),
               P * (P - 1) * idb * d)]
