"""bench/gpu_check.sh: the one-shot GPU check runs end to end in numba-cuda's simulator (--sim).

The run on a real GPU happens when a session is lent a GPU machine (docs/contributing/gpu-check.md);
here the same script, phases, report and JSON are exercised on tiny graphs so that it cannot
rot between loans. Also: without a GPU and without the simulator it stops at once and says so,
and the per-test limit fails a stuck test and lets the next one run.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "gpu_check.sh"
sys.path.insert(0, str(ROOT / "bench"))
import gpu_check  # noqa: E402

pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install 'breadth[cuda-sim]')")


def run(args, timeout, **env):
    """The check, with a temporary folder of its own: its scratch files must be gone when it ends."""
    scratch = tempfile.mkdtemp(prefix="gpu_check_tmp_")
    full = dict(os.environ, PYTHON=sys.executable, TMPDIR=scratch, **env)
    full.pop("OUT", None)
    try:
        done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=full, timeout=timeout)
        left = [n for n in os.listdir(scratch) if n.startswith("gpu_check_scratch_")]
        assert not left, left
        return done
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_sim_runs_every_phase_and_writes_the_report(tmp_path):
    out = tmp_path / "out"
    # a generous budget: phases are capped by it, not stretched to it (about a minute on a quiet machine
    # with numba's cache warm, two or three when it is cold and the CPU kernels compile first)
    r = run(["--sim", "--budget", "600", "--out", str(out)], timeout=800)
    state = json.loads((out / "gpu_check.json").read_text())
    report = (out / "report.md").read_text()
    assert r.returncode == 0, report + r.stdout[-3000:] + r.stderr[-3000:]
    assert state["mode"] == "simulator" and state["exit_status"] == 0
    phases = state["phases"]
    assert list(phases) == ["env", "tests", "correctness", "bench", "graph500", "mpi"]
    assert all(p["status"] in ("passed", "skipped") for p in phases.values()), {k: p["status"] for k, p in phases.items()}
    env = [x for x in phases["env"]["records"] if x.get("kind") == "env"][0]
    assert env["gpu"] and env["simulated"] and env["packages"]["numba-cuda"]
    tests = phases["tests"]["tests"]
    assert len(tests) == 5 and {t["outcome"] for t in tests} == {"passed"}
    searches = [x for x in phases["correctness"]["records"] if x.get("kind") == "search"]
    assert {x["graph"] for x in searches} == {"kronecker:5", "path:40", "grid:5", "kronecker:5:directed"}
    assert {x["algorithm"] for x in searches} == {"td", "bu", "do"}
    assert all(x["depth_equal"] and x["validated"] for x in searches)
    assert [x["ok"] for x in phases["correctness"]["records"] if x.get("kind") == "multi_bfs"] == [True]
    graphs = [x for x in phases["bench"]["records"] if x.get("kind") == "graph"]
    assert [g["graph"] for g in graphs] == ["kronecker:5", "uniform:5"]
    for g in graphs:
        assert set(g["rows"]) == {"cpu do", "gpu td", "gpu bu", "gpu do", "gpu do device-results",
                                  "gpu do device-results, numba-cuda launches"} and g["upload_s"] >= 0
        assert g["rows"]["gpu do device-results, numba-cuda launches"]["launcher_speedup"] > 0
        assert all(row["depth_mismatches"] == 0 and row["gteps"] > 0 for k, row in g["rows"].items() if k != "cpu do")
    ibfs = [x for x in phases["bench"]["records"] if x.get("kind") == "ibfs"]
    assert len(ibfs) == 2 and all(x["multi_bfs_equal"] and x["speedup_vs_one_by_one"] > 0 for x in ibfs)
    launch = [x for x in phases["bench"]["records"] if x.get("kind") == "launch"][0]
    assert launch["launch_path"] == "numba (the simulator)" and launch["head_copy_pinned_us"] > 0
    assert launch["head_copy_kept_us"] > 0
    assert [x["numba_launched"] for x in phases["bench"]["records"] if x.get("kind") == "launcher"] == [{}]
    assert "through breadth's launcher" in report and "searches launched through: numba (the simulator)" in report
    assert "through breadth's kept copy call" in report
    g500 = [x for x in phases["graph500"]["records"] if x.get("kind") == "graph500"]
    assert [x["scale"] for x in g500] == [7] and g500[0]["ok"] and g500[0]["validated"]
    assert g500[0]["harmonic_mean_teps"] > 0 and set(g500[0]["directions"]) <= {"top-down", "bottom-up"}
    assert sum(d["levels"] for d in g500[0]["directions"].values()) >= 2 * 2      # 2 roots, >= 2 levels each
    if phases["mpi"]["status"] == "passed":
        bfs = [x for x in phases["mpi"]["records"] if x.get("kind") == "mpi_bfs"]
        assert bfs and bfs[0]["ok"] and bfs[0]["engine"] == "mpi-1d-butterfly-cuda"
    else:
        assert "MPI" in phases["mpi"]["records"][0]["reason"] or "mpi4py" in phases["mpi"]["records"][0]["reason"]
    for title in ("## Environment", "## GPU tests", "## Larger graphs against the CPU", "## Benchmark",
                  "## Graph500 on the GPU", "## Two MPI ranks on the GPU"):
        assert title in report
    assert "| kronecker:5 |" in report and "gpu do" in report
    assert f"exit 0; report: {out / 'report.md'}" in r.stdout


def test_without_a_gpu_it_says_so_and_stops(tmp_path):
    out = tmp_path / "out"
    r = run(["--out", str(out), "--budget", "120"], timeout=120, NUMBA_ENABLE_CUDASIM="0")
    state = json.loads((out / "gpu_check.json").read_text())
    if state["phases"]["env"]["status"] == "passed":
        pytest.skip("this machine has a GPU")
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-2000:]
    assert list(state["phases"]) == ["env"] and state["phases"]["env"]["status"] == "no gpu"
    assert "The GPU path cannot run here: InputError: device='cuda' needs an NVIDIA GPU" in (out / "report.md").read_text()
    assert state["elapsed_s"] < 60


def test_a_stuck_test_is_failed_at_its_limit_and_the_next_one_runs(tmp_path):
    tests = tmp_path / "test_stuck.py"
    tests.write_text("import time\n\ndef test_stuck():\n    time.sleep(60)\n\ndef test_next():\n    assert True\n")
    out = tmp_path / "out"
    r = run(["--sim", "--phases", "tests", "--tests", str(tests), "--test-timeout", "3", "--out", str(out)],
            timeout=300)
    assert r.returncode == 1, r.stdout[-2000:] + r.stderr[-2000:]
    res = json.loads((out / "gpu_check.json").read_text())["phases"]["tests"]
    outcomes = {t["test"].split("::")[-1]: t for t in res["tests"]}
    assert outcomes["test_stuck"]["outcome"] == "failed" and outcomes["test_next"]["outcome"] == "passed"
    assert "over the per-test limit of 3 s" in outcomes["test_stuck"]["message"]
    assert outcomes["test_stuck"]["seconds"] < 30


def test_phase_limits_keep_the_later_phases_shares():
    import time

    now = time.time()
    phases = list(gpu_check.PHASES)
    limits = {p: gpu_check.phase_limit(p, phases, now + 100, 100) for p in phases}
    assert limits["mpi"] == pytest.approx(100, abs=1)
    assert limits["env"] == pytest.approx(50, abs=1)                 # a cold numba cache: half the budget
    assert gpu_check.phase_limit("env", phases, now + 1000, 1000) == pytest.approx(gpu_check.ENV_MIN, abs=1)
    assert gpu_check.phase_limit("env", phases, now + 4000, 4000) == pytest.approx(4000 * gpu_check.SHARES["env"], abs=1)
    assert limits["tests"] == pytest.approx(100 * (1 - sum(gpu_check.SHARES[p] for p in phases[2:])), abs=1)
    assert gpu_check.phase_limit("tests", ["env", "tests"], now + 100, 100) == pytest.approx(100, abs=1)
    assert gpu_check.last_started_test("a.py::x PASSED\nb.py::y ") == "b.py::y"
    assert gpu_check.last_started_test("a.py::x PASSED [ 50%]") is None
    log = "t/a.py::x PASSED   [ 33%]\nt/a.py::y[2-bu] FAILED   [ 66%]\nnoise\nt/b.py::z "
    assert [(r["test"], r["outcome"]) for r in gpu_check.log_results(log)] == [("t/a.py::x", "passed"),
                                                                              ("t/a.py::y[2-bu]", "failed")]
    xdist = "[gw1] [ 50%] PASSED t/a.py::x \n[gw0] [100%] FAILED t/b.py::y[td] \n"
    assert [(r["test"], r["outcome"]) for r in gpu_check.log_results(xdist)] == [("t/a.py::x", "passed"),
                                                                                 ("t/b.py::y[td]", "failed")]
