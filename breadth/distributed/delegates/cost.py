"""Cost model of the degree-separation layout (Pan, Pearce, Owens, "Scalable Breadth-First Search
on a GPU Cluster", Sec. V: the nn ids routed to their owners, the delegate mask OR-reduced;
``delegates.search``).

The delegates are the vertices of degree > TH, as in Pan Sec. III-A (threshold "auto": the
smallest power of two leaving at most n/P, the layout's rule; or a TH the planner tries, Pan's
sweep of Sec. VI-B, Fig. 6); the degree model at the target scale
(``graph.Profile.delegation``, ``planner.degrees``) gives their number d and the share of arcs
between normals. Per level:

* nn exchange, in every level (the nn pass is always top-down): an Alltoall of counts (with the
  delegate count as a header) and an Alltoallv of ids: a rank sends its distinct unreached nn
  targets among the nn arcs of its frontier share that other ranks own (``nn_ids``);
* mask: in levels that find delegates, the d-bit mask by one Allreduce (2 (P - 1) / P of it per
  rank on the wire), or the new delegates' numbers by an Allgatherv when 4 bytes each is less than
  twice the mask (the layout's rule, ``DelegatesSearch._encode``; Pan's code, ``--paper-code``,
  always reduces the mask);
* control: one small Allreduce.

After the last level: the nn vertices' parents asked of their senders (one Alltoallv round trip
of ids) and the parents of the delegates their owners could not settle (``UNRESOLVED``): their
int32 numbers gathered by every rank, (delegate, parent) pairs back to the owners.
"""
from __future__ import annotations

import math

import numpy as np

from ..planner.degrees import poisson_cdf
from ..planner.network import Op, control_op, id_bytes, rounds_of, world
from ..planner.words import distinct, pan_mask_bytes

# Share of the delegates whose owner cannot settle their parent from its own arcs (``delegates.parents``):
# they are shared with every rank and their finders send (delegate, parent) pairs back. Not in the
# level profile, so assumed (bench/dist_network.py measures it).
UNRESOLVED = 0.04


THRESHOLDS = (16, 32, 64, 128, 256, 512, 1024)     # Pan Sec. VI-B sweeps TH over such a range (Fig. 6)


def candidates(P: int) -> list:
    return [{"threshold": "auto"}] + [{"threshold": t} for t in THRESHOLDS]


def label(params) -> str:
    return f"delegates TH={params.get('threshold', 'auto')}"


def nn_arcs(prof, lv, P: int, threshold="auto") -> float:
    """nn arcs the level's normal frontier scans, summed over ranks: the nn pass runs top-down in
    every level, whatever direction the other subgraphs take; in a top-down level they are the
    nn share of the arcs examined, in a bottom-up one the frontier's normals times the normals'
    mean nn degree (2m nn / (n - d))."""
    _, d, nn = prof.delegation(P, threshold)
    if lv.direction == "top-down":
        return lv.examined * nn
    return lv.frontier * (1.0 - d / prof.n) * 2.0 * prof.m * nn / (prof.n - d)


def reverse_scans(model, th: float, P: int, unvisited: float, examined: float, from_delegates: float) -> tuple:
    """(delegates', normals', one scan's) edges that the reverse passes of a bottom-up level examine
    per vertex of the graph, from the degree model ``model`` with threshold ``th``, in a level that
    starts with ``unvisited`` (share of n) unreached and whose one scan per vertex examines
    ``examined`` edges (per vertex of the graph).

    The unreached: every edge end reached with the same probability y (a random graph's mixing),
    so a class of Poisson(lam) degrees keeps exp(-lam y) of its vertices unreached, with degrees
    Poisson(mu = lam (1 - y)); y solves the unvisited share. Each open edge leads into the frontier
    with probability p, which solves ``examined``. One scan of D edges to the first frontier
    neighbour examines (1 - (1 - p)^D) / p. A delegate (D > TH) has its in-arcs on all P ranks,
    each scanning its share alone: P (1 - (1 - p)^(D/P)) / p. A normal is scanned only when the
    level's nn pass, which runs first, has not claimed it from a frontier normal on its own rank
    ((1 - p (1 - s) / P)^D, its nn arcs being 1 - s of them), and then over its arcs from delegates,
    s = ``from_delegates`` of them: (1 - (1 - p s)^D) / p. Truncated sums close by thinning:
    E[z^D; D > TH] = exp(-mu (1 - z)) P(Poisson(mu z) > TH)."""
    w, lam = model.weight, model.lam
    if unvisited <= 0 or examined <= 0:
        return 0.0, 0.0, 0.0

    def over(mu):                        # P(Poisson(mu) > TH)
        return 1.0 - poisson_cdf(th, mu)

    lo, hi = 0.0, 1.0                    # y: the unvisited share falls as y grows
    for _ in range(60):
        y = 0.5 * (lo + hi)
        lo, hi = (y, hi) if float(w @ np.exp(-lam * y)) > unvisited else (lo, y)
    a, mu = w * np.exp(-lam * y), lam * (1.0 - y)

    def one_scan(p):                     # falls as p grows, from the open edges (p -> 0) to the vertices
        return float(a @ -np.expm1(-mu * p)) / p

    lo, hi = 1e-12, 1.0
    for _ in range(60):
        p = math.sqrt(lo * hi)
        lo, hi = (p, hi) if one_scan(p) > examined else (lo, p)

    def normals(z):                      # E[z^D; D <= TH] per class
        return np.exp(-mu * (1.0 - z)) * (1.0 - over(mu * z))

    r = (1.0 - p) ** (1.0 / P)
    kept = 1.0 - p * (1.0 - from_delegates) / P         # no frontier nn neighbour on its own rank
    z = 1.0 - p * from_delegates
    dele = P / p * float(a @ (over(mu) - np.exp(-mu * (1.0 - r)) * over(mu * r)))
    normal = float(a @ (normals(kept) - normals(kept * z))) / p
    return dele, normal, one_scan(p)


def level_edges(prof, lv, P: int, params) -> tuple:
    """(top-down, bottom-up) edges of a level, summed over ranks (``choose.level_edges``). A
    top-down level examines the frontier's arcs. In a bottom-up level the nn pass still runs
    top-down over the frontier's nn arcs (``nn_arcs``), and the reverse passes examine the level's
    bottom-up edges as ``reverse_scans`` weighs them against one scan per vertex: delegates' on
    every rank, normals' over their arcs from delegates only (dn / (nn + dn) of their arcs)."""
    if lv.direction == "top-down":
        return lv.examined, 0.0
    th, d, nn = prof.delegation(P, params.get("threshold", "auto"))
    model = prof.degrees
    if model is None or lv.examined <= 0:
        return nn_arcs(prof, lv, P, th), lv.examined
    e = min(1.0 - nn, model.endpoint_share(d))            # arcs into delegates: nd + dd
    dele, normal, one = reverse_scans(model, th, P, lv.unvisited / prof.n, lv.examined / prof.n,
                                      max(0.0, 1.0 - e - nn) / (1.0 - e) if e < 1.0 else 0.0)
    scale = (dele + normal) / one if one > 0 else 1.0
    return nn_arcs(prof, lv, P, th), lv.examined * scale


def nn_ids(prof, lv, P: int, threshold="auto") -> float:
    """Distinct unreached targets among a rank's nn arcs: its arcs fall on all n vertices, the
    unreached ones are hit in proportion (``words.distinct`` over n, times unvisited / n)."""
    return distinct(nn_arcs(prof, lv, P, threshold) / P, prof.n) * lv.unvisited / prof.n


def level_ops(prof, lv, P: int, params) -> list:
    if P <= 1:
        return []
    g, idb = world(P), id_bytes(prof.n)
    th = params.get("threshold", "auto")
    _, d, nn = prof.delegation(P, th)
    ids = nn_ids(prof, lv, P, th) * (P - 1) / P
    nb = 16 * (P - 1) + idb * ids
    ops = [Op("nn ids", "alltoall", g, 2 * rounds_of("alltoall", P), nb, 2 * ids, 2 * P * (P - 1), P * nb)]
    found = min(d, lv.discovered * (1.0 - nn))
    if found >= 1:
        mask = pan_mask_bytes(d)
        if 4 * found < 2 * mask and params.get("code") != "paper":    # Pan's code always reduces the mask
            nbm = (P - 1) * 4 * found / P
            ops.append(Op("mask", "allgather", g, rounds_of("allgather", P), nbm, 0.0, P * (P - 1), P * nbm))
        else:
            ops.append(Op("mask", "allreduce", g, rounds_of("allreduce", P), 2 * (P - 1) / P * mask, 0.0,
                          P * (P - 1), P * (P - 1) * mask))
    ops.append(control_op(P, 40))
    return ops


def after_ops(prof, P: int, params) -> list:
    g, idb = world(P), id_bytes(prof.n)
    reached = prof.n - (prof.levels[-1].unvisited - prof.levels[-1].discovered if prof.levels else 0.0)
    _, d, nn = prof.delegation(P, params.get("threshold", "auto"))
    asks = reached * nn / P * (P - 1) / P
    nb = 2 * idb * asks + 8 * (P - 1)
    u = UNRESOLVED * d
    # the unresolved delegates' numbers (int32) to every rank, then (delegate, parent) pairs to the owners
    nbu = 4 * u / P * (P - 1)
    return [Op("nn parents", "alltoall", g, 4 * rounds_of("alltoall", P), 2 * nb, 2 * asks, 4 * P * (P - 1),
               2 * P * nb),
            Op("delegate parents", "allgather", g, rounds_of("allgather", P), nbu + 2 * idb * u / P, 0.0,
               P * (P - 1), P * nbu + 2 * idb * u * (P - 1) / P)]
