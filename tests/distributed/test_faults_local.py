"""Faults on one host (no namespaces needed): a stopped rank ends the job by the stall watchdog with one
line; a Graph500 checkpoint under --ranks refuses a mismatch with one error line on every rank's behalf."""
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from mpi_helpers import ROOT, mpi_env, run_cli

pytestmark = pytest.mark.mpi


def _launch_and_reach_search_3(tmp_path, *extra):
    """A 3-rank graph500 under --ranks, once rank 0 is past its third search: (launcher, status dir)."""
    status = tmp_path / "status"
    status.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "breadth", "graph500", "--scale", "11", "--roots", "2000", "--quiet",
                             "--ranks", "3", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=mpi_env(BREADTH_STATUS_DIR=str(status), BREADTH_MPI_LOG=str(tmp_path)))
    deadline = time.monotonic() + 180
    while True:
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the job ended early: {err[-3000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            proc.communicate()
            pytest.fail("the ranks never reached their third search")
        try:
            ranks = [json.loads((status / f"rank{r}.json").read_text()) for r in range(3)]
        except (OSError, ValueError):
            ranks = None
        m = re.match(r"(?:after )?search (\d+)", ranks[0].get("where", "")) if ranks else None
        if m and int(m.group(1)) >= 3:
            return proc, [int(r["pid"]) for r in ranks]
        time.sleep(0.05)


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _cleanup(proc, pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


def test_stopped_rank_ends_the_job_by_the_watchdog(warm_kernels, tmp_path):
    out = tmp_path / "out.json"
    proc, pids = _launch_and_reach_search_3(tmp_path, "--stall-timeout", "4", "--json", str(out))
    try:
        os.kill(pids[1], signal.SIGSTOP)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=90)
        seconds = time.monotonic() - t0
        assert proc.returncode == 1, err[-3000:]
        assert seconds < 4 + 20, seconds
        lines = [ln for ln in err.splitlines() if ln.startswith("breadth")]
        assert len(lines) == 1 and " stalled in " in lines[0] and "Open MPI's messages: " in lines[0], err[-3000:]
        assert "(bound 4 s, --stall-timeout)" in lines[0], lines[0]      # the bound given, under --partition auto
        assert not out.exists() and not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        assert all(_gone(p) for p in pids), "a rank outlived the job"    # the stopped one included, not resumed
    finally:
        _cleanup(proc, pids)


def test_the_launcher_ends_a_stopped_rank_that_mpiexec_left_behind(warm_kernels, tmp_path):
    """mpiexec killed while a rank is stopped: that rank cannot end itself; the launcher kills it."""
    proc, pids = _launch_and_reach_search_3(tmp_path)
    try:
        os.kill(pids[1], signal.SIGSTOP)
        mpiexec = [int(c) for c in open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()]
        assert mpiexec, "the launcher has no mpiexec child"
        for pid in mpiexec:
            os.kill(pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode != 0, err[-3000:]
        assert all(_gone(p) for p in pids), "a rank outlived its launcher"
        log = [n for n in os.listdir(tmp_path) if n.startswith("breadth-mpiexec-")]
        assert log and "the launcher killed them" in (tmp_path / log[0]).read_text(), err[-3000:]
    finally:
        _cleanup(proc, pids)


def test_checkpoint_refusals_under_ranks(warm_kernels, tmp_path):
    ckpt = str(tmp_path / "ckpt")
    base = ["graph500", "--scale", "9", "--roots", "4", "--quiet", "--ranks", "2", "--checkpoint", ckpt]
    first = run_cli(base, timeout=180)
    assert first.returncode == 0, first.stderr[-3000:]
    again = run_cli(base, timeout=180)
    errors = [ln for ln in again.stderr.splitlines() if "error:" in ln]
    assert again.returncode == 2 and len(errors) == 1 and "already holds a run" in errors[0], again.stderr
    other = run_cli(base[:4] + ["5"] + base[5:] + ["--resume"], timeout=180)
    errors = [ln for ln in other.stderr.splitlines() if "error:" in ln]
    assert other.returncode == 2 and len(errors) == 1 and "roots 4 there, 5 here" in errors[0], other.stderr
    resumed = run_cli(base + ["--resume"], timeout=180)
    assert resumed.returncode == 0 and "4 of 4 searches from the checkpoint" in resumed.stdout, resumed.stderr
