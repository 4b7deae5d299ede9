"""An mpiexec that outlives a finished job (Open MPI 5 can hang after the ranks exit,
openpmix/prrte#1839) is ended by the launcher once every rank recorded its exit status.

The real mpiexec runs real ranks; ``lingering_mpiexec`` only keeps running after it, as the
hung runtime does."""
import os
import subprocess
import sys
import textwrap
import time

import pytest

from breadth.distributed import launch
from breadth.distributed.faults.mpilog import exit_of_job
from mpi_helpers import run_cli

pytestmark = pytest.mark.mpi


def test_exit_of_job_needs_every_rank():
    two = {0: {"size": 2, "exit": 0}, 1: {"size": 2, "exit": 2}}
    assert exit_of_job(two) == 2
    assert exit_of_job({0: {"size": 2, "exit": 0}}) is None                  # rank 1 not heard from
    assert exit_of_job({0: {"size": 2, "exit": 0}, 1: {"size": 2}}) is None  # rank 1 still running
    assert exit_of_job(None) is None and exit_of_job({}) is None


def test_wait_ends_a_launcher_that_outlives_its_ranks(tmp_path, monkeypatch):
    monkeypatch.setattr(launch, "EXIT_GRACE", 1.0)
    for rank, code in ((0, 0), (1, 3)):
        (tmp_path / f"rank{rank}.json").write_text(f'{{"rank": {rank}, "size": 2, "exit": {code}}}')
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    notes = []
    t0 = time.monotonic()
    code = launch._wait(proc, (), str(tmp_path), notes)
    assert code == 3 and time.monotonic() - t0 < 1.0 + launch.TERM_GRACE + 2
    assert proc.poll() is not None and len(notes) == 1 and "prrte#1839" in notes[0]


def test_wait_leaves_a_running_job_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(launch, "EXIT_GRACE", 0.5)
    (tmp_path / "rank0.json").write_text('{"rank": 0, "size": 2, "exit": 0}')
    (tmp_path / "rank1.json").write_text('{"rank": 1, "size": 2, "where": "search 2"}')
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(2.5)"])
    notes = []
    assert launch._wait(proc, (), str(tmp_path), notes) == 0 and not notes


def test_graph500_ends_when_mpiexec_lingers_after_the_ranks(tmp_path):
    real = launch.find_mpiexec()
    wrapper = tmp_path / "mpiexec"
    wrapper.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import subprocess, sys, time
        code = subprocess.call([{real!r}, *sys.argv[1:]])
        if "--version" not in sys.argv:
            time.sleep(300)
        sys.exit(code)
        """))
    wrapper.chmod(0o755)
    t0 = time.monotonic()
    proc = run_cli(["graph500", "--scale", "8", "--roots", "4", "--ranks", "2", "--quiet",
                    "--json", str(tmp_path / "out.json")], timeout=240,
                   BREADTH_MPIEXEC=str(wrapper), BREADTH_MPI_LOG=str(tmp_path))
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "prrte#1839" in proc.stderr and os.path.exists(tmp_path / "out.json"), proc.stderr[-3000:]
    assert took < 200, took
