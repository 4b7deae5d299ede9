"""The engine's own cost (``planner.overhead``), the probe's memory bandwidth and latency window,
and their place in a prediction, against hand-computed cases."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from breadth.distributed import registry
from breadth.distributed.planner import calibration, choose, network, ops, overhead, probe
from breadth.distributed.planner.graph import Level, Profile

COST = {"level_fixed": 1e-4, "level_vertex_td": 2e-9, "level_unvisited_bu": 5e-9, "search_fixed": 3e-4,
        "search_vertex": 1e-9}


def _machine(P=2, cores=2, threads=1, engine=None, device="cpu"):
    return network.Machine(tuple(0 for _ in range(P)), cores, {k: 1e-6 for k in ops.KINDS},
                           {k: 1e-6 for k in ops.KINDS}, 1e9, 1e9, 1e8, 2e8, threads, engine=engine or {},
                           device=device)


def test_fit_levels_recovers_exact_coefficients():
    # seconds = 1e-4 + vertices * (2e-9 top-down, 5e-9 bottom-up) + edges / rate, rates 1e8 and 2e8
    rows = []
    for direction, per, rate in (("top-down", 2e-9, 1e8), ("bottom-up", 5e-9, 2e8)):
        for v, e in ((1000, 500), (4000, 100), (16000, 9000), (64000, 20)):
            rows.append((direction, v, e, 1e-4 + per * v + e / rate))
    got = overhead.fit_levels(rows, 1e8, 2e8)
    assert got == pytest.approx((1e-4, 2e-9, 5e-9, 0.0, 0.0, 0.0), abs=1e-12)
    # a layout's step slower per edge than the single-node kernels: 3 ns (top-down), 4 ns (bottom-up) more
    slow = [(d, v, e, s + e * (3e-9 if d == "top-down" else 4e-9)) for d, v, e, s in rows]
    assert overhead.fit_levels(slow, 1e8, 2e8) == pytest.approx((1e-4, 2e-9, 5e-9, 3e-9, 4e-9, 0.0), abs=1e-12)
    # and 7 ns per frontier vertex, in either direction
    front = [(d, v, e, s + 7e-9 * f, f) for (d, v, e, s), f in zip(slow, (3, 700, 50, 9000, 20, 4000, 800, 5))]
    assert overhead.fit_levels(front, 1e8, 2e8) == pytest.approx((1e-4, 2e-9, 5e-9, 3e-9, 4e-9, 7e-9), rel=1e-5)
    cost = overhead.EngineCost(1e-4, 2e-9, 5e-9, 3e-9, 4e-9)
    assert cost.level_seconds("bottom-up", 1000, 500) == pytest.approx(1e-4 + 5e-6 + 2e-6)
    m = _machine(engine={"1d/alltoall": cost.as_dict()})
    assert m.engine_level("1d/alltoall", "top-down", 1000, 500) == pytest.approx(1e-4 + 2e-6 + 1.5e-6)
    # a bottom-up level with a top-down pass beside it (the delegates' nn arcs): each at its own cost
    assert m.engine_level("1d/alltoall", "bottom-up", 1000, 500, 200) == pytest.approx(1e-4 + 5e-6 + 2e-6 + 0.6e-6)


def test_level_rows_count_the_vertices_a_bottom_up_level_sweeps():
    from types import SimpleNamespace as L
    levels = [L(level=0, direction="top-down", frontier=1, discovered=30, edges_examined=5, seconds=1e-5),
              L(level=1, direction="bottom-up", frontier=30, discovered=600, edges_examined=900, seconds=2e-4),
              L(level=2, direction="bottom-up", frontier=600, discovered=50, edges_examined=80, seconds=1e-4),
              L(level=3, direction="top-down", frontier=50, discovered=0, edges_examined=60, seconds=1e-5)]
    # 1024 vertices: 1023 not reached after the root, 993 before level 1, 393 before level 2
    assert overhead._level_rows(1024, levels) == [("top-down", 1024, 5, 1e-5, 1), ("bottom-up", 993.0, 900, 2e-4, 30),
                                                  ("bottom-up", 393.0, 80, 1e-4, 600), ("top-down", 1024, 60, 1e-5, 50)]


def test_fit_searches_and_the_nonnegative_rule():
    got = overhead.fit_searches([(1000, 3e-4 + 1e-6), (100000, 3e-4 + 1e-4)])
    assert got == pytest.approx((3e-4, 1e-9), rel=1e-6)
    # seconds falling with the vertices: the negative slope is dropped, the fixed part is the mean
    got = overhead.fit_searches([(1000, 4e-4), (100000, 2e-4)])
    assert got == pytest.approx((3e-4, 0.0), abs=1e-12)


def test_machine_engine_terms_by_hand():
    m = _machine(engine={"1d/alltoall": COST})
    assert m.engine_level("1d/alltoall", "top-down", 1000) == pytest.approx(1e-4 + 2e-6)
    assert m.engine_level("1d/alltoall", "bottom-up", 1000) == pytest.approx(1e-4 + 5e-6)
    assert m.engine_search("1d/alltoall", 1000) == pytest.approx(3e-4 + 1e-6)
    assert m.engine_level("2d/fold", "top-down", 1000) == 0.0 and m.engine_search("2d/fold", 1000) == 0.0
    # four ranks on two cores: each rank computes on half a core, its engine work takes twice as long
    crowded = _machine(P=4, cores=2, engine={"1d/alltoall": COST})
    assert crowded.engine_search("1d/alltoall", 1000) == pytest.approx(2 * (3e-4 + 1e-6))
    assert _machine(engine={"1d/alltoall": COST}, device="gpu").engine_level("1d/alltoall", "top-down", 10) == 0.0


def test_prediction_adds_the_engine_terms_per_level_and_per_search():
    prof = Profile(4096.0, 65536.0, [Level("top-down", 1, 16, 20, 4095), Level("bottom-up", 20, 3000, 2000, 2075),
                                     Level("top-down", 2000, 500, 40, 75)])
    lay = registry.get("1d", "alltoall")
    plain = choose.predict(lay, prof, _machine(), {})
    priced = choose.predict(lay, prof, _machine(engine={"1d/alltoall": COST}), {})
    v, u = 4096 / 2, 2075 / 2          # a rank's vertices; its vertices not reached before the bottom-up level
    extra = 3 * 1e-4 + 2 * 2e-9 * v + 5e-9 * u + 3e-4 + 1e-9 * v
    assert priced.seconds - plain.seconds == pytest.approx(extra)
    assert priced.comm_seconds == pytest.approx(plain.comm_seconds)
    assert [a["compute"] - b["compute"] for a, b in zip(priced.levels, plain.levels)] == pytest.approx(
        [1e-4 + 2e-9 * v, 1e-4 + 5e-9 * u, 1e-4 + 2e-9 * v])


def test_butterfly_rounds_add_their_own_work():
    # ButterFly on 8 ranks, f = 1: 3 rounds a level; each costs round_fixed beside the level's own cost
    prof = Profile(4096.0, 65536.0, [Level("top-down", 1, 16, 20, 4095), Level("bottom-up", 20, 3000, 2000, 2075)])
    lay = registry.get("1d", "butterfly")
    cost = {**COST, "round_fixed": 1e-5}
    m = lambda c: _machine(P=8, cores=8, engine={"1d/butterfly": c})   # noqa: E731
    plain = choose.predict(lay, prof, m(COST), {"fanout": 1})
    priced = choose.predict(lay, prof, m(cost), {"fanout": 1})
    assert priced.seconds - plain.seconds == pytest.approx(2 * 3 * 1e-5)
    assert m(cost).engine_rounds("1d/butterfly", 3) == pytest.approx(3e-5)
    assert m(COST).engine_rounds("1d/butterfly", 3) == 0.0 and m(cost).engine_rounds("1d/butterfly", 0) == 0.0


def test_butterflys_ranks_each_handle_the_whole_frontier():
    # 1 ns per frontier vertex: ButterFly's ranks pay it on the whole frontier, 1D all-to-all's on their share
    prof = Profile(4096.0, 65536.0, [Level("top-down", 1, 16, 20, 4095), Level("bottom-up", 20, 3000, 2000, 2075)])
    front = sum(lv.frontier for lv in prof.levels)
    for (part, ex, params), per in ((("1d", "butterfly", {"fanout": 1}), front), (("1d", "alltoall", {}), front / 4)):
        lay = registry.get(part, ex)
        m = lambda c: _machine(P=4, cores=4, engine={f"{part}/{ex}": c})   # noqa: E731
        plain = choose.predict(lay, prof, m(COST), params)
        priced = choose.predict(lay, prof, m({**COST, "level_frontier": 1e-9}), params)
        assert priced.seconds - plain.seconds == pytest.approx(per * 1e-9)


def test_butterfly_recovery_is_priced_at_its_own_cost_per_arc():
    # the recovery's arcs (finish_edges) cost finish_edge each where it was measured, else the
    # bottom-up kernel's rate (2e8 edges/s here)
    prof = Profile(4096.0, 65536.0, [Level("top-down", 1, 16, 20, 4095), Level("top-down", 20, 3000, 2000, 4075),
                                     Level("bottom-up", 2000, 9000, 1500, 2075)])
    lay = registry.get("1d", "butterfly")
    arcs = lay.cost.finish_edges(prof, 2, {"fanout": 1})
    assert arcs > 0
    cost = {**COST, "finish_edge": 3e-9}
    m = lambda c: _machine(engine={"1d/butterfly": c})   # noqa: E731
    plain = choose.predict(lay, prof, m(COST), {"fanout": 1})
    priced = choose.predict(lay, prof, m(cost), {"fanout": 1})
    assert priced.seconds - plain.seconds == pytest.approx(arcs * 3e-9 - arcs / 2e8)
    assert m(cost).engine_finish("1d/butterfly", 1000.0) == pytest.approx(3e-6)
    assert m(COST).engine_finish("1d/butterfly", 1000.0) is None


SELF_FINISH = """
import numpy as np
from mpi4py import MPI
from breadth.distributed.engine import DistEngine
from breadth.distributed.one_d.butterfly_search import scanned_arcs, self_finish
from breadth.graph.generators import uniform_random_edges
# the path 0-3-1-2: from 0, vertex 3 is at depth 1, 1 at 2, 2 at 3
src, dst = np.array([0, 3, 1]), np.array([3, 1, 2])
eng = DistEngine(comm=MPI.COMM_SELF, partition="1d", exchange="butterfly", threads=1)
eng.build_from_edges(src, dst, 4, directed=False)
eng.search(0)
st = eng.state
print(scanned_arcs(st.lg.in_indptr, st.lg.in_indices, st.lvl, 4))
s = 13
src, dst = uniform_random_edges(s, 16, 1, 0, 16 << s)
eng = DistEngine(comm=MPI.COMM_SELF, partition="1d", exchange="butterfly", threads=1)
eng.build_from_edges(src, dst, 1 << s, directed=False)
print(self_finish(eng, int(np.flatnonzero(eng.nonisolated(np.arange(64)))[0])))
"""


def test_self_finish_times_the_recovery_per_arc():
    proc = subprocess.run([sys.executable, "-c", SELF_FINISH], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    assert proc.returncode == 0, proc.stderr
    arcs, per_arc = proc.stdout.split()[-2:]
    # 3 scans its in-arcs 0, 1 and stops at 0 (1 arc); 1 scans 2 (depth 3), then 3 (depth 1): 2 arcs;
    # 2 scans 1: 1 arc
    assert int(arcs) == 4
    assert 1e-11 < float(per_arc) < 1e-7


SELF_ROUND = """
from mpi4py import MPI
from breadth.distributed.one_d.butterfly_exchange import self_round
print(self_round(MPI.COMM_SELF, 64), self_round(MPI.COMM_SELF, 0))
"""


def test_self_round_times_a_round_against_itself():
    proc = subprocess.run([sys.executable, "-c", SELF_ROUND], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    assert proc.returncode == 0, proc.stderr
    full, empty = (float(x) for x in proc.stdout.split()[-2:])
    assert 0 < empty and 0 < full < 0.05


def test_an_engine_cache_without_a_newer_term_is_measured_again(tmp_path, monkeypatch):
    old = {k: v for k, v in COST.items()}               # as cached before round_fixed existed
    path = tmp_path / "planner.json"
    want = {overhead.key(lay.partition, lay.exchange) for lay in choose.modelled()}
    path.write_text(json.dumps({"rate_td": 1e9, "rate_bu": 1e9, "memory_bandwidth": 5e9,
                                "engine": {k: old for k in want}}))
    monkeypatch.setattr(calibration, "cache_path", lambda: str(path))
    fresh = {k: overhead.EngineCost(level_fixed=1.0).as_dict() for k in want}
    monkeypatch.setattr(overhead, "calibrate", lambda rates, bw, layouts, kind="kronecker": fresh)
    assert calibration.engine_costs({"rate_td": 1e9, "rate_bu": 1e9}) == fresh
    assert calibration.engine_costs({"rate_td": 1e9, "rate_bu": 1e9}) == fresh       # now cached whole
    assert json.loads(path.read_text())["engine"] == fresh
    # every term present, but measured another way (an older version): measured again
    got = json.loads(path.read_text())
    path.write_text(json.dumps({**got, "engine_version": overhead.VERSION - 1}))
    again = {k: overhead.EngineCost(level_fixed=2.0).as_dict() for k in want}
    monkeypatch.setattr(overhead, "calibrate", lambda rates, bw, layouts, kind="kronecker": again)
    assert calibration.engine_costs({"rate_td": 1e9, "rate_bu": 1e9}) == again


def test_delegates_calibrate_at_a_two_rank_jobs_threshold():
    from breadth.distributed.delegates import cost
    from breadth.distributed.delegates.partition import AUTO_DIVISOR

    # a star of 64 leaves and a path of 200: 265 vertices; degree 64 once, 2 on the path, 1 on the leaves
    src = np.concatenate([np.zeros(64, dtype=np.int64), np.arange(65, 264)])
    dst = np.concatenate([np.arange(1, 65), np.arange(66, 265)])
    # (AUTO_DIVISOR 1): one rank allows 265 delegates, so TH = 1 (199 of degree > 1); two ranks allow
    # 132, so TH = 2 (only the centre has degree > 2)
    assert AUTO_DIVISOR == 1
    assert cost.calibration_params(src, dst, 265) == {"threshold": 2}


def test_the_uniform_graphs_engine_cost_is_kept_beside_the_kronecker_one(tmp_path, monkeypatch):
    path = tmp_path / "planner.json"
    monkeypatch.setattr(calibration, "cache_path", lambda: str(path))
    want = {overhead.key(lay.partition, lay.exchange) for lay in choose.modelled()}
    seen = []

    def calibrate(rates, bw, layouts, kind="kronecker"):
        seen.append((kind, rates["rate_td"]))
        return {k: overhead.EngineCost(level_fixed=1.0 if kind == "kronecker" else 2.0).as_dict() for k in want}
    monkeypatch.setattr(overhead, "calibrate", calibrate)
    rates = {"rate_td": 1e9, "rate_bu": 1e9, "hot": 0.3, "uniform": {"rate_td": 5e8, "rate_bu": 1e9, "hot": 0.02}}
    kron = calibration.engine_costs(rates)
    unif = calibration.engine_costs(rates, kind="uniform")
    assert seen == [("kronecker", 1e9), ("uniform", 5e8)]        # each graph at its own edge rates
    assert {v["level_fixed"] for v in kron.values()} == {1.0} and {v["level_fixed"] for v in unif.values()} == {2.0}
    cached = json.loads(path.read_text())
    assert cached["engine"] == kron and cached["uniform"]["engine"] == unif and cached["uniform"]["rate_td"] == 5e8
    assert calibration.engine_costs(rates, kind="uniform") == unif and len(seen) == 2       # cached now
    part = calibration.uniform_part({**rates, "uniform": {**rates["uniform"], "engine": unif}})
    assert part == {"rate_td": 5e8, "rate_bu": 1e9, "engine": unif, "hot_uniform": 0.02, "hot_kronecker": 0.3}
    assert calibration.uniform_part({"rate_td": 1e9, "rate_bu": 1e9}) == {}          # a cache from before: Kronecker only


def test_latency_window_batches():
    # batches double from the first 8 operations while the window is short of SMALL_SECONDS
    assert probe.next_batch(8, 8e-6) == 8                     # 1 us each: 29,992 wanted, at most 8 more
    assert probe.next_batch(1024, 1.024e-3) == 1024
    # the last batch is what reaches the window at the mean so far
    assert probe.next_batch(200, 0.02) == 100                 # 100 us each, 10 ms to go
    assert probe.next_batch(8, 0.032) == 0                    # 8 x 4 ms spans the window already
    assert probe.next_batch(16000, 0.016) == 4000             # capped at MAX_SMALL_REPS in all
    assert probe.next_batch(20000, 0.02) == 0
    assert probe.next_batch(8, 0.0) == 0


def test_latency_window_is_bounded_when_operations_slow_down():
    # 1 us operations that slow to 1 ms after the first 64 (other processes took the cores): the
    # window ends within a batch as long as the window so far, not after 30,000 slow operations
    reps, total, n, batches = 0, 0.0, probe.SMALL_REPS, 0
    while n:
        each = 1e-6 if reps < 64 else 1e-3
        total += n * each
        reps += n
        batches += 1
        n = probe.next_batch(reps, total)
    assert total < 0.2 and reps < 200 and batches < 10


def test_memory_bandwidth_measures_a_clear():
    got = calibration.memory_bandwidth(8 << 20)
    assert 1e8 < got < 1e12                                   # bytes/s of a real fill, not a default


def test_cpu_share_of_a_busy_rank():
    assert probe.cpu_share(0.03, 0.06) == pytest.approx(0.5)        # half the window on a core
    assert probe.cpu_share(0.2, 0.1) == 1.0                         # more CPU than wall (other threads): one core
    assert probe.cpu_share(0.0, 0.1) == probe.MIN_SHARE
    assert probe.cpu_share(0.001, 0.01) == 1.0                      # shorter than the window: no reading


def test_cpu_share_scales_compute_and_engine_work():
    full, half = _machine(engine={"1d/alltoall": COST}), _machine(engine={"1d/alltoall": COST})
    half.cpu_share = 0.5
    assert half.core_share() == pytest.approx(0.5 * full.core_share())
    assert half.compute(1e6, 2e6) == pytest.approx(2 * full.compute(1e6, 2e6))
    assert half.engine_search("1d/alltoall", 1000) == pytest.approx(2 * full.engine_search("1d/alltoall", 1000))


def test_a_slower_core_than_the_calibrations_slows_every_local_term():
    prof = Profile(4096.0, 65536.0, [Level("top-down", 1, 16, 20, 4095), Level("bottom-up", 20, 3000, 2000, 2075)])
    lay = registry.get("1d", "alltoall")
    same, slow = _machine(engine={"1d/alltoall": COST}), _machine(engine={"1d/alltoall": COST})
    slow.speed = 0.5
    a, b = choose.predict(lay, prof, same, {}), choose.predict(lay, prof, slow, {})
    # every local term takes twice as long; clearing the state runs at the memory bandwidth the probe measured
    setup = getattr(lay.cost, "setup_bytes", None)
    clear = setup(prof, 2, {}) / same.memory_bandwidth if setup is not None else 0.0
    assert b.compute_seconds - clear == pytest.approx(2 * (a.compute_seconds - clear), rel=1e-9)
    assert b.comm_seconds == pytest.approx(a.comm_seconds)
    # the probe's factor: the calibration's reference step over the run's slowest, within [1/4, 4]
    assert calibration.run_speed(2e-3, 4e-3) == 0.5 and calibration.run_speed(None, 4e-3) == 1.0
    assert calibration.run_speed(2e-3, 1.0) == 0.25 and calibration.run_speed(2e-3, 1e-6) == 4.0
    t = calibration.reference_seconds(3)
    assert 0 < t < 0.5


def test_threads_speed_up_the_kernels_not_the_level_loop():
    # one rank with 4 threads on a 4-core host: the kernels' sweeps and edges run 4 times faster,
    # the Python level loop, its calls and the search's own setup run on one core as before
    cost = {**COST, "edge_td": 3e-9, "round_fixed": 2e-5}
    one = _machine(P=1, cores=4, threads=1, engine={"1d/alltoall": cost})
    four = _machine(P=1, cores=4, threads=4, engine={"1d/alltoall": cost})
    assert four.serial_share() == 1.0 and four.core_share() == 4.0
    kernels = 2e-9 * 1000 + 3e-9 * 500
    assert one.engine_level("1d/alltoall", "top-down", 1000, 500) == pytest.approx(1e-4 + kernels)
    assert four.engine_level("1d/alltoall", "top-down", 1000, 500) == pytest.approx(1e-4 + kernels / 4)
    assert four.engine_search("1d/alltoall", 1000) == pytest.approx(3e-4 + 1e-9 * 1000 / 4)
    assert four.engine_rounds("1d/alltoall", 3) == pytest.approx(6e-5)
    # four ranks on two cores: every part gets half a core
    crowded = _machine(P=4, cores=2, threads=1, engine={"1d/alltoall": cost})
    assert crowded.serial_share() == crowded.core_share() == 0.5
    assert crowded.engine_level("1d/alltoall", "top-down", 1000, 500) == pytest.approx(2 * (1e-4 + kernels))


def test_late_step_once_per_operation():
    m = _machine()
    op = ops.Op("x", "alltoall", (0, 1), 3, 0.0)
    base = m.op_seconds(op)
    m.late_step = 2e-3
    assert m.op_seconds(op) == pytest.approx(base + 2e-3)          # once, not per round
    assert m.op_seconds(ops.Op("y", "p2p", (0, 1), 0, 0.0)) == pytest.approx(0.0)
    m.device = "gpu"
    assert m.op_seconds(op) == pytest.approx(base)
    # a crowded host's constant wait and the measured one are the same wait: the larger counts
    crowded = _machine(P=4, cores=2)
    crowded.late_step = 1e-4
    plain = _machine(P=4, cores=2)
    assert crowded.op_seconds(op) == pytest.approx(plain.op_seconds(op))
    crowded.late_step = 1e-3
    assert crowded.op_seconds(op) == pytest.approx(plain.op_seconds(op) - plain.oversubscribed_step + 1e-3)


CALIBRATE = """
import json
from breadth.distributed import registry
from breadth.distributed.faults.watchdog import HEARTBEAT
from breadth.distributed.planner import overhead
overhead.CAL_SCALES = (8, 10)
before = {k: getattr(HEARTBEAT, k) for k in HEARTBEAT.__slots__}
got = overhead.calibrate({"rate_td": 1e9, "rate_bu": 1e9}, 5e9, [registry.get("1d", "alltoall")])
print(json.dumps({"got": got, "watchdog_alone": {k: getattr(HEARTBEAT, k) for k in HEARTBEAT.__slots__} == before}))
"""


def test_calibrate_runs_a_layout_alone_and_leaves_the_watchdog_alone():
    # in a child process: calibrate starts MPI (COMM_SELF), which never starts in the test process
    proc = subprocess.run([sys.executable, "-c", CALIBRATE], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    got = out["got"]
    assert list(got) == ["1d/alltoall"]
    cost = got["1d/alltoall"]
    assert set(cost) == set(overhead.EngineCost().as_dict()) and all(v >= 0 for v in cost.values())
    # a level and a search take time: the fit prices them above zero (which terms carry it, the
    # fixed or the per-vertex ones, depends on the timings: under load an intercept can fit to 0)
    engine = overhead.EngineCost(**cost)
    n = 2 ** 10
    assert engine.level_seconds("top-down", n) + engine.level_seconds("bottom-up", n) + engine.search_seconds(n) > 0
    assert out["watchdog_alone"]


def test_engine_cost_is_the_median_of_its_fits():
    # one fit thrown by a slowed level (edge_td 4x) does not move the kept term
    fits = [overhead.EngineCost(level_fixed=1e-5, edge_td=1e-9).as_dict(),
            overhead.EngineCost(level_fixed=2e-5, edge_td=4e-9).as_dict(),
            overhead.EngineCost(level_fixed=3e-5, edge_td=1.2e-9).as_dict()]
    got = overhead.median_cost(fits)
    assert got["edge_td"] == pytest.approx(1.2e-9) and got["level_fixed"] == pytest.approx(2e-5)
    assert set(got) == set(overhead.EngineCost().as_dict()) and got["search_fixed"] == 0.0
