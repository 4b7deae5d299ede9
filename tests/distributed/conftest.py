"""Fixtures of the distributed tests."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpi_helpers import DRIVER, run_mpi  # noqa: E402


@pytest.fixture(scope="session")
def warm_kernels():
    """Compile (and cache) every distributed kernel in one process before many ranks need them."""
    proc, _ = run_mpi(1, [DRIVER, "check", "tiny", "directed"], ALGORITHMS="do,td,bu")
    assert proc.returncode == 0, proc.stdout + proc.stderr
