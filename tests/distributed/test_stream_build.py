"""The streamed distributed build (``owned.stream_build``) on real mpiexec ranks: the same local CSR
per rank as the build from tuple arrays and as the single-node graph's rows, and the same Graph500
results through the engine; and its memory estimate against the tuple-array build's."""
import json
import os

import pytest

from mpi_helpers import run_cli, run_mpi
from breadth.distributed.one_d.layout import estimate_rank_bytes
from breadth.distributed.owned.stream_build import rounds

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


def _graph500(tmp_path, *extra):
    out = tmp_path / "g500.json"
    proc = run_cli(["graph500", "--scale", "20", "--roots", "1", "--ranks", "2", "--quiet", "--json", str(out),
                    *extra], timeout=600, BREADTH_AVAILABLE_MEMORY="1250M")
    return proc, out


@pytest.mark.mpi
def test_cli_streams_where_tuple_arrays_would_be_refused(tmp_path, warm_kernels):
    # two ranks at scale 20: about 1.3 GiB for the host from tuple arrays, 1.2 GiB streamed
    proc, _ = _graph500(tmp_path, "--partition", "1d", "--tuple-list")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "(build from tuple arrays) needs about" in proc.stderr
    assert "streaming the tuples needs about" in proc.stderr
    proc, out = _graph500(tmp_path)             # --partition auto: only layouts that fit, streamed
    assert proc.returncode == 0, proc.stdout + proc.stderr
    d = json.loads(out.read_text())
    assert d["engine"]["streaming"] is True and d["engine"]["partition"] == "1d", d["engine"]
    assert d["regeneration_time"] > 0 and d["build_wall_time"] >= d["construction_time"]


def test_delegates_stream_estimate_is_the_1d_streamed_peak_plus_its_subgraphs():
    from breadth.distributed import registry

    layout = registry.get("delegates", "alltoall")      # through the registry: it imports the layouts in order
    assert layout.build_stream is not None and layout.estimate_stream is not None
    n, m = 1 << 25, 16 << 25
    listed = layout.estimate_bytes(n, m, 2, None, False)
    streamed = layout.estimate_stream(n, m, 2, None, False)
    assert streamed < listed
    assert streamed - estimate_rank_bytes(n, m, 2, "alltoall", 1, False, True) == \
        listed - estimate_rank_bytes(n, m, 2, "alltoall", 1, False)         # the same subgraph term on both
