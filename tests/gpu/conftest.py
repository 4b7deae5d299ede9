"""GPU tests: on a GPU, or in numba-cuda's simulator when the whole run asks for it.

``NUMBA_ENABLE_CUDASIM`` must be set before ``numba.cuda`` is first imported, and it
changes what ``numba.cuda`` is for the rest of the process, so it is chosen for the
whole test run, never by these tests: ``./test.sh`` (what CI runs) exports
``NUMBA_ENABLE_CUDASIM=${NUMBA_ENABLE_CUDASIM:-1}``, so every test and subprocess
of the run sees the same value. Running pytest directly:

    NUMBA_ENABLE_CUDASIM=1 .venv/bin/python -m pytest tests/gpu     # simulator
    NUMBA_ENABLE_CUDASIM=0 .venv/bin/python -m pytest tests/gpu     # a real GPU

Without a GPU and without the simulator the tests skip, saying so; without
numba-cuda they skip too. A test that starts a subprocess running GPU code passes
the run's choice on with the ``gpu_env`` fixture.
"""
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def cuda():
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install 'breadth[cuda]')")
    from breadth.errors import InputError
    from breadth.gpu import device

    try:
        return device.require_cuda()
    except InputError as exc:
        pytest.skip(f"{exc} -- ./test.sh sets NUMBA_ENABLE_CUDASIM=1 for the whole run")


@pytest.fixture(scope="session")
def simulator(cuda):
    from breadth.gpu import device

    return device.simulated()


@pytest.fixture(scope="session")
def gpu_env(cuda):
    """The environment of a subprocess that runs GPU code as this run does (simulator or GPU)."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM=os.environ.get("NUMBA_ENABLE_CUDASIM", "0"))
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
