"""GPU tests run numba-cuda's simulator unless told otherwise.

``NUMBA_ENABLE_CUDASIM`` must be set before ``numba.cuda`` is first imported, so it
is set here, when pytest collects this directory (a machine with a GPU can run the
same tests on it with ``NUMBA_ENABLE_CUDASIM=0``). Without numba-cuda the tests skip.
"""
import os

import pytest

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")


@pytest.fixture(scope="session")
def cuda():
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install 'breadth[cuda]')")
    from breadth.errors import InputError
    from breadth.gpu import device

    try:
        return device.require_cuda()
    except InputError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def simulator(cuda):
    from breadth.gpu import device

    return device.simulated()
