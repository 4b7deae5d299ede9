"""Launching real mpiexec from the distributed tests (imported by tests/distributed/test_*.py)."""
import os
import subprocess
import sys
import time

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
    t0 = time.monotonic()
    proc = subprocess.run(mpi_command(nprocs, args), capture_output=True, text=True, timeout=timeout,
                          env=mpi_env(**env), cwd=ROOT)
    return proc, time.monotonic() - t0


def run_cli(args, timeout=600, **env):
    """``python -m breadth ARGS`` (which may itself start mpiexec through --ranks)."""
    _mpiexec()
    return subprocess.run([sys.executable, "-m", "breadth"] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=mpi_env(**env), cwd=ROOT)
