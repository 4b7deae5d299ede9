"""Ctrl-C (once, or twice: then mpiexec is killed at once) or SIGTERM to ``--ranks``' launcher, with every
core busy, ends the job within a stated bound and leaves no rank of it running."""
import os
import signal
import subprocess
import sys
import time

import pytest
from interrupt_support import interrupt_when_ready

from mpi_helpers import ROOT, _mpiexec, mpi_env

pytestmark = pytest.mark.mpi

BOUND = 20.0        # seconds from the signal to the launcher's exit, with every core busy


def _carrying(marker: bytes) -> list[int]:
    """The processes whose environment holds ``marker`` (this launch's status directory)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if marker in f.read().split(b"\0"):
                        out.append(int(entry))
            except OSError:
                pass
    return out


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
                                 "--ranks", "3", "--quiet"], env=mpi_env(BREADTH_STATUS_DIR=status), cwd=ROOT,
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
    while _carrying(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _carrying(marker) == [], out
    assert took < BOUND, took
