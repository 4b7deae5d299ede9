"""Distributed BFS under real mpiexec: depths equal the single-node search, trees validate, message
counts follow the exchange schedules (tests/distributed/driver.py does the checking on every rank)."""
import textwrap

import pytest

from mpi_helpers import DRIVER, run_mpi

pytestmark = pytest.mark.mpi

SMALL = ["kron10", "directed", "disconnected", "path", "tiny"]
CASES = [
    (1, SMALL),
    (2, SMALL + ["kron12"]),
    (3, ["kron11", "directed", "disconnected", "path", "tiny"]),
    (4, SMALL + ["kron12"]),
    (5, SMALL),
    (8, SMALL),
]
CONFIGS = ["alltoall f=None", "butterfly f=1", "butterfly f=2", "butterfly f=4"]


def _check(nprocs, graphs, algorithms="do", timeout=600, encoding="auto", threads=""):
    proc, _ = run_mpi(nprocs, [DRIVER, "check", *graphs], timeout=timeout, ALGORITHMS=algorithms,
                      ENCODING=encoding, THREADS=threads)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for g in graphs:
        for cfg in CONFIGS:
            line = f"OK {g} {cfg} {algorithms} P={nprocs}"
            assert line in proc.stdout, (line, proc.stdout[-2000:])


@pytest.mark.parametrize("nprocs,graphs", CASES, ids=[f"P{p}" for p, _ in CASES])
def test_exchanges_match_single_node(nprocs, graphs, warm_kernels):
    _check(nprocs, graphs)


def test_pure_top_down_and_bottom_up(warm_kernels):
    _check(3, ["kron10", "directed"], algorithms="td,bu")


def test_two_threads_per_rank(warm_kernels):
    # ranks running several numba threads use the atomic (compare-and-swap) paths of the kernels
    _check(2, ["kron10", "directed"], threads="2")


def test_butterfly_id_lists_only(warm_kernels):
    # the paper's encoding (vertex ids in every message), not the bitmap for dense sets
    _check(4, ["kron11", "disconnected"], encoding="queue")


@pytest.mark.slow
@pytest.mark.parametrize("nprocs,graphs", [(4, ["kron14"]), (8, ["kron12", "kron13"]), (3, ["kron13"])])
def test_larger_kronecker(nprocs, graphs, warm_kernels):
    _check(nprocs, graphs)


@pytest.mark.parametrize("nprocs", [1, 4, 6])
def test_comm_split_rows_and_columns(nprocs):
    # Comm.split: a 2D grid's row and column communicators compute right and are counted in the parent's tallies
    proc, _ = run_mpi(nprocs, [DRIVER, "split"], timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"OK split P={nprocs}" in proc.stdout, proc.stdout


def test_engine_leaves_global_state_alone(tmp_path, warm_kernels):
    # DistEngine runs its kernels with its own thread count and restores the caller's; it installs no excepthook
    script = tmp_path / "state.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numba
        from breadth.distributed import DistEngine, registry
        from breadth.graph500.engine import Engine

        before, hook = numba.get_num_threads(), sys.excepthook
        engine = DistEngine(threads=1, exchange="alltoall")
        engine.generate(9, 8, 2)
        engine.construct()
        result = engine.search(0)
        engine.validate(0, result)
        assert numba.get_num_threads() == before and sys.excepthook is hook
        assert engine.describe()["threads_per_rank"] == 1 and isinstance(engine, Engine)
        assert engine.name == "mpi-1d-alltoall" and registry.get("1d", "alltoall") is engine.layout
        print("OK state", engine.comm.rank)
    """))
    proc, _ = run_mpi(2, [str(script)], timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count("OK state") == 2
