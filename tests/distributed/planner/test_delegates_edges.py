"""The delegates layout's examined edges per level (``delegates.cost.level_edges``,
``reverse_scans``) against hand-computed cases and direct sums over the degree distribution."""
import math

import numpy as np
import pytest
from scipy.stats import poisson

from breadth.distributed.delegates import cost
from breadth.distributed.planner import choose, degrees
from breadth.distributed.planner.graph import Level, Profile


def _direct(lam, th, P, p, s):
    """reverse_scans' three numbers for one class, every vertex unvisited (y = 0), summed degree by
    degree: a delegate (D > TH) scans D / P edges on each of P ranks; a normal not claimed by a
    frontier nn neighbour on its own rank scans its D s arcs from delegates; one scan covers D edges."""
    k = np.arange(0, 400)
    pk = poisson.pmf(k, lam)
    dele = sum(P * (1 - (1 - p) ** (kk / P)) / p * q for kk, q in zip(k, pk) if kk > th)
    normal = sum((1 - p * (1 - s) / P) ** kk * (1 - (1 - p * s) ** kk) / p * q for kk, q in zip(k, pk) if kk <= th)
    one = sum((1 - (1 - p) ** kk) / p * q for kk, q in zip(k, pk))
    return dele, normal, one


def test_reverse_scans_match_the_direct_sums_over_degrees():
    model = degrees.DegreeModel(1000, 16000, [1.0], [32.0], [[1.0]], "one class")
    P, th, s = 2, 32, 0.5
    p = 0.2
    dele, normal, one = _direct(32.0, th, P, p, s)
    # the level's one scan per vertex fixes p; every vertex unvisited (share 1) leaves y = 0
    got = cost.reverse_scans(model, th, P, 1.0, one, s)
    assert got[2] == pytest.approx(one, rel=1e-6)
    assert got[0] == pytest.approx(dele, rel=1e-4)
    assert got[1] == pytest.approx(normal, rel=1e-4)


def test_a_delegate_split_over_p_ranks_scans_up_to_p_times_one_scan():
    # every vertex a delegate (TH 0 on degree >= 1): with p = 1 - 1/e^(1/4) and degree 40 the level finds
    # almost all; each of 4 ranks scans its 10 edges to its own first hit, 4 (1 - (1 - p)^10) / p
    model = degrees.DegreeModel(1000, 20000, [1.0], [40.0], [[1.0]], "one class")
    p = 1 - math.exp(-0.25)
    one = sum((1 - (1 - p) ** k) / p * q for k, q in zip(range(200), poisson.pmf(np.arange(200), 40.0)))
    dele, normal, got_one = cost.reverse_scans(model, 0, 4, 1.0, one, 0.0)
    assert got_one == pytest.approx(one, rel=1e-6)
    assert normal == pytest.approx(0.0, abs=1e-9)         # no normals of degree <= 0 that scan anything
    assert 3.0 < dele / one < 4.0


def _profile():
    model = degrees.uniform(12, 16)
    levels = [Level("top-down", 1, 32, 31, 4095), Level("top-down", 31, 1000, 900, 4064),
              Level("bottom-up", 900, 6000, 2500, 3164), Level("bottom-up", 2500, 700, 664, 664),
              Level("bottom-up", 664, 0, 0, 0)]
    return Profile(4096.0, 65536.0, levels, {}, "test", model)


def test_a_top_down_level_examines_its_frontiers_arcs():
    prof = _profile()
    assert cost.level_edges(prof, prof.levels[1], 4, {"threshold": 32}) == (1000, 0.0)


def test_a_bottom_up_level_still_runs_the_nn_pass_top_down():
    prof, P = _profile(), 4
    lv = prof.levels[2]
    td, bu = cost.level_edges(prof, lv, P, {"threshold": 32})
    _, d, nn = prof.delegation(P, 32)
    # the frontier's normals times the normals' mean nn degree
    assert td == pytest.approx(lv.frontier * (1 - d / prof.n) * 2 * prof.m * nn / (prof.n - d))
    e = prof.degrees.endpoint_share(d)
    dele, normal, one = cost.reverse_scans(prof.degrees, 32, P, lv.unvisited / prof.n, lv.examined / prof.n,
                                           (1 - e - nn) / (1 - e))
    assert bu == pytest.approx(lv.examined * (dele + normal) / one)
    # the last level finds nothing bottom-up, but the nn pass scans its whole frontier's nn arcs
    assert cost.level_edges(prof, prof.levels[4], P, {"threshold": 32})[0] > 0


def test_choose_prices_a_layouts_own_edges_else_the_levels():
    prof = _profile()

    class Plain:
        pass

    assert choose.level_edges(Plain, prof, prof.levels[2], 4, {}) == (0.0, 6000)
    assert choose.level_edges(Plain, prof, prof.levels[1], 4, {}) == (1000, 0.0)
    assert choose.level_edges(cost, prof, prof.levels[2], 4, {"threshold": 32})[0] > 0


def _one_class(monkeypatch, steps, lam=10.0, n=1000.0):
    """A one-class graph whose search takes the levels ``steps`` ((theta, theta') pairs)."""
    from breadth.distributed.planner import profile_fit
    model = degrees.DegreeModel(n, n * lam / 2, [1.0], [lam], [[1.0]], "one class")
    monkeypatch.setattr(profile_fit, "steps", lambda m, *a, **k: iter([(np.array([t]), np.array([u]))
                                                                       for t, u in steps]))
    return Profile(n, n * lam / 2, [Level("top-down", 1, lam, lam, n - 1)], degrees=model)


def test_remote_claims_by_hand(monkeypatch):
    # no delegates (TH above every degree): a normal's edges lie on its owner's side with share
    # 1/P; reached in a level with mu frontier edges, none of them is there with e^-(mu/P) - e^-mu
    P, lam, n = 4, 10.0, 1000.0
    prof = _one_class(monkeypatch, [(1.0, 0.9), (0.9, 0.2)], lam, n)
    mu1, mu2, before2 = lam * 0.1, lam * 0.7, math.exp(-lam * 0.1)
    want = n * ((math.exp(-mu1 / P) - math.exp(-mu1)) + before2 * (math.exp(-mu2 / P) - math.exp(-mu2)))
    assert cost.remote_claims(prof, P, 1 << 20) == pytest.approx(want, rel=1e-9)
    assert cost.remote_claims(prof, 1, 1 << 20) == 0.0
    ops = {o.name: o for o in cost.after_ops(prof, P, {"threshold": 1 << 20})}
    # requests out and answers back, one 4-byte id each, and the two count Alltoalls' headers
    assert ops["nn parents"].bytes == pytest.approx(2 * 4 * want / P + 24 * (P - 1))
    assert ops["nn parents"].volume == pytest.approx(P * ops["nn parents"].bytes)


def test_unresolved_delegates_by_hand(monkeypatch):
    # TH = 0: every vertex of degree >= 1 is a delegate and so is every neighbour; the owner holds
    # half of a delegate's dd edges and 1/P of the other half; a delegate's degree is the class's
    # conditioned on >= 1
    P, lam, n = 2, 3.0, 1000.0
    prof = _one_class(monkeypatch, [(1.0, 0.5), (0.5, 0.1)], lam, n)
    seen = 0.5 + 0.5 / P
    scale = 1.0 / (1.0 - math.exp(-lam))
    mu1, mu2 = lam * scale * 0.5, lam * scale * 0.4
    before2 = math.exp(-lam * scale * 0.5)
    want = n * (1 - math.exp(-lam)) * ((math.exp(-mu1 * seen) - math.exp(-mu1))
                                       + before2 * (math.exp(-mu2 * seen) - math.exp(-mu2)))
    assert cost.unresolved(prof, P, 0) == pytest.approx(want, rel=1e-9)
    # without degree classes: the assumed share of the delegates
    bare = Profile(n, n * lam / 2, prof.levels, {1: (0.5, 0.5)})
    assert cost.unresolved(bare, P, "auto") == pytest.approx(cost.UNRESOLVED * n / P)


@pytest.mark.parametrize("kind,scale,P", [("kronecker", 14, 2), ("uniform", 14, 2)])
def test_delegates_found_per_level_match_searches_of_a_generated_graph(kind, scale, P):
    # the reference: single-node searches of the generated graph, the vertices of degree > TH found per
    # level (mean over 16 roots); the model's levels are the expected ones from a random root
    import breadth
    from breadth.graph.generators import kronecker, uniform_random
    from breadth.distributed.planner import graph as planner_graph
    g = (kronecker if kind == "kronecker" else uniform_random)(scale, 16, 1)
    deg = np.diff(g.indptr)
    prof = planner_graph.generated(kind, scale)
    th, d, _ = prof.delegation(P)
    rng = np.random.default_rng(3)
    roots = [int(r) for r in rng.integers(0, g.num_vertices, 400) if deg[r] > 0][:16]
    found = np.zeros(16)
    for r in roots:
        depth = np.asarray(breadth.bfs(g, r).depth)
        found[:depth.max()] += np.bincount(depth[(deg > th) & (depth > 0)], minlength=depth.max() + 1)[1:]
    found /= len(roots)
    model = np.array([cost.delegates_found(prof, lv, P, th) for lv in prof.levels_for(None)])
    assert model.sum() == pytest.approx(found.sum(), rel=0.03)          # every reached delegate, once
    assert model.sum() <= d
    L = min(model.size, found.size)
    big = found[:L] > 0.1 * found.sum()
    assert big.sum() >= 2
    if kind == "uniform":                                                # level by level
        assert model[:L][big] == pytest.approx(found[:L][big], rel=0.1)
    else:   # Kronecker: the model expands a level early (``profile_fit``); the peak level's within 15%
        peak = int(np.argmax(found))
        assert model[peak] == pytest.approx(found[peak], rel=0.15)
        assert model[peak + 1:].sum() < 0.1 * d


def test_unresolved_delegates_are_the_mean_over_drawn_roots():
    # the expected levels bend with the root's degree, so the count is their mean over the roots
    # Graph500 draws (``DegreeModel.root_degrees``), not the count at the mean root degree
    from breadth.distributed.planner import graph as planner_graph
    prof = planner_graph.generated("kronecker", 16)
    model, (th, _, _) = prof.degrees, prof.delegation(2)
    each = [(w, cost._missed_from(model, 2, th, True, d)) for w, d in model.root_degrees()]
    assert cost.unresolved(prof, 2) == pytest.approx(sum(w * u for w, u in each), rel=1e-9)
    assert min(u for _, u in each) < cost.unresolved(prof, 2) < max(u for _, u in each)
    # at the mean root degree the hubs' early levels weigh as if every root had them
    mean_root = cost._missed_from(model, 2, th, True, None)
    assert cost.unresolved(prof, 2) < 0.9 * mean_root
    # a profile from a root of a given degree takes that root's levels alone
    six = planner_graph.generated("kronecker", 16, root_degree=6)
    assert cost.unresolved(six, 2) == pytest.approx(cost._missed_from(model, 2, th, True, 6))


def test_every_rank_sweeps_every_unreached_delegate():
    # the delegates' state is on every rank: a bottom-up level sweeps all unreached delegates on each
    # rank and 1/P of the unreached normals; Poisson(8) degrees, TH = 10, 30% of the graph unreached
    model = degrees.DegreeModel(1000, 4000, [1.0], [8.0], [[1.0]], "one class")
    prof = Profile(1000, 4000, [], degrees=model)
    P, th = 4, 10
    lv = Level("bottom-up", 100, 500, 200, 300)
    left = model.unreached_above(0.3, th)                 # unreached delegates of the 300 unreached
    want = 1 / P + (left / 300) * (1 - 1 / P)
    assert cost.swept(prof, lv, P, {"threshold": th}) == pytest.approx(want)
    assert 1 / P < want < 1
    assert cost.swept(prof, Level("top-down", 100, 500, 200, 300), P, {"threshold": th}) == pytest.approx(1 / P)
    assert cost.swept(prof, lv, 1, {"threshold": th}) == pytest.approx(1.0)
