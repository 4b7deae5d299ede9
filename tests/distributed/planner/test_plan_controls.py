"""``breadth plan``'s controls and the terms added for the papers' machines, against hand-computed
cases: fixed grid / fanout / threshold, every candidate in the JSON, --memory, wire bytes of an
Allreduce, GPU ranks, staged transfers, memory bandwidth, paper-code pricing."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from breadth.distributed import registry
from breadth.distributed.planner import choose, network, ops
from breadth.distributed.planner.graph import Level, Profile
from breadth.distributed.two_d import scan_cost


def _plan(*extra):
    out = subprocess.run([sys.executable, "-m", "breadth", "plan", "--scale", "16", "--ranks", "16", "--hosts", "4",
                          "--network", "1gbe", *extra], capture_output=True, text=True, timeout=600)
    return out


def _profile():
    return Profile(4096.0, 65536.0, [Level("top-down", 1, 40, 40, 4095), Level("bottom-up", 40, 9000, 3000, 4055)],
                   {2: (0.2, 0.8)})


def test_allreduce_wire_bytes_are_the_busiest_ranks_times_p():
    op = ops.Op("mask", "allreduce", range(8), 3, 2 * 1024.0, 0.0, 56, 56 * 1024.0)
    assert choose.wire_bytes(op, 8) == 8 * 2048          # not P (P - 1) copies of the 1 KiB mask
    other = ops.Op("x", "alltoall", range(8), 7, 700.0, 0.0, 56, 5600.0)
    assert choose.wire_bytes(other, 8) == 5600.0
    # recursive doubling: 3 steps of one message per rank on 8 ranks, not 7 per rank
    assert choose.wire_messages(op, 8) == 24 and choose.wire_messages(other, 8) == 56


def test_gpu_rank_staged_transfer_and_memory_bandwidth():
    m = network.assumed(8, 2, 4, 1e-5, 1e9, rate_td=1e9, rate_bu=2e9, memory_bandwidth=5e11)
    m.device, m.staging_bandwidth = "gpu", 4e10
    # a GPU rank computes at its device's rate, whatever the host's cores per rank (4 ranks, 4 cores)
    assert m.compute(1e9, 0.0) == pytest.approx(1.0)
    op = ops.Op("x", "p2p", (0, 5), 1, 4e6)
    direct = m.op_seconds(op) - 2 * 4e6 / 4e10
    m.staging_bandwidth = None
    assert m.op_seconds(op) == pytest.approx(direct)
    lay = registry.get("1d", "butterfly")
    p = choose.predict(lay, _profile(), m, {"fanout": 1})
    m.memory_bandwidth = 5e9
    q = choose.predict(lay, _profile(), m, {"fanout": 1})
    clear = lay.cost.setup_bytes(_profile(), 8, {"fanout": 1})
    assert q.compute_seconds - p.compute_seconds == pytest.approx(clear / 5e9 - clear / 5e11)


def test_paper_code_pricing():
    prof, m = _profile(), network.assumed(4, 1, 4, 1e-6, 1e9)
    bf = registry.get("1d", "butterfly")
    paper = choose.predict(bf, prof, m, {"fanout": 1, "code": "paper"})
    assert [lv["direction"] for lv in paper.levels] == ["top-down", "top-down"]
    # without a sampled top-down search: the frontier's share of the 2m arcs is examined
    assert prof.top_down_levels()[1].examined == pytest.approx(40 * 2 * 65536 / 4096)
    assert [o.name for o in scan_cost.after_ops(prof, 4, {"grid": "2x2", "code": "paper"})] == ["control"]
    assert len(scan_cost.after_ops(prof, 4, {"grid": "2x2"})) == 3


def test_fixed_parameters_replace_the_candidates():
    fold = registry.get("2d", "fold")
    assert choose.candidates(fold, 16, {"grid": "2x8"}) == [{"grid": "2x8"}]
    bf = registry.get("1d", "butterfly")
    assert choose.candidates(bf, 16, {"grid": "2x8", "fanout": 3}) == [{"fanout": 3}]


def test_plan_json_lists_every_candidate_with_levels():
    out = _plan("--json", "-")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    grids = {c["params"].get("grid") for c in d["candidates"] if c["partition"] == "2d"}
    assert {"2x8", "4x4", "8x2"} <= grids
    c = d["candidates"][0]
    assert c["levels"] and {"direction", "compute", "comm", "messages", "bytes", "words"} <= set(c["levels"][0])
    assert c["words"] == pytest.approx(c["bytes"] / 8)
    assert d["graph"]["nn_share"] > 0 and d["graph"]["delegates"] > 0


def test_plan_fixes_grid_and_threshold_and_marks_memory():
    d = json.loads(_plan("--grid", "2x8", "--threshold", "64", "--nn-share", "0.05", "--json", "-").stdout)
    assert {c["params"]["grid"] for c in d["candidates"] if c["partition"] == "2d"} == {"2x8"}
    assert {c["params"]["threshold"] for c in d["candidates"] if c["partition"] == "delegates"} == {64}
    assert d["graph"]["nn_share"] == 0.05 and d["graph"]["threshold"] == 64
    small = json.loads(_plan("--memory", "0.001", "--json", "-").stdout)
    assert small["recommendation"] is None and not any(c["fits"] for c in small["candidates"])
    text = _plan("--memory", "0.001")
    assert text.returncode == 0 and "does not fit --memory" in text.stdout


def test_plan_bad_controls_are_one_line():
    bad = _plan("--grid", "3x3")
    assert bad.returncode == 2 and "9 ranks" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert _plan("--staging-bandwidth", "1e9").returncode == 2
    assert _plan("--nn-share", "2").returncode == 2


def test_plan_levels_file_replaces_the_profile(tmp_path):
    levels = [{"direction": "top-down", "frontier": 1, "examined": 30, "discovered": 30, "unvisited": 65535,
               "biased": 30},
              {"direction": "bottom-up", "frontier": 30, "examined": 9e5, "discovered": 6e4, "unvisited": 65505,
               "biased": None}]
    f = tmp_path / "levels.json"
    f.write_text(json.dumps(levels))
    d = json.loads(_plan("--levels", str(f), "--json", "-").stdout)
    assert d["graph"]["levels"] == [{k: float(v) if k != "direction" and v is not None else v for k, v in x.items()}
                                    for x in levels]
    assert all(len(c["levels"]) == 2 for c in d["candidates"] if c["exchange"] != "butterfly")
    f.write_text('[{"direction": "sideways"}]')
    bad = _plan("--levels", str(f))
    assert bad.returncode == 2 and "--levels" in bad.stderr


def test_levels_without_a_table_are_taken_as_given_by_every_rule():
    prof = _profile()                    # the user's own levels (``plan --levels``): no level table
    assert prof.table is None
    assert prof.levels_for("b2d") == prof.levels
    fold = registry.get("2d", "fold")
    m = network.assumed(4, 1, 4, 1e-6, 1e9)
    paper = choose.predict(fold, prof, m, {"grid": "2x2", "code": "paper"})
    assert [lv["direction"] for lv in paper.levels] == [lv.direction for lv in prof.levels]


def test_rates_from_memory_price_the_butterfly_row_as_the_papers_bench():
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    import plan_papers

    row = next(r for r in plan_papers.rows() if r.config.startswith("GAP_kron"))
    out = subprocess.run([sys.executable, "-m", "breadth", "plan", "--scale", "27", "--ranks", "16", "--hosts", "16",
                          "--gpus", "--latency", "5e-6", "--bandwidth", "150e9", "--memory-bandwidth", "900e9",
                          "--rates-from-memory", "--cache-bytes", str(6 * 2 ** 20), "--fanout", "4", "--paper-code",
                          "--json", "-"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    bf = next(c for c in got["candidates"] if c["label"] == "1d butterfly f=4 td")
    assert bf["seconds"] == pytest.approx(plan_papers.price(row)["predicted_s"], rel=1e-6)


@pytest.mark.parametrize("extra,words", [(["--gpus"], "with --gpus give"),
                                         (["--rates-from-memory"], "needs --memory-bandwidth"),
                                         (["--rates-from-memory", "--memory-bandwidth", "1e11", "--rate-td", "1e9"],
                                          "not both"),
                                         (["--torus", "4x4"], "go together")])
def test_rate_and_torus_flags_are_checked(extra, words):
    out = subprocess.run([sys.executable, "-m", "breadth", "plan", "--scale", "16", "--ranks", "4", *extra],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and words in out.stderr, out.stderr


def test_sweep_ranks_are_powers_of_two_up_to_the_job():
    from breadth.cli.plan import SWEEP_POINTS, sweep_ranks

    assert sweep_ranks(16) == [2, 4, 8, 16] and sweep_ranks(3) == [2, 3] and sweep_ranks(1) == [1]
    big = sweep_ranks(115600)
    assert big[0] == 2 and big[-1] == 115600 and len(big) <= SWEEP_POINTS
    assert all(p & (p - 1) == 0 for p in big[:-1]) and big == sorted(set(big))


def test_plan_plot_prices_fewer_ranks_and_draws_them(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "plan.png"
    out = _plan("--grid", "4x4", "--plot", str(png), "--json", "-")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert [p["ranks"] for p in d["sweep"]] == [2, 4, 8, 16]
    assert [p["hosts"] for p in d["sweep"]] == [1, 1, 2, 4]          # 4 ranks per host, as the job
    # the job's own point is its recommendation's pricing, and --grid holds there only
    last = {x["label"]: x["seconds"] for x in d["sweep"][-1]["layouts"]}
    assert last[d["recommendation"]] == pytest.approx(d["layouts"][0]["seconds"])
    assert "2d fold 4x4" in last
    assert any(x["label"] == "2d fold 2x4" for x in d["sweep"][2]["layouts"])
    assert all({x["layout"] for x in p["layouts"]} == {x["layout"] for x in d["sweep"][0]["layouts"]}
               for p in d["sweep"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "plot written to" in out.stderr


def test_plan_plot_refuses_a_bad_file_before_any_work(tmp_path):
    bad = _plan("--plot", str(tmp_path / "plan.txt"))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and ".png, .svg or .pdf" in bad.stderr
    assert bad.stdout == "" and list(tmp_path.iterdir()) == []
