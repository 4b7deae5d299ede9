"""Cost model of the degree-separation layout (Pan, Pearce, Owens, "Scalable Breadth-First Search
on a GPU Cluster", Sec. V: the nn ids routed to their owners, the delegate mask OR-reduced;
``delegates.search``).

The delegates are the vertices of degree > TH, as in Pan Sec. III-A (threshold "auto": the
smallest power of two leaving at most n/P, the layout's rule; or a TH the planner tries, Pan's
sweep of Sec. VI-B, Fig. 6); the degree model at the target scale
(``graph.Profile.delegation``, ``planner.degrees``) gives their number d and the share of arcs
between normals. Per level:

* nn exchange, in every level (the nn pass is always top-down): an Alltoall of counts (with the
  delegate count as a header) and an Alltoallv of ids: a rank sends each remote nn target once
  per search, reached or not (it cannot know), when its frontier's nn arcs first hit it
  (``nn_ids``, ``nn_targets``);
* mask: in levels that find delegates (``delegates_found``: the degree model's hubs are reached
  first), the d-bit mask by one Allreduce (2 (P - 1) / P of it per rank on the wire), or the new
  delegates' numbers by an Allgatherv when 4 bytes each is less than twice the mask (the layout's
  rule, ``DelegatesSearch._encode``; Pan's code, ``--paper-code``, always reduces the mask);
* control: one small Allreduce.

After the last level: the parents of the normals claimed by a received nn id asked of their
senders (one Alltoallv round trip of ids, ``remote_claims``) and the parents of the delegates their
owners could not settle (``unresolved``): their int32 numbers gathered by every rank (or their mask
reduced, when that is less), (delegate, parent) pairs back to the owners. Both counts come from the
expected levels of a search over the degree model's classes, averaged over the roots Graph500 draws:
a vertex needs the stage when none of its edges from the level before its own lies on its owner's
side.
"""
from __future__ import annotations

import numpy as np

from ..owned.route_cost import self_route  # noqa: F401  (the planner times it: ``route_pair``)
from ..planner import profile_fit
from ..planner.degrees import poisson_cdf
from ..planner.ops import Op, control_op, id_bytes, rounds_of, world
from ..planner.words import distinct, pan_mask_bytes
from .partition import auto_threshold, degree_histogram

# Share of the delegates whose owner cannot settle their parent from its own arcs (``delegates.parents``)
# where the graph has no degree classes to derive it from (``unresolved``): they are shared with
# every rank and their finders send (delegate, parent) pairs back.
UNRESOLVED = 0.04


THRESHOLDS = (16, 32, 64, 128, 256, 512, 1024)     # Pan Sec. VI-B sweeps TH over such a range (Fig. 6)


CALIBRATION_RANKS = 2     # ``calibration_params``: the job whose automatic threshold the calibration runs at


def calibration_params(src, dst, n: int) -> dict:
    """The parameters the planner's one-rank calibration runs the layout with (``planner.overhead``):
    the automatic threshold of a two-rank job on that graph, not of one rank, where TH = 1 makes
    nearly every vertex a delegate and the per-vertex costs belong to a split no distributed run
    has (degrees counted from the edge list, duplicates included)."""
    deg = np.bincount(np.asarray(src), minlength=n) + np.bincount(np.asarray(dst), minlength=n)
    return {"threshold": auto_threshold(degree_histogram(deg), n, CALIBRATION_RANKS)}


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

    The unreached classes (shares a, open degrees Poisson(mu)) and the probability p that an open
    edge leads into the frontier are ``DegreeModel.bottom_up_classes``'s. One scan of D edges to the
    first frontier neighbour examines (1 - (1 - p)^D) / p. A delegate (D > TH) has its in-arcs on
    all P ranks, each scanning its share alone: P (1 - (1 - p)^(D/P)) / p. A normal is scanned
    only when the level's nn pass, which runs first, has not claimed it from a frontier normal on
    its own rank ((1 - p (1 - s) / P)^D, its nn arcs being 1 - s of them), and then over its arcs
    from delegates, s = ``from_delegates`` of them: (1 - (1 - p s)^D) / p. Truncated sums close by
    thinning: E[z^D; D > TH] = exp(-mu (1 - z)) P(Poisson(mu z) > TH)."""
    if unvisited <= 0 or examined <= 0:
        return 0.0, 0.0, 0.0
    a, mu, p, one = model.bottom_up_classes(unvisited, examined)

    def over(mu):                        # P(Poisson(mu) > TH)
        return 1.0 - poisson_cdf(th, mu)

    def normals(z):                      # E[z^D; D <= TH] per class
        return np.exp(-mu * (1.0 - z)) * (1.0 - over(mu * z))

    r = (1.0 - p) ** (1.0 / P)
    kept = 1.0 - p * (1.0 - from_delegates) / P         # no frontier nn neighbour on its own rank
    z = 1.0 - p * from_delegates
    dele = P / p * float(a @ (over(mu) - np.exp(-mu * (1.0 - r)) * over(mu * r)))
    normal = float(a @ (normals(kept) - normals(kept * z))) / p
    return dele, normal, one


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
    """Ids a rank sends in level ``lv``'s nn exchange: a rank sends each remote nn target once per
    search, whether or not its owner has reached it already (the sender cannot know), so a level
    sends the targets its frontier's nn arcs hit that the rank's earlier frontiers did not
    (``nn_targets`` of the nn arcs scanned so far, less those before the level); the owner's share
    (P - 1) / P is the caller's."""
    before = _nn_before(prof, lv, P, threshold)
    here = nn_arcs(prof, lv, P, threshold)
    return nn_targets(prof, P, threshold, (before + here) / P) - nn_targets(prof, P, threshold, before / P)


def _nn_before(prof, lv, P: int, threshold) -> float:
    """The nn arcs of ``prof.levels`` before ``lv`` (0 for a level of another list), summed once per
    levels list, P and threshold: the planner prices a profile's levels one by one. The sums are
    kept on the profile by level identity, checked on use (a profile sent to another rank arrives
    with new objects)."""
    memo = prof.__dict__.setdefault("_nn_before", {})
    levels, sums = memo.get((P, threshold), (None, {}))
    got = sums.get(id(lv))
    if levels is not prof.levels or got is None or got[0] is not lv:
        sums, total = {}, 0.0
        for x in prof.levels:
            sums[id(x)] = (x, total)
            total += nn_arcs(prof, x, P, threshold)
        memo[(P, threshold)] = (prof.levels, sums)
        got = sums.get(id(lv))
    return got[1] if got is not None and got[0] is lv else 0.0


def nn_targets(prof, P: int, threshold, arcs: float) -> float:
    """Distinct normals that ``arcs`` of one rank's nn arcs lead to (of the 2m x nn / P it holds).
    A class-k normal has Poisson(lambda_k E[D | D <= TH] / lambda_k x its neighbours' normal share)
    nn neighbours, a 1/P share of them on each rank; a rank that has scanned a share f of its nn
    arcs has hit it with probability 1 - exp(-f x that / P). Without degree classes: ``arcs``
    uniform draws over the n - d normals."""
    th, d, _ = prof.delegation(P, threshold)
    model = prof.degrees
    if arcs <= 0.0:
        return 0.0
    if model is None or model.is_measured or prof.overrides:
        return distinct(arcs, prof.n - d)
    lam, normal, below, nb_delegate = _classes(model, th)
    shrink = np.divide(below, normal, out=np.zeros_like(lam), where=normal > 1e-300)   # E[D | D <= TH] / lambda
    per = lam * shrink * (1.0 - nb_delegate) / P            # a normal's nn neighbours on one rank
    count = model.n * model.weight * normal
    f = min(1.0, arcs / max(float(count @ per), 1e-300))
    return float(count @ -np.expm1(-f * per))


def _classes(model, th: int) -> tuple:
    """Per degree class at threshold TH: (lambda, the share of normals (degree <= TH), the share of
    a neighbour's ends that are normal (this edge and Poisson others: <= TH), the share of the
    class's neighbours that are delegates)."""
    lam = np.maximum(model.lam, 1e-300)
    below = poisson_cdf(th - 1, lam)
    rows = model.joint.sum(axis=1)
    nb_delegate = np.divide(model.joint @ (1.0 - below), rows, out=np.zeros_like(rows), where=rows > 0)
    return lam, model.normal_vertex(th), below, nb_delegate


def delegates_found(prof, lv, P: int, threshold="auto") -> float:
    """Delegates that level ``lv`` reaches: the degree model's unreached delegates before the level
    less those after it (``DegreeModel.unreached_above``), in proportion to the delegates' count
    where the user set it. The hubs go early: on Kronecker scale 16 at TH = 4 the model puts none in
    the level after the peak, which finds 1,300 vertices. Without degree classes: every vertex the
    level finds off the nn edges, up to d."""
    th, d, nn = prof.delegation(P, threshold)
    before = _unreached_delegates(prof, lv.unvisited, th, d)
    if before is None:
        return min(d, lv.discovered * (1.0 - nn))
    return max(0.0, before - _unreached_delegates(prof, max(0.0, lv.unvisited - lv.discovered), th, d))


def _unreached_delegates(prof, unvisited: float, th, d: float):
    """Delegates still unreached while ``unvisited`` vertices are (``DegreeModel.unreached_above``),
    in proportion to the delegates' count ``d`` where the user set it; None without degree classes."""
    model = prof.degrees
    if model is None or model.is_measured:
        return None
    return model.unreached_above(unvisited / prof.n, th) * d / max(model.delegates(th), 1.0)


def swept(prof, lv, P: int, params) -> float:
    """The share of a level's swept vertices one rank sweeps (``choose``): the delegates' state is on
    every rank, so a bottom-up level's sweep covers every unreached delegate on every rank (each
    scans its share of their in-arcs, ``reverse_scans``) and 1/P of the unreached normals; the
    unreached delegates are the degree model's (``DegreeModel.unreached_above``), else a d/n share
    of the unreached. A top-down level's own vertices are 1/P of the graph's."""
    if lv.direction == "top-down" or P <= 1 or lv.unvisited <= 0:
        return 1.0 / max(P, 1)
    th, d, _ = prof.delegation(P, params.get("threshold", "auto"))
    left = _unreached_delegates(prof, lv.unvisited, th, d)
    share = min(1.0, (lv.unvisited * d / prof.n if left is None else left) / lv.unvisited)
    return 1.0 / P + share * (1.0 - 1.0 / P)


def level_ops(prof, lv, P: int, params) -> list:
    if P <= 1:
        return []
    g, idb = world(P), id_bytes(prof.n)
    th = params.get("threshold", "auto")
    _, d, nn = prof.delegation(P, th)
    ids = nn_ids(prof, lv, P, th) * (P - 1) / P
    nb = 16 * (P - 1) + idb * ids
    ops = [Op("nn ids", "alltoall", g, 2 * rounds_of("alltoall", P), nb, 0.0, 2 * P * (P - 1), P * nb, ids)]
    found = delegates_found(prof, lv, P, th)
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
    asks = remote_claims(prof, P, params.get("threshold", "auto")) / P
    # the requests out and the answers back, one id each, in two Alltoallvs whose count Alltoalls
    # carry 16 and 8 bytes per peer
    nb = 2 * idb * asks + 24 * (P - 1)
    _, d, _ = prof.delegation(P, params.get("threshold", "auto"))
    u = unresolved(prof, P, params.get("threshold", "auto"))
    pairs = 2 * idb * u / P             # (delegate, parent) pairs from their finders to the owners
    ops = [Op("nn parents", "alltoall", g, 4 * rounds_of("alltoall", P), nb, 2 * asks, 4 * P * (P - 1), P * nb)]
    # the unresolved delegates shared as a level's mask is: their int32 numbers, or the mask
    # Allreduce when 4 bytes each is more than twice the mask (``DelegatesSearch._encode``)
    mask = pan_mask_bytes(d)
    if 4 * u < 2 * mask:
        nbu = 4 * u / P * (P - 1)
        ops.append(Op("delegate parents", "allgather", g, rounds_of("allgather", P), nbu + pairs, 0.0,
                      P * (P - 1), P * nbu + pairs * (P - 1)))
    else:
        ops.append(Op("delegate parents", "allreduce", g, rounds_of("allreduce", P),
                      2 * (P - 1) / P * mask + pairs, 0.0, P * (P - 1), P * (P - 1) * mask + pairs * (P - 1)))
    return ops


def unresolved(prof, P: int, threshold="auto") -> float:
    """Reached delegates whose owner sees none of their parents (``delegates.parents``): the owner
    holds the arcs into a delegate from the normals it owns (nd: a 1/P share of its normal
    neighbours) and the dd edges placed with it (half of them by the parity of their ends, and
    1/P of the other half). ``UNRESOLVED`` x d where the graph has no degree classes."""
    _, d, _ = prof.delegation(P, threshold)
    got = _missed(prof, P, threshold, delegates=True)
    return UNRESOLVED * d if got is None else got


def remote_claims(prof, P: int, threshold="auto") -> float:
    """Reached normals whose parent came in the nn exchange, on no rank's arc to them from their
    owner's own side: their owner asks the sender after the search (``delegates.parents``). A
    normal's delegate neighbours are all on its owner (dn is stored with the normal), and a 1/P
    share of its normal ones; the owner's visits run before the received ids are applied. Without
    degree classes: the reached normals' nn share, remote with probability (P - 1) / P."""
    got = _missed(prof, P, threshold, delegates=False)
    if got is not None:
        return got
    reached = prof.n - (prof.levels[-1].unvisited - prof.levels[-1].discovered if prof.levels else 0.0)
    return reached * prof.delegation(P, threshold)[2] * (P - 1) / P


def _missed(prof, P: int, threshold, delegates: bool):
    """Reached delegates (or normals) none of whose edges from the level before theirs is on their
    owner's side, over the degree model's classes and the expected levels of a search
    (``profile_fit.steps``); None without degree classes.

    A class-k vertex reached in a level has mu = lambda_k (theta_k - theta'_k) edges from the
    level's frontier (Poisson, at least one); with a share s of its edges on its owner's side,
    none of them is there with probability (e^(-mu s) - e^(-mu)) / (1 - e^(-mu)). A delegate (a
    normal) of a class has the class's degree conditioned on > TH (<= TH). The levels are those
    from a root of the profile's ``root_degree``, else the mean over roots drawn as Graph500 draws
    them (``DegreeModel.root_degrees``): a hub root reaches most delegates in one level from a
    large frontier, where they have many frontier edges, and a low-degree root over more levels."""
    model = prof.degrees
    if P <= 1:
        return 0.0
    if model is None or model.is_measured or prof.overrides:
        return None
    th = prof.delegation(P, threshold)[0]
    root = getattr(prof, "root_degree", None)
    key = ("missed", int(P), th, bool(delegates), root)
    if key not in model._memo:
        roots = [(1.0, root)] if root is not None else model.root_degrees()
        model._memo[key] = sum(w * _missed_from(model, P, th, delegates, d) for w, d in roots)
    return model._memo[key]


def _missed_from(model, P: int, th: int, delegates: bool, root_degree) -> float:
    """``_missed`` over the expected levels of a search from a root of degree ``root_degree``."""
    lam, normal, below, nb_delegate = _classes(model, th)
    if delegates:
        share = 1.0 - normal
        scale = np.divide(1.0 - below, share, out=np.ones_like(lam), where=share > 1e-300)   # E[D | D > TH] / lambda
        seen = nb_delegate * (0.5 + 0.5 / P) + (1.0 - nb_delegate) / P
    else:
        share = normal
        scale = np.divide(below, share, out=np.zeros_like(lam), where=share > 1e-300)        # E[D | D <= TH] / lambda
        seen = nb_delegate + (1.0 - nb_delegate) / P
    count = model.n * model.weight * share
    got = np.zeros_like(lam)
    for theta, new_theta in profile_fit.steps(model, root_degree=root_degree):
        mu = lam * scale * (theta - new_theta)                # edges from the level's frontier
        before = np.exp(-lam * scale * (1.0 - theta))          # still unreached before the level
        got += before * np.maximum(np.exp(-mu * seen) - np.exp(-mu), 0.0)
        found = profile_fit.unreached(lam, theta) - profile_fit.unreached(lam, new_theta)
        if model.n * float(model.weight @ found) < 0.5:      # the search ends (``profile_fit.expected``)
            break
    return float(count @ got)
