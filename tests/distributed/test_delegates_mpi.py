"""The delegates layout (Pan et al.) under real mpiexec: on every rank count P = 1..5 and for a
threshold giving no delegates ("big"), the auto rule's, a few/most edges on delegates (4) and
every non-isolated vertex a delegate (0), the depths equal the single-node search, the trees
validate (distributed and gathered), nn + nd + dn + dd = the graph's arcs, and the per-level
messages and mask bytes follow the schedule (tests/distributed/driver_delegates.py checks)."""
import os

import pytest

from mpi_helpers import ROOT, run_mpi

pytestmark = pytest.mark.mpi

DRIVER = os.path.join(ROOT, "tests", "distributed", "driver_delegates.py")
CASES = [
    (1, ["star", "path", "directed"]),
    (2, ["kron10", "directed", "star"]),
    (3, ["disconnected", "star", "path", "kron10"]),
    (4, ["kron10", "tiny", "directed"]),
    (5, ["directed", "disconnected", "star"]),
]


def _check(nprocs, graphs, thresholds="big,auto,4,0", algorithms="do,td,bu", threads="", timeout=600):
    proc, _ = run_mpi(nprocs, [DRIVER, "check", *graphs], timeout=timeout, THRESHOLDS=thresholds,
                      ALGORITHMS=algorithms, THREADS=threads)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("OK ")]
    assert len(lines) == len(graphs) * len(thresholds.split(",")), proc.stdout[-2000:]
    for g in graphs:
        assert any(ln.startswith(f"OK {g} ") and ln.endswith(f"P={nprocs}") for ln in lines), (g, lines)
    return lines


@pytest.fixture(scope="module")
def warm_delegates():
    """Compile the delegates kernels once, in one process, before several ranks need them."""
    _check(1, ["tiny", "directed"], thresholds="4")


@pytest.mark.parametrize("nprocs,graphs", CASES, ids=[f"P{p}" for p, _ in CASES])
def test_delegates_match_single_node(nprocs, graphs, warm_delegates):
    lines = _check(nprocs, graphs)
    # the thresholds give the intended regimes: no delegates, and everything on delegates
    assert any(" d=0 " in ln and "nn=100.0%" in ln for ln in lines if " TH=" in ln)
    assert any("dd=100.0%" in ln for ln in lines if " TH=0 " in ln)


def test_delegates_two_threads_per_rank(warm_delegates):
    # several numba threads per rank: the atomic paths of the mask and claim kernels
    _check(2, ["kron10", "star"], thresholds="auto,4", threads="2")


@pytest.mark.slow
def test_delegates_larger_kronecker(warm_delegates):
    _check(4, ["kron13"], thresholds="big,auto,16,64")
