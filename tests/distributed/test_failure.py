"""A failing or killed rank ends the whole job within seconds, naming the rank; errors every rank
raises alike exit cleanly with one message."""
import pytest

from mpi_helpers import DRIVER, abort_latency, kill_rank_mid_run, run_cli, run_mpi

pytestmark = pytest.mark.mpi


def test_rank_raising_aborts_the_job(warm_kernels):
    proc, _ = run_mpi(3, [DRIVER, "loop"], timeout=300, FAIL_RANK=1, FAIL_AFTER=3)
    assert proc.returncode != 0
    assert "breadth: rank 1 of 3 failed: RuntimeError: injected failure after 3 searches" in proc.stderr
    assert abort_latency(proc) < 30          # the abort, not the startup (slow when the suite loads the cores)


def test_killed_rank_ends_the_job_within_seconds(warm_kernels):
    returncode, text, seconds = kill_rank_mid_run(3, [DRIVER, "loop"])
    assert returncode != 0
    assert seconds < 15
    assert "rank 1" in text and ("signal 9" in text or "Killed" in text), text[-2000:]


def test_same_error_on_every_rank_exits_cleanly(warm_kernels):
    # not marked collective: the ranks agree over the error communicator that all failed alike
    proc = run_cli(["graph500", "--scale", "10", "--edgefactor", "-1", "--ranks", "3"], timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert len(lines) == 1 and "edgefactor" in lines[0], proc.stderr
    # no rank reports a failure of its own and none dumps a traceback (Open MPI's launcher may add its
    # own notes -- libevent "Epoll ... failed" warnings, the non-zero-exit banner -- which are not ours)
    assert "breadth: rank" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_graph_too_large_refused_up_front(warm_kernels):
    proc = run_cli(["graph500", "--scale", "40", "--ranks", "2", "--quiet"], timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert len(lines) == 1 and "needs about" in lines[0] and "GiB per rank" in lines[0], proc.stderr
