"""The 2D bitmap scan's bottom-up edges (``two_d.scan_cost.level_edges``,
``DegreeModel.split_scans``) and the vertices a rank sweeps (``scan_cost.swept``), against
hand-computed cases and direct sums over the degree distribution."""
import math

import numpy as np
import pytest
from scipy.stats import poisson

from breadth.distributed.planner import degrees, graph
from breadth.distributed.planner.graph import Level, Profile
from breadth.distributed.registry import get
from breadth.distributed.two_d import scan_cost


def _direct(lam, p, pieces):
    """One class, every vertex unvisited: a vertex of degree D cut into ``pieces`` parts scans each
    part to its own first frontier neighbour, summed degree by degree."""
    k = np.arange(0, 400)
    return float(sum(q * pieces * (1 - (1 - p) ** (kk / pieces)) / p for kk, q in zip(k, poisson.pmf(k, lam))))


@pytest.mark.parametrize("lam,p", [(32.0, 0.2), (8.0, 0.05), (40.0, 0.01)])
@pytest.mark.parametrize("pieces", [1, 2, 4])
def test_split_scans_match_the_direct_sums_over_degrees(lam, p, pieces):
    model = degrees.DegreeModel(1000, 500 * lam, [1.0], [lam], [[1.0]], "one class")
    one = _direct(lam, p, 1)
    # every vertex unvisited (share 1) leaves y = 0; one scan per vertex fixes p
    assert model.split_scans(1.0, one, pieces) == pytest.approx(_direct(lam, p, pieces), rel=1e-4)


def test_a_vertex_sure_to_find_a_parent_costs_pieces_times_one_scan():
    # p = 1: every open arc leads into the frontier; one scan examines 1 edge, C pieces examine C
    # (a vertex of degree 0 examines none: Poisson(40) leaves e^-40 of them)
    model = degrees.DegreeModel(1000, 20000, [1.0], [40.0], [[1.0]], "one class")
    one = 1.0 - math.exp(-40.0)
    assert model.split_scans(1.0, one, 1) == pytest.approx(one, rel=1e-6)
    assert model.split_scans(1.0, one, 4) == pytest.approx(4 * one, rel=1e-3)


def test_with_no_frontier_neighbour_the_pieces_cost_what_one_scan_does():
    # p -> 0: every vertex scans all its arcs, cut or not
    model = degrees.DegreeModel(1000, 16000, [1.0], [32.0], [[1.0]], "one class")
    one = 32.0 * (1 - 1e-9)
    assert model.split_scans(1.0, one, 8) == pytest.approx(one, rel=1e-4)


def test_the_bottom_up_classes_solve_gives_back_its_inputs():
    model = degrees.kronecker(14)
    a, mu, _, _ = model.bottom_up_classes(0.4, 1.0)
    # one scan per vertex examines between one edge per vertex with an arc (p = 1) and every open
    # arc (p -> 0)
    want = 0.5 * (float(a @ -np.expm1(-mu)) + float(a @ mu))
    a, mu, p, _ = model.bottom_up_classes(0.4, want)
    assert float(a.sum()) == pytest.approx(0.4, rel=1e-6)
    assert 0 < p < 1
    assert float(a @ -np.expm1(-mu * p)) / p == pytest.approx(want, rel=1e-6)


def test_level_edges_on_one_column_is_the_levels_own_count():
    prof = graph.generated("kronecker", 14)
    for lv in prof.levels:
        td, bu = scan_cost.level_edges(prof, lv, 2, {"grid": "2x1"})
        assert td + bu == pytest.approx(lv.examined)


def test_two_columns_examine_more_than_one_scan_and_at_most_twice():
    prof = graph.generated("kronecker", 16)
    bu = [lv for lv in prof.levels if lv.direction == "bottom-up"]
    assert bu
    for lv in bu:
        got = scan_cost.level_edges(prof, lv, 2, {"grid": "1x2"})[1]
        assert lv.examined < got <= 2 * lv.examined


def test_uniform_bottom_up_level_finding_nearly_all_doubles_on_two_columns():
    # the level finds almost every vertex left with a few scans each: each of the two ranks of the row
    # scans its half of the arcs to its own first hit, about twice one rank's edges
    prof = graph.generated("uniform", 16)
    lv = max((lv for lv in prof.levels if lv.direction == "bottom-up"), key=lambda lv: lv.examined)
    got = scan_cost.level_edges(prof, lv, 2, {"grid": "1x2"})[1]
    assert 1.8 * lv.examined < got <= 2 * lv.examined


def test_no_degree_model_leaves_the_levels_count():
    lv = Level("bottom-up", 5000, 20000, 4000, 30000)
    prof = Profile(65536, 16 * 65536, [lv], source="hand")
    assert scan_cost.level_edges(prof, lv, 2, {"grid": "1x2"}) == (0.0, 20000)


def test_a_bottom_up_level_sweeps_the_row_range_on_every_rank_of_the_row():
    assert scan_cost.swept(None, Level("bottom-up", 1, 1, 1, 1), 8, {"grid": "2x4"}) == pytest.approx(1 / 2)
    assert scan_cost.swept(None, Level("top-down", 1, 1, 1, 1), 8, {"grid": "2x4"}) == pytest.approx(1 / 8)
    assert get("2d", "scan").cost.swept is scan_cost.swept
