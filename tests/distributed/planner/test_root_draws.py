"""The expectation over the roots a Graph500 draw gives (``Profile.root_draws``, ``choose.expected``):
a search's cost bends with its root's degree, so the mean search is the mean over root-degree
buckets, checked against direction-optimizing searches of a generated graph (the independent
reference) and by hand."""
import numpy as np
import pytest

import breadth
from breadth.distributed import registry
from breadth.distributed.planner import choose, graph, network
from breadth.graph.generators import kronecker


def test_the_draws_give_the_mean_search_where_the_mean_root_does_not():
    g = kronecker(16, 16, 1)
    roots = graph.pick_roots(g, 32, seed=5)
    measured = np.mean([sum(lv.edges_examined for lv in breadth.bfs(g, r).levels) for r in roots])
    prof = graph.generated("kronecker", 16)
    draws = prof.root_draws()
    assert sum(w for w, _ in draws) == pytest.approx(1.0)
    mean_root = sum(lv.examined for lv in prof.levels)
    mixed = sum(w * sum(lv.examined for lv in p.levels) for w, p in draws)
    # 32 roots measured 9.5e4 edges a search on average; the draws give 1.08e5, the mean root 6.9e4
    assert mixed == pytest.approx(measured, rel=0.25)
    assert mean_root < 0.8 * measured


def test_expected_is_the_weighted_mean_of_the_draws_predictions():
    prof = graph.generated("kronecker", 16)
    machine = network.assumed(2, 2, 1, 5e-5, 1.25e6)
    lay = registry.get("1d", "alltoall")
    got = choose.expected(lay, prof, machine, {})
    each = [(w, choose.predict(lay, p, machine, {})) for w, p in prof.root_draws()]
    for field in ("seconds", "compute_seconds", "comm_seconds", "messages", "bytes"):
        assert getattr(got, field) == pytest.approx(sum(w * getattr(x, field) for w, x in each))
    assert got.teps == pytest.approx(prof.m / got.seconds)
    # every candidate of predict_all is priced so, fastest first
    preds = choose.predict_all(prof, machine)
    assert [p.seconds for p in preds] == sorted(p.seconds for p in preds)
    mine = next(p for p in preds if p.label == got.label)
    assert mine.seconds == pytest.approx(got.seconds)


def test_profiles_of_real_roots_have_no_draws():
    # a sampled profile averages real searches, one from a given root is that root's, and levels the
    # user gives are priced as given: each is priced as it is
    assert graph.generated("kronecker", 12).root_draws() == []
    assert graph.generated("kronecker", 16, root_degree=6).root_draws() == []
    prof = graph.generated("kronecker", 16)
    prof.table = None
    assert prof.root_draws() == []
    machine = network.assumed(2, 2, 1, 5e-5, 1.25e6)
    lay = registry.get("1d", "alltoall")
    assert choose.expected(lay, prof, machine, {}).seconds == choose.predict(lay, prof, machine, {}).seconds
