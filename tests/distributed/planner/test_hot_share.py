"""Rates and engine costs by the graph's skew (``Machine.for_hot_share``, ``Profile.hot_share``),
against hand-computed cases and counts on generated graphs."""
import pytest

from breadth.distributed import registry
from breadth.distributed.planner import choose, graph, network, ops, overhead
from breadth.graph.generators import kronecker, uniform_random

KRON = {"1d/alltoall": overhead.EngineCost(level_fixed=1e-5, edge_td=1e-9).as_dict()}
UNIF = {"1d/alltoall": overhead.EngineCost(level_fixed=3e-5, edge_td=5e-9).as_dict()}


def _machine(uniform=None):
    return network.Machine((0, 0), 2, {k: 1e-6 for k in ops.KINDS}, {k: 1e-6 for k in ops.KINDS},
                           1e9, 1e9, 1e9, 1.2e9, 1, engine=dict(KRON),
                           uniform={"rate_td": 5e8, "rate_bu": 1.2e9, "engine": UNIF, "hot_uniform": 0.02,
                                    "hot_kronecker": 0.34} if uniform is None else uniform)


def test_a_graph_between_the_calibrations_is_priced_between_them():
    m = _machine()
    half = m.for_hot_share(0.18)                        # halfway: w = (0.18 - 0.02) / (0.34 - 0.02) = 0.5
    assert 1 / half.rate_td == pytest.approx(0.5 / 1e9 + 0.5 / 5e8)     # per-edge times averaged
    assert half.rate_bu == pytest.approx(1.2e9)
    assert half.engine["1d/alltoall"]["level_fixed"] == pytest.approx(2e-5)
    assert half.engine["1d/alltoall"]["edge_td"] == pytest.approx(3e-9)
    assert m.rate_td == 1e9 and m.engine == KRON                  # the machine itself is left as it was


def test_shares_beyond_the_calibrations_take_the_nearer_one():
    m = _machine()
    assert m.for_hot_share(0.5) is m                                # more skewed than the Kronecker graph
    low = m.for_hot_share(0.0)
    assert low.rate_td == pytest.approx(5e8) and low.engine["1d/alltoall"] == pytest.approx(UNIF["1d/alltoall"])
    assert m.for_hot_share(None) is m
    bare = _machine(uniform={})
    assert bare.for_hot_share(0.0) is bare                          # no uniform calibration: unchanged


def test_hot_share_of_the_degree_model_matches_the_generated_graphs():
    for kind, gen in (("kronecker", kronecker), ("uniform", uniform_random)):
        got = graph.generated(kind, 14, 16).hot_share()
        assert got == pytest.approx(graph.hot_share_of(gen(14, 16, 1)), abs=0.01)
    assert graph.generated("kronecker", 14, 16).hot_share() > 10 * graph.generated("uniform", 14, 16).hot_share()


def test_a_uniform_graph_is_priced_at_the_uniform_calibration():
    lay = registry.get("1d", "alltoall")
    prof = graph.generated("uniform", 14, 16)
    with_both = choose.predict(lay, prof, _machine(), {})
    kron_only = choose.predict(lay, prof, _machine(uniform={}), {})
    assert with_both.compute_seconds > 1.5 * kron_only.compute_seconds       # half the top-down rate
    kprof = graph.generated("kronecker", 16, 16)
    assert choose.predict(lay, kprof, _machine(), {}).seconds == pytest.approx(
        choose.predict(lay, kprof, _machine(uniform={}), {}).seconds)
