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


def test_head_copy_copies_counts_and_falls_back_to_numba_cuda(cuda, simulator, monkeypatch):
    from breadth.gpu import device, launcher

    monkeypatch.setitem(launcher._state, "path", "fast")
    monkeypatch.setattr(launcher, "_NUMBA", {})
    a = device.to_device(np.arange(8, dtype=np.int64))
    host = device.pinned(8, np.int64)
    copy = launcher.HeadCopy(a, host)
    with device.count_transfers() as t:
        assert list(copy()) == list(range(8))                  # the first copy: numba-cuda's
        if simulator:                                          # no driver there: say so, and stand one in
            assert copy.direct is False and "head copy" in launcher.numba_launched()
            copy.direct = (lambda h, d, size: host.__setitem__(slice(None), a.copy_to_host()), (0, 0, 64))
        else:
            assert copy.direct and copy.direct[1][2] == 64
        for k in (3, 5):
            device.upload(a, np.arange(8, dtype=np.int64) * k)
            assert copy() is host and list(host) == [i * k for i in range(8)]
    assert t.to_host == 3 and t.sizes_to_host == [64] * 3               # one counted copy a call

    def broken(*args):
        raise TypeError("other arguments")

    copy.direct = (broken, ())
    device.upload(a, np.arange(8, dtype=np.int64) + 1)
    assert list(copy()) == list(range(1, 9)) and copy.direct is False
    assert "other arguments" in launcher.numba_launched()["head copy"]
