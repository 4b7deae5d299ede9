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
