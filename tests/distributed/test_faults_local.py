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


def test_stopped_rank_ends_the_job_by_the_watchdog(warm_kernels, tmp_path):
    status = tmp_path / "status"
    status.mkdir()
    out = tmp_path / "out.json"
    proc = subprocess.Popen([sys.executable, "-m", "breadth", "graph500", "--scale", "11", "--roots", "2000", "--quiet",
                             "--ranks", "3", "--stall-timeout", "4", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=mpi_env(BREADTH_STATUS_DIR=str(status), BREADTH_MPI_LOG=str(tmp_path)))
    stopped = None
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the ranks never reached their third search"
            try:
                st = json.loads((status / "rank1.json").read_text())
                zero = json.loads((status / "rank0.json").read_text())
            except (OSError, ValueError):
                st = zero = None
            m = re.match(r"(?:after )?search (\d+)", (zero or {}).get("where", ""))
            if st and m and int(m.group(1)) >= 3:
                break
            time.sleep(0.05)
        stopped = int(st["pid"])
        os.kill(stopped, signal.SIGSTOP)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=90)
        seconds = time.monotonic() - t0
    finally:
        if stopped is not None:
            try:
                os.kill(stopped, signal.SIGCONT)
            except ProcessLookupError:
                pass
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, err[-3000:]
    assert seconds < 4 + 30, seconds
    lines = [ln for ln in err.splitlines() if ln.startswith("breadth")]
    assert len(lines) == 1 and " stalled in " in lines[0] and "Open MPI's messages: " in lines[0], err[-3000:]
    assert not out.exists() and not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    time.sleep(1)
    with pytest.raises(ProcessLookupError):      # the stopped rank did not outlive the job
        os.kill(stopped, 0)


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
