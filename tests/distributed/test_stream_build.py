"""The streamed distributed build (``one_d.stream_build``) on real mpiexec ranks: the same local CSR
per rank as the build from tuple arrays and as the single-node graph's rows, and the same Graph500
results through the engine; and its memory estimate against the tuple-array build's."""
import pytest

from mpi_helpers import run_mpi
from breadth.distributed.engine import DistEngine  # noqa: F401 - the engine imports cleanly
from breadth.distributed.one_d.layout import estimate_rank_bytes
from breadth.distributed.one_d.stream_build import rounds

import os

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver_stream.py")


@pytest.mark.parametrize("nprocs,scale,chunk", [(2, 10, 1000), (3, 9, 700), (2, 8, 1 << 22)])
def test_streamed_build_matches_tuple_arrays(nprocs, scale, chunk, warm_kernels):
    proc, _ = run_mpi(nprocs, [DRIVER, str(scale), str(chunk)], timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("OK scale") == 2 and "OK engine" in proc.stdout, proc.stdout


def test_rounds_cover_the_largest_share():
    assert rounds(0, 2, 10) == 1
    assert rounds(100, 3, 34) == 1          # shares of 33 and 34 tuples
    assert rounds(102, 3, 34) == 1          # shares of 34
    assert rounds(103, 3, 34) == 2          # a share of 35
    assert rounds(16 << 25, 2, 1 << 22) == 64


def test_streamed_estimate_scale25_two_ranks_fits_24_gib():
    n, m = 1 << 25, 16 << 25
    old = estimate_rank_bytes(n, m, 2)
    new = estimate_rank_bytes(n, m, 2, streamed=True, threads=1)
    assert old > 16 * 2**30                      # two ranks on one 24 GiB host: refused
    assert 2 * new < 12 * 2**30 and new < old / 3
    for directed in (False, True):               # the graph and search state bound the streamed peak
        assert estimate_rank_bytes(n, m, 2, directed=directed, streamed=True, threads=1) < \
            estimate_rank_bytes(n, m, 2, directed=directed)
