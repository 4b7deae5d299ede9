"""Launching real mpiexec from the distributed tests (imported by tests/distributed/test_*.py)."""
import os
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(ROOT, "tests", "distributed", "driver.py")


def _mpiexec():
    pytest.importorskip("mpi4py")
    from breadth.distributed.launch import find_mpiexec, mpi_flavour

    try:
        exe = find_mpiexec()
        return exe, mpi_flavour(exe)
    except Exception as exc:  # noqa: BLE001 - no MPI launcher here: skip
        pytest.skip(f"no usable mpiexec: {exc}")


def kronecker_share_script(scale: int) -> str:
    """The opening of a script that every rank runs: a ``Comm``, and this rank's share of a Graph500
    Kronecker graph of ``scale`` (edge factor 16) as ``src``, ``dst``, with ``n``, ``m``; json, numpy
    and ``DistEngine`` imported."""
    return f"""
import json
import numpy as np
from breadth.distributed.comm import Comm
from breadth.distributed.engine import DistEngine
from breadth.distributed.owned.build import tuple_share
from breadth.graph.generators import kronecker_edges
comm = Comm()
scale = {int(scale)}
n, m = 1 << scale, 16 << scale
a, b = tuple_share(m, comm.rank, comm.size)
src, dst = kronecker_edges(scale, 16, 1, a, b)
"""


def mpi_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def mpi_command(nprocs, args):
    exe, flavour = _mpiexec()
    cmd = [exe, "-n", str(nprocs)]
    if flavour == "openmpi":
        cmd.append("--oversubscribe")
    return cmd + [sys.executable] + list(args)


def run_mpi(nprocs, args, timeout=600, **env):
    """Run ``python ARGS`` on nprocs ranks; returns (CompletedProcess, seconds)."""
    from breadth.distributed.launch import private_session

    t0 = time.monotonic()
    with private_session(mpi_env(**env)) as full:
        proc = subprocess.Popen(mpi_command(nprocs, args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=full, cwd=ROOT, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:             # say where the job was, and leave nothing running
            end_session(proc.pid)
            out, err = proc.communicate()
            pytest.fail(f"the {nprocs}-rank job ran past {timeout} s; its output:\n{(out + err)[-4000:]}")
        finally:
            if proc.poll() is None:
                end_session(proc.pid)
                proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), time.monotonic() - t0


def end_session(sid):
    """SIGKILL every process of session ``sid`` (mpiexec started with ``start_new_session``: its ranks
    are in its session, each in a process group of its own)."""
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if name.isdigit() and int(fields[3]) == sid:
                os.kill(int(name), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass


def abort_latency(proc) -> float:
    """Seconds from the driver's injected failure (its ``driver: rank R fails at T`` line) to now,
    just after the job ended: how long the abort took, whatever startup took under load."""
    import re

    found = re.search(r"driver: rank \d+ fails at ([0-9.]+)", proc.stderr)
    assert found, proc.stderr[-3000:]
    return time.time() - float(found.group(1))


def run_cli(args, timeout=600, **env):
    """``python -m breadth ARGS`` (which may itself start mpiexec through --ranks)."""
    _mpiexec()
    return subprocess.run([sys.executable, "-m", "breadth"] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=mpi_env(**env), cwd=ROOT)


def kill_rank_mid_run(nprocs, args, rank=1):
    """Run ``python ARGS`` on nprocs ranks (each writes PID_DIR/rank<r>.pid once it is searching),
    SIGKILL rank ``rank`` half a second after all have started, and wait for the job. Returns
    (exit status, stdout + stderr, seconds the job took to end after the kill)."""
    from breadth.distributed.launch import private_session

    with tempfile.TemporaryDirectory() as pid_dir, private_session(mpi_env(PID_DIR=pid_dir)) as env:
        proc = subprocess.Popen(mpi_command(nprocs, args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        try:
            deadline = time.monotonic() + 90
            while not all(os.path.exists(os.path.join(pid_dir, f"rank{r}.pid")) for r in range(nprocs)):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "ranks never started searching"
                time.sleep(0.1)
            time.sleep(0.5)                 # mid-run: the ranks are searching
            with open(os.path.join(pid_dir, f"rank{rank}.pid")) as f:
                os.kill(int(f.read()), signal.SIGKILL)
            t0 = time.monotonic()
            out, err = proc.communicate(timeout=30)
            seconds = time.monotonic() - t0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return proc.returncode, out + err, seconds


def save_kronecker_files(d, scale, seed):
    """A Kronecker graph (edge factor 8) in folder ``d`` as k.npz and its edge list as k.g500
    (Graph500 pairs of little-endian int64); returns the graph."""
    import breadth

    g, (s, t) = breadth.kronecker(scale, 8, seed=seed, return_edges=True)
    breadth.save(g, d / "k.npz")
    np.column_stack([s, t]).astype("<i8").tofile(d / "k.g500")
    return g
