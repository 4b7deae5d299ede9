"""The planner's models against hand-computed cases, the papers' worked numbers, ``breadth plan``
and ``--partition auto`` end to end under mpiexec."""
import json
import math
import subprocess
import sys
from types import SimpleNamespace

import pytest

from breadth.distributed import registry
from breadth.distributed.one_d import alltoall_cost, butterfly_cost
from breadth.distributed.planner import balance, choose, network, words
from breadth.distributed.two_d import fold_cost, scan_cost
from breadth.distributed.planner.graph import Level, Profile
from breadth.distributed.planner.ops import Op


def test_b2d_section_v_break_even():
    # B2D Sec. V: with k = 16 and p_c = 128 the bottom-up approach needs s_b ~ 47.6 steps to send as much
    assert words.b2d_break_even_steps(16, 128) == pytest.approx(47.6, abs=0.05)
    assert words.b2d_ratio(16, 128, words.b2d_break_even_steps(16, 128)) == pytest.approx(1.0)


def test_butterfly_counts_and_the_mask_bytes():
    assert butterfly_cost.butterfly_messages(16, 1) == 64              # the ButterFly paper's 16 ranks
    assert butterfly_cost.butterfly_rounds(16, 1) == 4 and butterfly_cost.butterfly_rounds(9, 2) == 2
    assert words.pan_mask_bytes(65) == 16


def _profile():
    return Profile(1024.0, 8192.0, [Level("top-down", 1, 100, 100, 1023), Level("bottom-up", 100, 4000, 500, 923)])


def test_alltoall_ops_by_hand():
    prof = _profile()
    td, bu = prof.levels
    ops = alltoall_cost.level_ops(prof, td, 4, {})
    pairs = words.distinct(25, 1023) * 3 / 4
    assert ops[0].bytes == pytest.approx(8 * 3 + 8 * pairs) and ops[0].messages == 24 and ops[0].rounds == 6
    ops = alltoall_cost.level_ops(prof, bu, 4, {})
    assert ops[0].kind == "allgather" and ops[0].bytes == pytest.approx(3 * 1024 / 32) and ops[0].messages == 12


def test_alpha_beta_cost_by_hand():
    m = network.Machine((0, 0, 1, 1), 8, {"alltoall": 1e-6}, {"alltoall": 1e-4}, 1e9, 1e6, threads=1)
    op = Op("x", "alltoall", (0, 1, 2, 3), 3, 3000.0)
    # per rank: 1/3 of its bytes stay on the host, 2/3 leave over a link two ranks share
    assert m.op_seconds(op) == pytest.approx(3 * 1e-4 + 1000 / 1e9 + 2000 / (1e6 / 2))
    assert m.op_seconds(Op("y", "alltoall", (0, 1), 1, 1000.0)) == pytest.approx(1e-6 + 1000 / 1e9)


def test_a_links_burst_passes_the_first_bytes_of_a_level_at_once():
    m = network.Machine((0, 1), 8, {"alltoall": 1e-6, "p2p": 1e-6}, {"alltoall": 1e-4, "p2p": 1e-4}, 1e9, 1e6,
                        threads=1)
    op = Op("x", "p2p", (0, 1), 1, 3000.0)
    # one rank per host sends 3000 bytes across: with 1000 bytes of credit only 2000 wait for the rate
    assert m.op_seconds(op) == pytest.approx(1e-4 + 3000 / 1e6)
    assert m.op_seconds(op, credit=1000.0) == pytest.approx(1e-4 + 2000 / 1e6)
    assert m.op_seconds(op, credit=5000.0) == pytest.approx(1e-4)
    assert m.link_bytes(op) == 3000.0
    assert m.link_bytes(Op("y", "p2p", (0,), 1, 3000.0)) == 0.0      # stays on its host
    # the bucket refills at the link's rate (1e6 bytes/s) while the ranks compute, up to its size
    m.burst_bytes = 200.0
    assert m.refilled(1e-4) == pytest.approx(100.0) and m.refilled(1.0) == 200.0
    assert m.refilled(1e-4, start=150.0) == 200.0 and m.refilled(0.0, start=50.0) == 50.0
    # in a prediction the bucket holds what refilled during the search's setup (here only clearing
    # its state: no engine cost); each level's traffic draws on it, and it refills while the ranks
    # compute (the step, then the merge of what arrived)
    prof = _profile()
    lay = registry.get("1d", "butterfly")
    m.burst_bytes = 0.0
    plain = choose.predict(lay, prof, m, {"fanout": 1})
    m.burst_bytes = 200.0
    burst = choose.predict(lay, prof, m, {"fanout": 1})
    saved = [a["comm"] - b["comm"] for a, b in zip(plain.levels, burst.levels)]
    ops = [butterfly_cost.level_ops(prof, lv, 2, {"fanout": 1})[0] for lv in prof.levels]
    # no engine cost here: a step is the busiest rank's edges at 1e8 (top-down) or 2e8 (bottom-up)
    # edges/s, a merge its items at 1e8
    bucket, want = min(200.0, butterfly_cost.setup_bytes(prof, 2, {"fanout": 1}) / m.memory_bandwidth * 1e6), []
    for lv, op in zip(prof.levels, ops):
        td, bu = (lv.examined, 0.0) if lv.direction == "top-down" else (0.0, lv.examined)
        td, bu = balance.level_edges(td, bu, lv, 2, lambda direction: 1)
        bucket = min(200.0, bucket + (td / 1e8 + bu / 2e8) * 1e6)
        want.append(min(bucket, op.bytes) / 1e6)
        bucket = min(200.0, max(0.0, bucket - op.bytes) + op.items / 1e8 * 1e6)
    assert saved == pytest.approx(want)


def test_fold_messages_match_the_exchange_formula():
    prof = _profile()
    P, R, C = 6, 2, 3
    ops = fold_cost.level_ops(prof, prof.levels[1], P, {"grid": "2x3"})
    got = {o.name: o.messages for o in ops}
    assert got["expand"] == P * (R - 1) and got["fold"] == 2 * P * (C - 1) and got["rotate"] == P * (C - 1)
    ops = scan_cost.level_ops(prof, prof.levels[0], P, {"grid": "2x3"})
    assert {o.name: o.messages for o in ops}["scan"] == P * 2


def test_choice_follows_the_network():
    prof = _profile().scaled(64, "test")
    fast = choose.predict_all(prof, network.assumed(8, 1, 8, 1e-6, 1e10))
    slow = choose.predict_all(prof, network.assumed(8, 8, 8, 5e-3, 1e9))
    # many messages cost most when latency is high: ButterFly (fewest messages) wins there
    assert slow[0].exchange == "butterfly"
    assert fast[0].seconds < slow[0].seconds
    assert all(p.seconds > 0 and p.messages >= 0 for p in fast)


def test_butterfly_model_messages_equal_the_schedule():
    prof = _profile()
    for P, f in ((4, 1), (6, 1), (8, 3)):
        ops = butterfly_cost.level_ops(prof, prof.levels[0], P, {"fanout": f})
        assert sum(o.messages for o in ops) == pytest.approx(butterfly_cost.butterfly_messages(P, f))


def test_fold_sends_only_what_the_owner_did_not_find():
    # 500 of 923 unvisited found: exp(-lam) = 423/923 = 0.4583, lam = 0.7802; on 3 columns the
    # owner's block misses every frontier neighbour with probability exp(-lam/3) = 0.7710:
    # (0.7710 - 0.4583) / (1 - 0.4583) of the found ones are found by another rank
    lam = -math.log(1 - 500 / 923)
    away = (math.exp(-lam / 3) - math.exp(-lam)) / (1 - math.exp(-lam))
    assert away == pytest.approx(0.5772, abs=1e-4)
    assert fold_cost.found_away(500, 923, 3) == pytest.approx(away)
    assert fold_cost.found_away(1e-6, 1e6, 4) == pytest.approx(0.75)       # one neighbour each: (C-1)/C
    assert fold_cost.found_away(999, 1000, 2) == pytest.approx(1 / 1000 ** 0.5, rel=0.05)   # dense: exp(-lam/2)
    assert fold_cost.found_away(5, 10, 1) == 0.0
    prof = _profile()
    fold = {o.name: o for o in fold_cost.level_ops(prof, prof.levels[1], 6, {"grid": "2x3"})}["fold"]
    assert fold.bytes == pytest.approx(2 * 4 * 500 / 6 * away + 8 * 2)
    # with a degree model, its isolated vertices (never found) leave the unvisited: 923 - 300 = 623
    prof.degrees = SimpleNamespace(isolated=lambda: 300.0)
    fold = {o.name: o for o in fold_cost.level_ops(prof, prof.levels[1], 6, {"grid": "2x3"})}["fold"]
    assert fold.bytes == pytest.approx(2 * 4 * 500 / 6 * fold_cost.found_away(500, 623, 3) + 8 * 2)


def test_no_transpose_on_a_single_row_or_column():
    prof = _profile()
    for grid, want in (("1x4", False), ("4x1", False), ("2x2", True)):
        names = {o.name for o in fold_cost.level_ops(prof, prof.levels[1], 4, {"grid": grid})}
        assert ("transpose" in names) == want, grid


def test_butterfly_round_moves_the_busiest_ranks_messages():
    # P = 2, f = 2: the radix-3 network's one group holds ranks 0 and 1 only, so each rank sends
    # one message, as with f = 1; P = 4, f = 2: rank 1 hosts virtual rank 3 and has 3 partners in
    # round 0, then 1 (rank 0's partner 3 is hosted by rank 1) in round 1; P = 9, f = 2: f each
    assert butterfly_cost.busiest_partners(2, 2) == (1,) == butterfly_cost.busiest_partners(2, 1)
    assert butterfly_cost.busiest_partners(4, 2) == (3, 1)
    assert butterfly_cost.busiest_partners(9, 2) == (2, 2)
    prof = _profile()
    lv = prof.levels[0]
    one, two = (butterfly_cost.level_ops(prof, lv, 2, {"fanout": f})[0] for f in (1, 2))
    assert (one.bytes, one.items) == (two.bytes, two.items)
    r0 = butterfly_cost.level_ops(prof, lv, 4, {"fanout": 2})[0]
    msg = r0.volume / r0.messages                      # every message of round 0 carries the same queue
    assert r0.bytes == pytest.approx(3 * msg)


def test_butterfly_parent_recovery_by_hand(monkeypatch):
    # the first of k = 2 in-arcs lies in the frontier with p = 1/2 (position 1: 1/2, position 2:
    # 1/4, given one of them does: 3/4): (1/2 + 2/4) / (3/4) = 4/3
    assert butterfly_cost.first_hit(0.5, 2) == pytest.approx(4 / 3)
    assert butterfly_cost.first_hit(1.0, 8) == 1.0 and butterfly_cost.first_hit(0.0, 9) == 5.0
    assert butterfly_cost.first_hit(1e-6, 8) == pytest.approx(4.5, rel=1e-4)    # uniform over the 8
    # n = 100, 800 arcs (degree 8): a top-down level examines 80 (p = 0.1) and discovers 40; the
    # bottom-up level's owners record their parents. On 4 ranks 3/4 of the 40 were found by
    # another rank, a quarter of them on each rank: 40 * 3/4 / 4 vertices, each scanning
    # 1/0.1 - 8 * 0.9^8 / (1 - 0.9^8) arcs
    prof = Profile(100, 400, [Level("top-down", 1, 80, 40, 99), Level("bottom-up", 40, 300, 50, 59)])
    scan = 10 - 8 * 0.9 ** 8 / (1 - 0.9 ** 8)
    assert butterfly_cost.finish_edges(prof, 4, {"fanout": 1}) == pytest.approx(40 * 0.75 / 4 * scan)
    assert butterfly_cost.finish_edges(prof, 1, {"fanout": 1}) == 0.0
    assert butterfly_cost.finish_edges(prof, 4, {"fanout": 1, "code": "paper"}) == 0.0   # levels only
    m = network.Machine((0, 1, 2, 3), 1, {}, {}, 1e9, 1e9, rate_td=1e9, rate_bu=5e8, threads=1)
    lay = registry.get("1d", "butterfly")
    with_recovery = choose.predict(lay, prof, m, {"fanout": 1}).compute_seconds
    monkeypatch.setattr(butterfly_cost, "finish_edges", lambda prof, P, params: 0.0)
    without = choose.predict(lay, prof, m, {"fanout": 1}).compute_seconds
    assert with_recovery - without == pytest.approx(40 * 0.75 / 4 * scan / 5e8)     # at the bottom-up rate


def test_plan_cli_json_and_text(tmp_path):
    out = subprocess.run([sys.executable, "-m", "breadth", "plan", "--scale", "16", "--ranks", "16", "--hosts", "4",
                          "--network", "1gbe", "--json", "-"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["projection"] and d["recommendation"] == d["layouts"][0]["label"]
    assert {r["partition"] for r in d["layouts"]} == {"1d", "2d", "delegates"}
    assert all(r["memory_per_rank"] > 0 and r["teps"] > 0 for r in d["layouts"])
    bad = subprocess.run([sys.executable, "-m", "breadth", "plan", "--ranks", "4"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--scale or --graph" in bad.stderr
