"""The test run's grouping for pytest-xdist (``test.sh`` runs ``-n N --dist loadgroup``).

The tests that launch processes of their own and are sensitive to time (namespace clusters, MPI
jobs of many ranks, the fault tests' watchdog and stall bounds) and the benchmarks-as-tests, which
load every core, go in one xdist group, ``serial``: one worker runs them one after another while
the other workers share the rest. Without xdist the marks change nothing.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

TESTS = os.path.dirname(os.path.abspath(__file__))
SERIAL = "serial"
# whole directories of MPI launches and namespace clusters
SERIAL_DIRS = ("cluster", "distributed")
# files elsewhere that launch mpiexec (directly, through --ranks or through a cluster), or load every core
SERIAL_FILES = {
    "cli/test_cluster.py", "cli/test_doctor.py", "cli/test_exit_codes.py", "cli/test_hostcheck.py",
    "cli/test_labels_cli.py", "gpu/test_dist.py", "gpu/test_mpi.py", "multisource/test_mpi.py",
    "test_first_call.py", "test_omp_env.py",
}


def serial(path: str, marked_mpi: bool) -> bool:
    """Whether the test at ``path`` (a file under tests/) belongs to the serial group."""
    rel = os.path.relpath(os.path.abspath(path), TESTS).replace(os.sep, "/")
    return (marked_mpi or rel.split("/", 1)[0] in SERIAL_DIRS or rel in SERIAL_FILES
            or os.path.basename(rel).startswith("test_bench_"))


def pytest_collection_modifyitems(config, items):
    for item in items:
        if serial(str(item.path), item.get_closest_marker("mpi") is not None):
            item.add_marker(pytest.mark.xdist_group(SERIAL))


_mpi_reported = []


@pytest.fixture(autouse=True)
def _no_mpi_in_the_test_process():
    """No test starts MPI in the test process itself (a pytest worker): a worker in which MPI had
    started went on launching mpiexec jobs and later ended with exit status 14, losing the tests it
    held. Tests run MPI in mpiexec jobs or child processes. The first test found to have started it
    fails (once: MPI cannot be stopped and started again in one process)."""
    yield
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and not _mpi_reported and mpi.Is_initialized():
        _mpi_reported.append(True)
        pytest.fail("this test started MPI in the test process: run it in a child process (mpiexec, or python -c)")
