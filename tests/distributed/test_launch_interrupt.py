"""Ctrl-C (once, or twice: then mpiexec is killed at once) or SIGTERM to ``--ranks``' launcher, with every
core busy, ends the job within a stated bound and leaves no rank of it running."""
import os
import signal
import subprocess
import sys
import time

import pytest
from interrupt_support import carrying, interrupt_when_ready

from mpi_helpers import ROOT, _mpiexec, mpi_env

pytestmark = pytest.mark.mpi

BOUND = 20.0        # seconds from the signal to the launcher's exit, with every core busy


@pytest.mark.parametrize("how", ["sigint", "sigint-twice", "sigterm"])
def test_ranks_launcher_interrupted_under_load(warm_kernels, tmp_path, how):
    _mpiexec()
    status = tmp_path / "status"
    status.mkdir()
    marker = f"BREADTH_STATUS_DIR={status}".encode()
    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(os.cpu_count() or 2)]
    proc = None
    try:
        # a terminal's Ctrl-C reaches a process whose SIGINT is at its default (a suite started in the
        # background inherits it ignored)
        proc = subprocess.Popen([sys.executable, "-m", "breadth", "graph500", "--scale", "15", "--roots", "64",
                                 "--ranks", "3", "--quiet"], cwd=ROOT,
                                env=mpi_env(BREADTH_STATUS_DIR=status, BREADTH_MPI_LOG=tmp_path),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        out, took = interrupt_when_ready(proc, lambda: len(list(status.glob("rank*.json"))) >= 3, how, BOUND, "the launcher")
    finally:
        for p in hogs + ([proc] if proc else []):
            if p.poll() is None:
                p.kill()
                p.wait()
    assert proc.returncode != 0, out
    deadline = time.monotonic() + 5
    while carrying(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert carrying(marker) == [], out
    assert took < BOUND, took
