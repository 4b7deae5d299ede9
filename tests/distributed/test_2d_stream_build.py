"""The streamed 2D build (``two_d.stream_build``) on real mpiexec ranks: the same block per rank as the
build from tuple arrays, single-node depths and validated trees from both 2D exchanges, the same
Graph500 roots and nedge through the engine; its registration and memory estimate."""
import json
import os

import pytest

from mpi_helpers import run_cli, run_mpi
from breadth.distributed import registry
from breadth.distributed.search_base import SearchOptions
from breadth.distributed.two_d.layout import estimate_rank_bytes

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "driver_stream_2d.py")


def _run(nprocs, grid, scale, chunk):
    proc, _ = run_mpi(nprocs, [DRIVER, grid, str(scale), str(chunk)], timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for directed in (False, True):
        assert f"directed={directed}" in proc.stdout
        for exchange in ("fold", "scan"):
            assert f"OK search {grid} {exchange} directed={directed}" in proc.stdout, proc.stdout
            assert f"OK graph500 {grid} {exchange} directed={directed}" in proc.stdout, proc.stdout
    assert proc.stdout.count(f"OK build {grid}") == 2, proc.stdout


@pytest.fixture(scope="module")
def warm_stream_2d(warm_kernels):
    """Compile (and cache) the streamed 2D build's kernels in one rank before several need them."""
    _run(1, "1x1", 7, 500)


@pytest.mark.mpi
@pytest.mark.parametrize("nprocs,grid,scale,chunk", [(4, "2x2", 9, 700), (2, "1x2", 9, 1000), (2, "2x1", 8, 1 << 22)])
def test_streamed_2d_build_matches_tuple_arrays(nprocs, grid, scale, chunk, warm_stream_2d):
    _run(nprocs, grid, scale, chunk)


def test_2d_layouts_stream():
    opts = SearchOptions(params={"grid": "2x2"})
    n, m = 1 << 25, 16 << 25
    for exchange in ("fold", "scan"):
        lay = registry.get("2d", exchange)
        assert lay.build_stream is not None and lay.estimate_stream is not None
        assert lay.estimate_stream(n, m, 4, opts, False) == estimate_rank_bytes(n, m, 4, "2x2", streamed=True)


def test_streamed_2d_estimate_below_tuple_arrays_at_scale():
    n, m = 1 << 26, 16 << 26
    for directed in (False, True):
        old = estimate_rank_bytes(n, m, 4, "2x2", directed)
        new = estimate_rank_bytes(n, m, 4, "2x2", directed, streamed=True, threads=1)
        blocks = 2 * (m / 4) * (1 if directed else 2) * 4          # both int32 block CSRs of a rank
        assert blocks < new < 0.9 * old, (directed, new, old)
    # the tuple share (16 B per tuple) and the swapped copy of the received arcs leave the build
    assert estimate_rank_bytes(n, m, 4, "2x2") - estimate_rank_bytes(n, m, 4, "2x2", streamed=True) > 2**31


def _graph500(tmp_path, *extra):
    out = tmp_path / "g500.json"
    proc = run_cli(["graph500", "--scale", "21", "--roots", "1", "--ranks", "2", "--partition", "2d", "--quiet",
                    "--json", str(out), *extra], timeout=600, BREADTH_AVAILABLE_MEMORY="2150M")
    return proc, out


@pytest.mark.mpi
def test_cli_2d_streams_where_tuple_arrays_would_be_refused(tmp_path, warm_stream_2d):
    # two ranks (1x2) at scale 21: about 2.3 GiB for the host from tuple arrays, 2.0 GiB streamed
    proc, _ = _graph500(tmp_path, "--tuple-list")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "(build from tuple arrays) needs about" in proc.stderr
    assert "streaming the tuples needs about" in proc.stderr
    proc, out = _graph500(tmp_path)               # validated by default
    assert proc.returncode == 0, proc.stdout + proc.stderr
    d = json.loads(out.read_text())
    assert d["engine"]["streaming"] is True and d["engine"]["partition"] == "2d", d["engine"]
    assert d["regeneration_time"] > 0 and d["build_wall_time"] >= d["construction_time"]
