"""A test that fails, or a run that is interrupted, inside a namespace cluster leaves no
namespace, state or process behind (the fixture's teardown, atexit and the signal handler)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from breadth.cluster import state

from helpers import env

pytestmark = pytest.mark.mpi

INNER = '''
import os, subprocess, sys, time
import pytest
from breadth.cluster import Cluster

@pytest.fixture
def cluster():
    with Cluster(3, name=os.environ["NAME"]) as c:
        yield c

def test_fails_inside_the_cluster(cluster):
    job = cluster.popen(1, cluster.mpiexec([sys.executable, "-c", "import time; time.sleep(300)"]))
    deadline = time.monotonic() + 60
    while len(cluster.pids()) < 6 and time.monotonic() < deadline:   # mpiexec, 2 daemons, 3 ranks
        time.sleep(0.1)
    with open(os.environ["PIDS"], "w") as f:
        f.write(" ".join(map(str, cluster.pids())))
    if os.environ.get("WAIT"):
        time.sleep(300)
    assert False, "planted failure"
'''


@pytest.mark.parametrize("how", ["fails", "sigterm", "sigint"])
def test_failing_or_interrupted_test_leaves_nothing(cluster_ok, tmp_path, how):
    (tmp_path / "test_inner.py").write_text(INNER)
    name = f"c{how[:4]}{os.getpid() % 100000}"
    pids_file = tmp_path / "pids"
    extra = env(NAME=name, PIDS=pids_file, **({"WAIT": "1"} if how != "fails" else {}))
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                             str(tmp_path / "test_inner.py")], cwd=tmp_path, env={**os.environ, **extra},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        if how != "fails":
            deadline = time.monotonic() + 120
            while not (pids_file.exists() and pids_file.read_text()):
                assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
                time.sleep(0.1)
            proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        leftover = state.namespaces_of(name)
        if leftover:
            state.teardown(name)          # do not leak into the rest of the run if this test fails
    assert proc.returncode != 0, out
    if how == "fails":
        assert "planted failure" in out, out
    pids = [int(p) for p in pids_file.read_text().split()]
    assert len(pids) >= 6, (pids, out)
    assert leftover == [], out
    assert not os.path.exists(state.state_dir(name))
    deadline = time.monotonic() + 10
    while _alive(pids) and time.monotonic() < deadline:    # exited processes may wait a moment to be reaped
        time.sleep(0.1)
    assert _alive(pids) == []


def _alive(pids):
    """The pids still running (a zombie has exited: its parent has yet to reap it)."""
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                    out.append(pid)
        except OSError:
            pass
    return out
