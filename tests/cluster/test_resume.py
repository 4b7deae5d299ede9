"""A 64-search scale-16 Graph500 run across 3 hosts, killed at a random search and resumed from its
checkpoint, reports the same roots, nedge and validation as an uninterrupted run."""
import json
import os
import random
import signal
import sys

import pytest

from faultlib import Job, leftovers
from helpers import ROOT, env

pytestmark = [pytest.mark.mpi, pytest.mark.slow]

ARGS = ["graph500", "--scale", "16", "--roots", "64", "--quiet", "--stall-timeout", "30"]


def _run(cluster, tmp, *extra, timeout=900):
    hostfile = cluster.hostfile(slots=1, path=os.path.join(str(tmp), "hostfile"))
    return cluster.exec(1, [sys.executable, "-m", "breadth", *ARGS, *extra, "--ranks", "3", "--hostfile", hostfile],
                        timeout=timeout, cwd=ROOT, env=env())


def test_killed_run_resumes_to_the_same_report(cluster3, tmp_path):
    ref = _run(cluster3, tmp_path, "--json", str(tmp_path / "ref.json"))
    assert ref.returncode == 0, ref.stderr[-3000:]

    ckpt = tmp_path / "ckpt"
    stop_at = random.Random(os.urandom(8)).randint(4, 40)      # the watchdog counts the warm-up as search 1
    job = Job(cluster3, ARGS + ["--checkpoint", str(ckpt)], tmp_path / "killed")
    job.wait_for_search(stop_at, timeout=600)
    job.fault(lambda: os.kill(job.pid_of(1), signal.SIGKILL))
    code, _, err, _ = job.finish()
    assert code != 0, err[-2000:]
    assert not leftovers(cluster3)
    recorded = json.loads((ckpt / "graph500-checkpoint.json").read_text())["searches"]
    assert 0 < len(recorded) < 64, (stop_at, len(recorded))

    res = _run(cluster3, tmp_path, "--checkpoint", str(ckpt), "--resume", "--json", str(tmp_path / "res.json"))
    assert res.returncode == 0, res.stderr[-3000:]
    a = json.loads((tmp_path / "ref.json").read_text())
    b = json.loads((tmp_path / "res.json").read_text())
    assert b["roots"] == a["roots"] and b["nedges"] == a["nedges"] and b["nedge"] == a["nedge"]
    assert a["validated"] and b["validated"] and b["NBFS"] == a["NBFS"] == 64
    assert b["resumed"] == sorted(int(k) for k in recorded), (stop_at, b["resumed"])
    assert f"{len(recorded)} of 64 searches from the checkpoint" in res.stdout
