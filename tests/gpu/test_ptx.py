"""Every GPU kernel compiles to PTX for sm_80 and sm_90 (numba typing + NVVM), when NVVM is installed.

The simulator never compiles a kernel, so this is the check that the kernels are
valid numba-cuda code for a real GPU; it needs no GPU, only NVVM (the ``cuda``
extra installs it), and skips without it (CI installs only the simulator).
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "tests", "gpu", "ptx_check.py")


def test_kernels_compile_for_real_gpus():
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, CHECK], capture_output=True, text=True, env=env, cwd=ROOT, timeout=1800)
    if proc.returncode == 3:        # ptx_check.py's first line says why its probe compile failed
        pytest.skip(f"{proc.stdout.strip().splitlines()[0][:300] if proc.stdout.strip() else 'NVVM is not usable'} "
                    "(pip install 'breadth[cuda]' installs NVVM)")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert proc.stdout.count("ok ") >= 40
