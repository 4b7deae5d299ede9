"""``gpu.launcher``: kernels launched with arguments marshalled once.

On a GPU every search in these tests launches through it (``path() == "fast"``), and the
first launch of each kernel signature compares its kept parameters with numba-cuda's. Here
the marshalling itself is checked against numba-cuda's, without a GPU and without the
simulator (``launcher_check.py`` in a subprocess), and the simulator's launches go through
numba-cuda, saying so.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_kept_parameters_are_numba_cudas_own():
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gpu", "launcher_check.py")],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    if proc.returncode == 3:
        pytest.skip(proc.stdout.strip()[:300])
    assert proc.returncode == 0 and proc.stdout.startswith("ok "), proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.mark.parametrize("setting, expected", [(None, "fast"), ("numba", "numba (BREADTH_GPU_LAUNCH=numba)")])
def test_the_launch_path_and_its_switch(setting, expected):
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "BREADTH_GPU_LAUNCH")}
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if setting is not None:
        env["BREADTH_GPU_LAUNCH"] = setting
    proc = subprocess.run([sys.executable, "-c", "from breadth.gpu import launcher; print(launcher.path())"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == expected, proc.stdout + proc.stderr


def test_a_fast_launch_runs_the_kernel(cuda, simulator):
    from breadth.gpu import device, launcher
    from breadth.gpu.primitives import fill

    assert launcher.path() == "fast" if not simulator else launcher.path() == "numba (the simulator)"
    a = device.empty(100, np.int64)
    for value in (7, -3, 7):                  # the first launch of a signature checks, the next ones are fast
        launcher.fast(fill)[4, 32](a, np.int64(value))
        assert (device.to_host(a) == value).all()
    assert launcher.fast(fill) is launcher.fast(fill)
