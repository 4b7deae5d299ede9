"""The level profile at the target scale: the degree model's expected levels against searches of
generated graphs, the direction rules against hand-computed switches, and ``generated`` choosing
samples or the model by scale."""
import numpy as np
import pytest

from breadth.distributed.planner import degrees, graph, profile_fit
from breadth.graph.generators import kronecker, uniform_random


@pytest.fixture(scope="module")
def measured():
    out = {}
    for kind, make in (("kronecker", kronecker), ("uniform", uniform_random)):
        g = make(16, 16, 1)
        out[kind] = profile_fit.measure(g, graph.pick_roots(g, 8))
    return out


def test_uniform_levels_follow_the_branching_of_poisson_degrees():
    t = profile_fit.expected(degrees.uniform(20, 16))
    n = 2.0 ** 20
    f = t.frontier * n
    assert f[0] == pytest.approx(1.0)
    assert f[1] == pytest.approx(32.0, rel=1e-3)            # a root's degree: Poisson(2 x 16)
    assert f[2] == pytest.approx(32.0 * 32.0, rel=0.01)     # its neighbours' other edges, all new
    assert t.reached == pytest.approx(1.0, abs=1e-6)
    assert t.td.sum() == pytest.approx(1.0, rel=1e-6)


@pytest.mark.parametrize("kind", ["uniform", "kronecker"])
def test_expected_levels_match_searches(measured, kind):
    model = (degrees.kronecker if kind == "kronecker" else degrees.uniform)(16, 16)
    e, m = profile_fit.expected(model), measured[kind]
    assert e.reached == pytest.approx(m.reached, abs=0.01)
    # the peak level's frontier and the top-down edges of the two biggest levels
    assert e.frontier.max() == pytest.approx(m.frontier.max(), rel=0.1 if kind == "uniform" else 0.3)
    big = lambda t: np.sort(t.td)[-2:].sum()         # noqa: E731
    assert big(e) == pytest.approx(big(m), rel=0.05)
    # bottom-up edges of the level before the peak (the first big bottom-up level)
    assert e.bu[e.peak - 1] == pytest.approx(m.bu[m.peak - 1], rel=0.3 if kind == "uniform" else 1.0)


def test_kronecker_leaves_more_vertices_unreached_as_it_grows():
    got = [profile_fit.expected(degrees.kronecker(s, 16)).reached for s in (14, 20, 26, 35)]
    assert got == sorted(got, reverse=True)
    assert got[-1] < 0.4 < got[0]


def _table():
    # n = 1000 vertices, 2m = 16000 arcs (k = 8): frontier, its out-edges and bottom-up edges per level
    f = np.array([1, 10, 300, 500, 150, 2]) / 1000.0
    td = np.array([10, 500, 8000, 6000, 1400, 90]) / 16000.0
    bu = np.array([15000, 12000, 2000, 500, 40, 5]) / 16000.0
    return profile_fit.LevelTable(f, td, bu, 3, float(f.sum()))


def test_breadth_rule_is_beamers_with_its_bookkeeping():
    # alpha 15: level 2's 8000 > (16000 - 10 - 500) / 15; beta 18: 150 < 500 and 150 > 1000/18 stays,
    # 2 < 150 and 2 < 55.6 goes back
    dirs = [lv.direction for lv in profile_fit.directed(_table(), 1000.0, 8000.0, "breadth")]
    assert dirs == ["top-down", "top-down", "bottom-up", "bottom-up", "bottom-up", "top-down"]


def test_b2d_rule_switches_by_total_edges_and_n_over_14k():
    # m_f > m/10 = 800 (alpha 20 on the arcs): level 1's 500 stays top-down, level 2's 8000 goes;
    # back when n_f < n/(14 k) = 1000/112 = 8.9: level 5's frontier of 2
    levels = profile_fit.directed(_table(), 1000.0, 8000.0, "b2d")
    assert [lv.direction for lv in levels] == ["top-down", "top-down", "bottom-up", "bottom-up", "bottom-up",
                                              "top-down"]
    assert levels[2].examined == pytest.approx(2000.0)          # the bottom-up edges, not the frontier's
    assert levels[3].discovered == pytest.approx(150.0)
    assert levels[3].unvisited == pytest.approx(1000.0 - 811.0)        # the frontier of 500 is reached already


def test_top_down_rule_examines_every_frontier_edge():
    levels = profile_fit.directed(_table(), 1000.0, 8000.0, "top-down")
    assert {lv.direction for lv in levels} == {"top-down"}
    assert sum(lv.examined for lv in levels) == pytest.approx(16000.0)


def test_generated_samples_small_scales_and_models_large_ones():
    small = graph.generated("kronecker", 12)
    assert "sampled" in small.source and small.table is not None
    big = graph.generated("kronecker", 35)
    assert "expected levels" in big.source and "scale 35" in big.source
    assert big.levels == big.levels_for("breadth")
    b2d = big.levels_for("b2d")
    assert 3 <= sum(lv.direction == "bottom-up" for lv in b2d) <= 4        # B2D Sec. V: "s_b ... 3 or 4"
    td = big.levels_for("top-down")
    assert sum(lv.examined for lv in td) == pytest.approx(big.arcs, rel=1e-4)


def test_a_search_from_a_root_of_given_degree():
    t = profile_fit.expected(degrees.uniform(20, 16), root_degree=10)
    n = 2.0 ** 20
    assert t.frontier[1] * n == pytest.approx(10.0, rel=1e-3)         # the root's own edges
    assert t.frontier[2] * n == pytest.approx(10.0 * 32.0, rel=0.01)  # and their other edges
    assert t.td[0] * t.frontier.sum() > 0 and t.reached == pytest.approx(1.0, abs=1e-6)


def test_kronecker_first_levels_follow_the_roots_degree():
    # on a heavy-tailed graph the level after the root scans its neighbours' edges: the model's
    # count from a root of degree d against searches from the generated graph's roots of degree d
    g = kronecker(16, 16, 1)
    deg = np.diff(np.asarray(g.indptr)).astype(np.float64)
    ip, ix = np.asarray(g.indptr), np.asarray(g.indices)
    model = degrees.kronecker(16, 16)
    arcs = float(model.n * (model.weight @ model.lam))
    for d in (2, 6, 30):
        roots = np.flatnonzero(deg == d)
        second = np.mean([deg[ix[ip[r]:ip[r + 1]]].sum() for r in roots])
        t = profile_fit.expected(model, root_degree=d)
        assert t.td[1] * arcs == pytest.approx(second, rel=0.35)
    # the expectation over roots is the mean's, far above the median root's
    assert profile_fit.expected(model).td[1] > 3 * profile_fit.expected(model, root_degree=6).td[1]
