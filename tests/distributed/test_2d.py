"""The 2D layouts (Beamer-Buluç expand/fold; MapGraph bitmap scan) under real mpiexec on several
grids, square and not, P = 1, 2, 3, 4, 6, 9: depths equal the single-node search for do/td/bu, trees
validate (2D validator and breadth.validate), directions are the single-node policy's, every level's
messages are exactly the schedule per operation (and scan's parents step after the last level), and
a corrupted tree fails (tests/distributed/driver_2d.py checks); the CLI; failing and killed ranks."""
import json
import os

import numpy as np
import pytest

from mpi_helpers import ROOT, abort_latency, kill_rank_mid_run, run_cli, run_mpi, save_kronecker_files

pytestmark = pytest.mark.mpi

DRIVER_2D = os.path.join(ROOT, "tests", "distributed", "driver_2d.py")
SMALL = ["tiny", "path", "directed", "disconnected"]

CASES = [
    pytest.param(1, "1x1", SMALL + ["kron8"], id="1x1"),
    pytest.param(3, "1x3", ["tiny", "directed", "kron8"], id="1x3"),
    pytest.param(3, "3x1", ["tiny", "disconnected", "kron8"], id="3x1"),
    pytest.param(4, "2x2", SMALL + ["kron8"], id="2x2"),
    pytest.param(6, "2x3", ["tiny", "directed", "path", "kron8"], id="2x3"),
    pytest.param(2, "1x2", ["tiny", "path", "kron8"], id="1x2", marks=pytest.mark.slow),
    pytest.param(2, "2x1", ["directed", "disconnected", "kron8"], id="2x1", marks=pytest.mark.slow),
    pytest.param(6, "3x2", ["tiny", "disconnected", "kron8"], id="3x2", marks=pytest.mark.slow),
    pytest.param(9, "3x3", ["tiny", "directed"], id="3x3", marks=pytest.mark.slow),
]


@pytest.fixture(scope="module")
def warm_2d():
    """Compile (and cache) the 2D kernels in one process before many ranks need them."""
    proc, _ = run_mpi(1, [DRIVER_2D, "check", "1x1", "tiny", "directed"])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.mark.parametrize("nprocs,grid,graphs", CASES)
def test_2d_exchanges_match_single_node(nprocs, grid, graphs, warm_2d):
    proc, _ = run_mpi(nprocs, [DRIVER_2D, "check", grid, *graphs], timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for g in graphs:
        for exchange in ("fold", "scan"):
            assert f"OK {g} {grid} {exchange} P={nprocs}" in proc.stdout, proc.stdout[-2000:]


@pytest.fixture(scope="module")
def kron_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("graphs2d")
    return d, save_kronecker_files(d, 10, seed=4)


@pytest.mark.parametrize("exchange,grid", [("fold", "3x1"), ("scan", "1x3")])
def test_cli_bfs_2d_native_file(kron_file, tmp_path, exchange, grid, warm_2d):
    import breadth

    d, g = kron_file
    root = int(np.argmax(g.degree()))
    depth_file, parent_file = tmp_path / "d.npy", tmp_path / "p.npy"
    proc = run_cli(["bfs", str(d / "k.npz"), "--root", str(root), "--ranks", "3", "--partition", "2d",
                    "--exchange", exchange, "--grid", grid, "--validate", "--out", str(depth_file),
                    "--parents", str(parent_file)], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"exchange={exchange}" in proc.stdout and "validated" in proc.stdout, proc.stdout
    depth, parent = np.load(depth_file), np.load(parent_file)
    assert np.array_equal(depth, breadth.bfs(g, root).depth)
    breadth.validate(g, root, parent, depth)


@pytest.mark.parametrize("exchange,steps", [("fold", {"transpose", "expand", "fold", "rotate"}),
                                            ("scan", {"scan", "broadcast", "parents"})])
def test_cli_graph500_2d_json(kron_file, tmp_path, exchange, steps, warm_2d):
    out = tmp_path / "g.json"
    proc = run_cli(["graph500", "--scale", "9", "--roots", "2", "--ranks", "4", "--partition", "2d",
                    "--exchange", exchange, "--grid", "2x2", "--quiet", "--json", str(out)], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    d = json.loads(out.read_text())
    assert d["engine"]["engine"] == f"mpi-2d-{exchange}" and d["engine"]["grid"] == "2x2"
    for s in d["searches"]:
        c = s["communication"]
        assert c["exchange"] == exchange and c["grid"] == "2x2"
        assert set(c["operations"]) == steps and all(t["bytes"] > 0 for t in c["operations"].values())


@pytest.mark.parametrize("extra,needle", [
    (["--ranks", "4", "--partition", "2d", "--grid", "2x3"], "--grid 2x3 needs 6 ranks, this job has 4"),
    (["--ranks", "2", "--partition", "2d", "--grid", "2by1"], "--grid '2by1' is not of the form RxC"),
    (["--ranks", "2", "--partition", "1d", "--grid", "1x2"], "--grid applies to --partition 2d"),
])
def test_cli_grid_errors_one_line(kron_file, extra, needle):
    d, _ = kron_file
    proc = run_cli(["bfs", str(d / "k.npz"), "--root", "0"] + extra, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert len(lines) == 1 and needle in lines[0], proc.stderr


def test_2d_rank_raising_aborts_the_job(warm_2d):
    proc, _ = run_mpi(4, [DRIVER_2D, "loop", "2x2"], timeout=300, FAIL_RANK=2, FAIL_AFTER=3)
    assert proc.returncode != 0
    assert "breadth: rank 2 of 4 failed: RuntimeError: injected failure after 3 searches" in proc.stderr
    assert abort_latency(proc) < 30


def test_2d_killed_rank_ends_the_job_within_seconds(warm_2d):
    returncode, text, seconds = kill_rank_mid_run(3, [DRIVER_2D, "loop", "1x3"])
    assert returncode != 0 and seconds < 15
    assert "rank 1" in text, text[-2000:]
