"""The load-imbalance term (``planner.balance``): the busiest rank's edges, by hand and against searches."""
import math

import numpy as np
import pytest

from breadth import Graph
from breadth.distributed import registry
from breadth.distributed.planner import balance, choose, degrees, network, profile_fit
from breadth.distributed.planner.graph import Level, Profile, biased_by_depth


def test_expected_maximum_of_normals():
    assert balance.max_normal(1) == 0.0
    assert balance.max_normal(2) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-6)
    assert balance.max_normal(3) == pytest.approx(3 / (2 * math.sqrt(math.pi)), rel=1e-6)
    assert balance.max_normal(4) == pytest.approx(1.029375, rel=1e-5)
    # many ranks: below sqrt(2 ln P), and growing with P
    assert 4.0 < balance.max_normal(115600) < math.sqrt(2 * math.log(115600))


def test_busiest_rank_by_hand():
    # 100 edges from pieces of size-biased mean 10 on 2 ranks: variance 100 x 10 x (1 - 1/2) / 2 = 250
    assert balance.busiest(100.0, 10.0, 2) == pytest.approx(50 + math.sqrt(250) / math.sqrt(math.pi))
    # on 4 ranks, each piece split over a group of 2: 100 x 10 x (1 - 2/4) / (2 x 4)
    assert balance.busiest(100.0, 10.0, 4, spread=2) == pytest.approx(25 + balance.max_normal(4) * math.sqrt(62.5))
    assert balance.busiest(100.0, 10.0, 1) == 100.0                  # one rank does it all
    assert balance.busiest(100.0, 10.0, 4, spread=4) == 25.0         # every piece on every rank: even
    assert balance.busiest(0.0, 10.0, 4) == 0.0
    assert balance.busiest(10.0, 1000.0, 4) == 10.0                  # never more than the whole level


def test_level_degrees_and_fallbacks():
    td = Level("top-down", 4, 40, 30, 100, biased=25.0)
    assert balance.frontier_degree(td) == 25.0
    assert balance.frontier_degree(Level("top-down", 4, 40, 30, 100)) == 11.0      # mean degree 10, + 1
    bu = Level("bottom-up", 30, 600, 50, 200)
    assert balance.scan_length(bu) == 4.0                                           # 3 arcs a vertex, + 1
    got = balance.level_edges(0.0, 600.0, bu, 4, lambda d: 2 if d == "bottom-up" else 1)
    assert got == (0.0, pytest.approx(balance.busiest(600.0, 4.0, 4, 2)))


def test_size_biased_degree_of_a_sampled_graph_by_hand():
    # a star with centre 0 and leaves 1..4, and an edge 4-5: from 0, depth 0 holds degree 4 (16 / 4),
    # depth 1 degrees 1, 1, 1, 2 (7 / 5), depth 2 degree 1
    g = Graph.from_edges(np.array([0, 0, 0, 0, 4]), np.array([1, 2, 3, 4, 5]), 6, directed=False)
    assert biased_by_depth(g, [0]).tolist() == pytest.approx([4.0, 7 / 5, 1.0])


def test_expected_levels_of_a_uniform_graph_are_poisson():
    table = profile_fit.expected(degrees.uniform(12, 8))
    # one class of Poisson(16) degrees: every level after the root has size-biased degree 16 + 1
    assert table.biased[1:].tolist() == pytest.approx([17.0] * (table.biased.size - 1))


def test_a_skewed_level_costs_its_busiest_rank():
    m = network.Machine((0, 1), 8, {"alltoall": 1e-6}, {"alltoall": 1e-4}, 1e9, 1e6, threads=1)
    m.rate_td = m.rate_bu = 1e8
    lay = registry.get("1d", "alltoall")
    even = Profile(1024.0, 8192.0, [Level("top-down", 10, 1000, 100, 1014, biased=1.0)])
    hub = Profile(1024.0, 8192.0, [Level("top-down", 10, 1000, 100, 1014, biased=900.0)])
    a, b = (choose.predict(lay, p, m, {}) for p in (even, hub))
    # the same edges and traffic; the hub's level waits for the rank that holds it
    extra = (balance.busiest(1000, 900, 2) - balance.busiest(1000, 1, 2)) / 1e8
    assert b.compute_seconds - a.compute_seconds == pytest.approx(extra)
    assert b.comm_seconds == pytest.approx(a.comm_seconds)
