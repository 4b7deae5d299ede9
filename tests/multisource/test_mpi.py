"""Groups shared among MPI ranks (mpiexec -n 3): same results as one process; failures abort, not hang."""
import json
import os
import textwrap

import numpy as np
import pytest

import breadth
from breadth.distributed import runtime
from breadth.multisource import closeness, mpi, msbfs, multi_bfs
from mpi_launch import run_mpi, saved_kronecker

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.mpi

@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    return saved_kronecker(tmp_path_factory, 11, seed=4)


def test_not_launched_means_no_world():
    size = runtime.world_size_from_env()
    assert size == (int(os.environ["OMPI_COMM_WORLD_SIZE"]) if "OMPI_COMM_WORLD_SIZE" in os.environ else size)
    if (size or 1) == 1:
        assert mpi.world() is None


def test_msbfs_on_three_ranks_equals_one_process(graph_file, tmp_path):
    out = tmp_path / "d.npy"
    r = run_mpi(["-m", "breadth", "msbfs", str(graph_file), "--all", "--words", "1", "--group-size", "50",
                 "--output", str(out), "--json"])
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)            # only rank 0 prints
    assert data["ranks"] == 3 and data["groups"] == 41
    g = breadth.load(graph_file)
    ref = msbfs(g, None, words=1, group_size=50)
    np.testing.assert_array_equal(data["per_source"]["reached"], ref.reached)
    np.testing.assert_array_equal(data["per_source"]["eccentricity"], ref.eccentricity)
    np.testing.assert_array_equal(data["per_source"]["distance_sum"], ref.distance_sum)
    np.testing.assert_array_equal(np.load(out), multi_bfs(g, np.arange(g.num_vertices)))


def test_closeness_on_three_ranks_with_checkpoint(graph_file, tmp_path):
    ck = tmp_path / "ck"
    scores = tmp_path / "c.npy"
    args = ["-m", "breadth", "closeness", str(graph_file), "--words", "1", "--checkpoint", str(ck),
            "--output", str(scores), "--json"]
    r = run_mpi(args)
    assert r.returncode == 0, r.stderr
    g = breadth.load(graph_file)
    np.testing.assert_allclose(np.load(scores), closeness(g, words=1), rtol=1e-13)
    files = [f for f in os.listdir(ck) if f.startswith("group-")]
    assert len(files) == json.loads(r.stdout)["groups"] == 32
    for f in files[:10]:
        os.unlink(ck / f)
    again = run_mpi(args)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["resumed_groups"] == 22
    np.testing.assert_allclose(np.load(scores), closeness(g, words=1), rtol=1e-13)


def test_refused_checkpoint_stops_every_rank(graph_file, tmp_path):
    ck = tmp_path / "ck"
    g = breadth.load(graph_file)
    msbfs(g, np.arange(10), checkpoint=ck)                  # another run's directory
    r = run_mpi(["-m", "breadth", "closeness", str(graph_file), "--checkpoint", str(ck)], timeout=120)
    assert r.returncode != 0
    assert "belongs to another run" in r.stderr and "Traceback" not in r.stderr


FAILING_WORKER = """
    import time
    from breadth.multisource import mpi

    comm = mpi.world()
    mpi.install_abort_hook(comm)

    def compute(gi):
        if comm.Get_rank() == 2:
            raise RuntimeError("group failed on rank 2")
        time.sleep(0.01)
        return gi

    mpi.dispatch(comm, list(range(50)), compute, lambda r: None)
    comm.Barrier()
    print("finished")
"""

UNCAUGHT_EXCEPTION = """
    from breadth.multisource import mpi

    comm = mpi.world()
    mpi.install_abort_hook(comm)
    if comm.Get_rank() == 1:
        raise ValueError("rank 1 broke before the barrier")
    comm.Barrier()
    print("finished")
"""


@pytest.mark.parametrize("script,message", [(FAILING_WORKER, "group failed on rank 2"),
                                            (UNCAUGHT_EXCEPTION, "rank 1 broke")],
                         ids=["failing_worker", "uncaught_exception_through_the_hook"])
def test_a_failing_rank_aborts_the_job(tmp_path, script, message):
    path = tmp_path / "fail.py"
    path.write_text(textwrap.dedent(script))
    r = run_mpi([str(path)], timeout=120)
    assert r.returncode != 0
    assert message in r.stderr and "finished" not in r.stdout


def test_bad_input_stops_every_rank(tmp_path):
    r = run_mpi(["-m", "breadth", "msbfs", str(tmp_path / "missing.npz"), "--all"], timeout=120)
    assert r.returncode != 0
    assert "no such file" in r.stderr and "Traceback" not in r.stderr


def test_error_on_some_ranks_stops_all_with_its_class(tmp_path):
    # the one error policy (runtime.agree): every rank raises the lowest failing rank's error, of its class
    script = tmp_path / "agree.py"
    script.write_text(textwrap.dedent("""
        from breadth.errors import InputError, MemoryEstimateError
        from breadth.multisource import mpi

        comm = mpi.world()
        rank = comm.Get_rank()
        error = MemoryEstimateError("too big here") if rank == 1 else None
        error = InputError("bad file") if rank == 2 else error
        try:
            mpi.check_all(comm, error)
        except Exception as exc:
            print(f"rank {rank}: {type(exc).__name__}: {exc} collective={getattr(exc, 'collective', False)}")
        mpi.check_all(comm, None)
    """))
    r = run_mpi([str(script)], timeout=120)
    assert r.returncode == 0, r.stderr
    lines = sorted(r.stdout.splitlines())
    assert lines == ["rank 0: MemoryEstimateError: rank 1: too big here collective=True",
                     "rank 1: MemoryEstimateError: too big here collective=True",
                     "rank 2: MemoryEstimateError: rank 1: too big here collective=True"], r.stdout
