"""bench/gpu_launch_host.py: numba-cuda's marshalling of a launch's arguments against gpu.launcher's,
timed without a GPU; it refuses to run in the simulator, whose arrays are not numba-cuda's."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "gpu_launch_host.py"

pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")


def run(*args, sim=False):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    if sim:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def test_prints_both_paths_and_their_ratio():
    proc = run("--calls", "50", "--reps", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)
    assert row["arrays"] == 7 and row["scalars"] == 14
    assert row["numba_cuda_us"] > 0 and row["launcher_us"] > 0
    assert row["ratio"] == pytest.approx(row["numba_cuda_us"] / row["launcher_us"], rel=0.02)
    table = run("--calls", "20", "--reps", "2", "--arrays", "3", "--scalars", "1")
    assert table.returncode == 0 and "| 3 | 1 |" in table.stdout


def test_refuses_the_simulator():
    proc = run("--calls", "5", sim=True)
    assert proc.returncode == 2 and "NUMBA_ENABLE_CUDASIM" in proc.stderr
