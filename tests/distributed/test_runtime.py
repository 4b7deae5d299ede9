"""``runtime.host_cores`` and ``auto_threads``: a host's cores, at most what ``$BREADTH_HOST_CORES``
grants (the namespace cluster's share of the machine), shared among the host's ranks."""
import os
import subprocess
import sys

import pytest

from breadth.distributed import runtime


def affinity() -> int:
    return len(os.sched_getaffinity(0))


def test_host_cores_is_the_affinity_without_a_grant(monkeypatch):
    monkeypatch.delenv(runtime.HOST_CORES_ENV, raising=False)
    assert runtime.host_cores() == affinity()


def test_host_cores_honours_a_smaller_grant(monkeypatch):
    monkeypatch.setenv(runtime.HOST_CORES_ENV, "1")
    assert runtime.host_cores() == 1


def test_a_grant_never_adds_cores(monkeypatch):
    monkeypatch.setenv(runtime.HOST_CORES_ENV, str(affinity() + 5))
    assert runtime.host_cores() == affinity()


@pytest.mark.parametrize("bad", ["0", "-2", "two", "1.5", ""])
def test_a_grant_that_is_no_positive_integer_is_ignored(monkeypatch, bad):
    monkeypatch.setenv(runtime.HOST_CORES_ENV, bad)
    assert runtime.host_cores() == affinity()


def test_auto_threads_takes_the_granted_cores():
    pytest.importorskip("mpi4py")
    # in a child process: MPI never starts in the test process
    code = "from breadth.distributed import runtime; print(runtime.auto_threads(runtime.get_mpi().COMM_SELF))"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env[runtime.HOST_CORES_ENV] = "1"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-1] == "1"


PINNED = """
import os
from breadth.distributed import runtime
from breadth.distributed.planner.probe import probe
MPI = runtime.get_mpi()
world = MPI.COMM_WORLD
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[world.rank % len(os.sched_getaffinity(0))]})
node = world.Split_type(MPI.COMM_TYPE_SHARED)
print("RANK", world.rank, len(os.sched_getaffinity(0)), runtime.node_cores(node), probe(world).cores_per_host)
"""


@pytest.mark.parametrize("grant", [None, "1"])
def test_a_host_has_the_cores_of_its_ranks_together(grant):
    # each rank bound to a core of its own, as Open MPI binds by default: the host has both
    from mpi_helpers import run_mpi

    extra = {runtime.HOST_CORES_ENV: grant} if grant else {}
    proc, _ = run_mpi(2, ["-c", PINNED], timeout=300, **extra)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line.split()[1:] for line in proc.stdout.splitlines() if line.startswith("RANK ")]
    assert len(rows) == 2
    want = 1 if grant else min(2, affinity())
    for _, own, host, probed in rows:
        assert own == "1"
        assert int(host) == want and int(probed) == want
