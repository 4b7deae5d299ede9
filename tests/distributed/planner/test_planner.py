"""The planner's models against hand-computed cases, the papers' worked numbers, ``breadth plan``
and ``--partition auto`` end to end under mpiexec."""
import json
import math
import subprocess
import sys

import pytest

from breadth.distributed.one_d import alltoall_cost, butterfly_cost
from breadth.distributed.planner import choose, network, words
from breadth.distributed.two_d import fold_cost, scan_cost
from breadth.distributed.planner.graph import Level, Profile


def test_b2d_section_v_break_even():
    # B2D Sec. V: with k = 16 and p_c = 128 the bottom-up approach needs s_b ~ 47.6 steps to send as much
    assert words.b2d_break_even_steps(16, 128) == pytest.approx(47.6, abs=0.05)
    assert words.b2d_ratio(16, 128, words.b2d_break_even_steps(16, 128)) == pytest.approx(1.0)


def test_butterfly_and_scan_counts():
    assert butterfly_cost.butterfly_messages(16, 1) == 64              # the ButterFly paper's 16 ranks
    assert butterfly_cost.butterfly_rounds(16, 1) == 4 and butterfly_cost.butterfly_rounds(9, 2) == 2
    assert [words.scan_rounds(c) for c in (1, 2, 3, 4, 5, 8)] == [0, 1, 2, 2, 3, 3]
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
    op = network.Op("x", "alltoall", (0, 1, 2, 3), 3, 3000.0)
    # per rank: 1/3 of its bytes stay on the host, 2/3 leave over a link two ranks share
    assert m.op_seconds(op) == pytest.approx(3 * 1e-4 + 1000 / 1e9 + 2000 / (1e6 / 2))
    assert m.op_seconds(network.Op("y", "alltoall", (0, 1), 1, 1000.0)) == pytest.approx(1e-6 + 1000 / 1e9)


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
