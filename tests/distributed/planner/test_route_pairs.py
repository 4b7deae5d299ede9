"""The candidate pairs a layout routes to their owners (``Op.pairs``): priced at the measured cost of
packing and settling one (``EngineCost.route_pair``, ``owned.route_cost.self_route``), against
hand-computed cases."""
import numpy as np
import pytest

from breadth.distributed import registry
from breadth.distributed.owned.route_cost import self_route
from breadth.distributed.planner import choose, network, ops
from breadth.distributed.planner.graph import Level, Profile
from breadth.graph.generators import uniform_random_edges

COST = {"level_fixed": 1e-4, "level_vertex_td": 2e-9, "level_unvisited_bu": 5e-9, "search_fixed": 3e-4,
        "search_vertex": 1e-9}
PROF = Profile(4096.0, 65536.0, [Level("top-down", 1, 16, 20, 4095), Level("top-down", 20, 3000, 2000, 4075),
                                 Level("bottom-up", 2000, 9000, 1500, 2075), Level("top-down", 1500, 400, 50, 575)])


def _machine(P, engine, device="cpu"):
    # rate_td 1e8 edges/s: without a measured route cost a pair is two ids at that rate, 2e-8 s
    return network.Machine(tuple(0 for _ in range(P)), P, {k: 1e-6 for k in ops.KINDS},
                           {k: 1e-6 for k in ops.KINDS}, 1e9, 1e9, 1e8, 2e8, 1, engine=engine, device=device)


def test_engine_route_by_hand():
    m = _machine(2, {"1d/alltoall": {**COST, "route_pair": 3e-8}})
    assert m.engine_route("1d/alltoall", 1000.0) == pytest.approx(3e-5)
    assert m.engine_route("1d/alltoall", 0.0) == 0.0
    # not measured (an assumed machine, a GPU): two ids a pair at the top-down edge rate
    assert _machine(2, {"1d/alltoall": COST}).engine_route("1d/alltoall", 1000.0) == pytest.approx(2e-5)
    assert _machine(2, {}).engine_route("1d/alltoall", 1000.0) == pytest.approx(2e-5)
    gpu = _machine(2, {"1d/alltoall": {**COST, "route_pair": 3e-8}}, device="gpu")
    assert gpu.engine_route("1d/alltoall", 1000.0) == pytest.approx(2e-5)


@pytest.mark.parametrize("part, ex, params, P", [("1d", "alltoall", {}, 4), ("2d", "fold", {"grid": "2x2"}, 4),
                                                 ("delegates", "alltoall", {"threshold": 16}, 4)])
def test_routed_pairs_cost_their_measured_price(part, ex, params, P):
    lay = registry.get(part, ex)
    pairs = sum(op.pairs for lv in PROF.levels for op in lay.cost.level_ops(PROF, lv, P, params))
    assert pairs > 0
    key = f"{part}/{ex}"
    plain = choose.predict(lay, PROF, _machine(P, {key: COST}), params)
    priced = choose.predict(lay, PROF, _machine(P, {key: {**COST, "route_pair": 5e-8}}), params)
    # each pair at 5e-8 s instead of two ids at 1e8 ids/s; nothing else moves
    assert priced.seconds - plain.seconds == pytest.approx(pairs * (5e-8 - 2e-8))
    assert priced.comm_seconds == pytest.approx(plain.comm_seconds)


def test_butterfly_routes_no_pairs():
    lay = registry.get("1d", "butterfly")
    assert all(op.pairs == 0 for lv in PROF.levels for op in lay.cost.level_ops(PROF, lv, 4, {"fanout": 1}))
    assert not hasattr(lay.cost, "self_route")


def test_self_route_times_packing_and_settling():
    s = 14           # about 10,000 pairs against 2,600: the slope stands well above the timer's noise
    src, dst = uniform_random_edges(s, 16, 1, 0, 16 << s)
    per_pair = self_route(1 << s, src, dst)
    # a pack by owner and a random access to the owner's state: nanoseconds, not microseconds
    assert 1e-10 < per_pair < 1e-6
    assert self_route(4, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)) == 0.0
