"""Fixtures of the namespace-cluster tests: clusters of 3 and 4 hosts shared by the session,
skipped (with the reason) where this machine cannot make network namespaces."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIST = os.path.join(ROOT, "tests", "distributed")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _require():
    from breadth.cluster import available

    reason = available()
    if reason:
        pytest.skip(reason)
    pytest.importorskip("mpi4py")
    from breadth.distributed.launch import find_mpiexec, mpi_flavour

    try:
        if mpi_flavour(find_mpiexec()) != "openmpi":
            pytest.skip("the namespace cluster's launch agent is Open MPI's (plm_ssh_agent)")
    except Exception as exc:  # noqa: BLE001 - no MPI launcher here: skip
        pytest.skip(f"no usable mpiexec: {exc}")


@pytest.fixture(scope="session")
def cluster_ok():
    _require()


def _cluster(hosts):
    from breadth.cluster import Cluster

    with Cluster(hosts) as c:
        yield c


@pytest.fixture(scope="session")
def cluster3(cluster_ok):
    yield from _cluster(3)


@pytest.fixture(scope="session")
def cluster4(cluster_ok):
    yield from _cluster(4)


@pytest.fixture(scope="session")
def warm(cluster3):
    """Compile (and cache) the distributed kernels in one process on host 1 before many ranks load
    them (ranks compiling the same kernels at once multiply the work on a small machine)."""
    from helpers import DRIVER, DRIVER_2D, DRIVER_DELEGATES, ok_lines, run

    for argv, extra in (([DRIVER, "check", "tiny"], {"ALGORITHMS": "do,td,bu"}),
                        ([DRIVER_2D, "check", "1x1", "tiny"], {}),
                        ([DRIVER_DELEGATES, "check", "tiny"], {"THRESHOLDS": "4", "ALGORITHMS": "do,td,bu"})):
        ok_lines(run(cluster3, argv, hosts=[1], timeout=900, **extra))
    proc = run(cluster3, ["-m", "breadth", "graph500", "--scale", "8", "--roots", "2", "--partition", "1d",
                          "--quiet"], hosts=[1], timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
