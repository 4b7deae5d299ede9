"""The delegates layout (Pan et al.) under real mpiexec: on every rank count P = 1..5 and for a
threshold giving no delegates ("big"), the auto rule's, a few/most edges on delegates (4) and
every non-isolated vertex a delegate (0), the depths equal the single-node search, the trees
validate (distributed and gathered), nn + nd + dn + dd = the graph's arcs, and the per-level
messages and mask bytes follow the schedule (tests/distributed/driver_delegates.py checks)."""
import os

import pytest

from mpi_helpers import ROOT, run_mpi

pytestmark = pytest.mark.mpi

DRIVER = os.path.join(ROOT, "tests", "distributed", "driver_delegates.py")
CASES = [
    (1, ["star", "path", "directed"]),
    (2, ["kron10", "directed", "star"]),
    (3, ["disconnected", "star", "path", "kron10"]),
    (4, ["kron10", "tiny", "directed"]),
    (5, ["directed", "disconnected", "star"]),
]


def _check(nprocs, graphs, thresholds="big,auto,4,0", algorithms="do", threads="", timeout=600, mask="allreduce"):
    proc, _ = run_mpi(nprocs, [DRIVER, "check", *graphs], timeout=timeout, THRESHOLDS=thresholds,
                      ALGORITHMS=algorithms, THREADS=threads, MASK=mask)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("OK ")]
    assert len(lines) == len(graphs) * len(thresholds.split(",")), proc.stdout[-2000:]
    for g in graphs:
        assert any(ln.startswith(f"OK {g} ") and ln.endswith(f"P={nprocs}") for ln in lines), (g, lines)
    return lines


@pytest.fixture(scope="module")
def warm_delegates():
    """Compile the delegates kernels once, in one process, before several ranks need them."""
    _check(1, ["tiny", "directed"], thresholds="4", algorithms="do,td,bu")


@pytest.mark.parametrize("nprocs,graphs", CASES, ids=[f"P{p}" for p, _ in CASES])
def test_delegates_match_single_node(nprocs, graphs, warm_delegates):
    lines = _check(nprocs, graphs)
    # the thresholds give the intended regimes: no delegates, and everything on delegates
    assert any(" d=0 " in ln and "nn=100.0%" in ln for ln in lines if " TH=" in ln)
    assert any("dd=100.0%" in ln for ln in lines if " TH=0 " in ln)
    # nn ids claimed across ranks had their parents asked of the senders (P = 1: never)
    asked = [int(ln.split(" asked=")[1].split()[0]) for ln in lines]
    assert (sum(asked) > 0) == (nprocs > 1), lines


@pytest.mark.parametrize("mask", ["iallreduce", "overlap"])
@pytest.mark.parametrize("nprocs,graphs", [(2, ["kron10", "star"]), (3, ["directed", "disconnected"]),
                                           (4, ["kron10", "path"]), (5, ["tiny", "star"])])
def test_delegates_nonblocking_mask(nprocs, graphs, mask, warm_delegates):
    # iallreduce: the mask's Iallreduce overlapped with the nn exchange; overlap: the cheapest form
    # (Iallgatherv or Iallreduce) started after the count Alltoall. Same trees, their own byte schedules
    _check(nprocs, graphs, thresholds="auto,4,0", mask=mask)


@pytest.mark.parametrize("nprocs", [1, 2, 3, 5])
def test_comm_alltoallv_header_and_iallreduce(nprocs):
    proc, _ = run_mpi(nprocs, [DRIVER, "comm"], timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"OK comm P={nprocs}" in proc.stdout


def test_delegates_pure_top_down_and_bottom_up(warm_delegates):
    # every subgraph forced one way (nn stays top-down): the forward and the reverse visits of nd, dd, dn
    _check(3, ["kron10", "directed", "star"], thresholds="auto,4", algorithms="td,bu")


def test_delegates_two_threads_per_rank(warm_delegates):
    # several numba threads per rank: the atomic paths of the mask and claim kernels
    _check(2, ["kron10", "star"], thresholds="auto,4", threads="2")


@pytest.mark.slow
def test_delegates_larger_kronecker(warm_delegates):
    _check(4, ["kron13"], thresholds="big,auto,16,64")


def test_bfs_cli_delegates_native_file(tmp_path, warm_delegates):
    # breadth bfs --partition delegates on a native file (slice_native path): global arrays, report, JSON
    import json

    import numpy as np

    import breadth
    from mpi_helpers import run_cli

    g = breadth.kronecker(11, 8, seed=9)
    breadth.save(g, tmp_path / "k.npz")
    root = int(np.argmax(g.degree()))
    depth_file, parent_file, js = tmp_path / "d.npy", tmp_path / "p.npy", tmp_path / "s.json"
    proc = run_cli(["bfs", str(tmp_path / "k.npz"), "--root", str(root), "--ranks", "3", "--partition", "delegates",
                    "--threshold", "16", "--validate", "--out", str(depth_file), "--parents", str(parent_file),
                    "--json", str(js)], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "validated" in proc.stdout and "delegate_threshold:             16 (given)" in proc.stdout
    assert "x 16-byte edge list" in proc.stdout
    depth, parent = np.load(depth_file), np.load(parent_file)
    assert np.array_equal(depth, breadth.bfs(g, root).depth)
    breadth.validate(g, root, parent, depth)
    s = json.loads(js.read_text())
    part = s["graph"]["partition"]
    assert part["partition"] == "delegates" and part["delegates"] == int(np.count_nonzero(np.diff(g.indptr) > 16))
    assert sum(part[f"{k}_arcs"] for k in ("nn", "nd", "dn", "dd")) == g.indptr[-1]
    assert s["delegates"]["mask_bytes"] > 0 and len(s["delegates"]["levels"]) == len(s["levels"])


def test_graph500_cli_delegates_auto(warm_delegates):
    from mpi_helpers import run_cli

    for mask in (None, "iallreduce", "overlap"):
        extra = ["--delegate-mask", mask] if mask else []
        proc = run_cli(["graph500", "--scale", "10", "--roots", "3", "--ranks", "2", "--partition", "delegates",
                        "--quiet"] + extra, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        for key in ("mask_bytes_per_search:", "normal_bytes_per_search:", "delegate_threshold:", "(auto)",
                    "arcs nn/nd/dn/dd:", "graph_bytes_rank_1:", "nn_parent_bytes_per_search:",
                    "delegate_parent_bytes_per_search:", f"{'delegate_mask:':<32}{mask or 'allreduce'}"):
            assert key in proc.stdout, key


@pytest.mark.parametrize("args,needle", [
    (["graph500", "--scale", "8", "--threshold", "5"], "--threshold applies to --partition delegates"),
    (["graph500", "--scale", "8", "--ranks", "2", "--partition", "1d", "--threshold", "5"],
     "--threshold applies to --partition delegates"),
    (["graph500", "--scale", "8", "--delegate-mask", "iallreduce"], "--delegate-mask applies to --partition delegates"),
    (["graph500", "--scale", "8", "--ranks", "2", "--partition", "2d", "--delegate-mask", "allreduce"],
     "--delegate-mask applies to --partition delegates"),
    (["graph500", "--scale", "8", "--roots", "2", "--ranks", "2", "--partition", "delegates", "--threshold", "ab"],
     "--threshold must be 'auto' or an integer >= 0, got 'ab'"),
    (["graph500", "--scale", "8", "--roots", "2", "--ranks", "2", "--partition", "delegates", "--threshold", "-3"],
     "--threshold must be 'auto' or an integer >= 0, got -3"),
])
def test_cli_threshold_errors_one_line(args, needle):
    from mpi_helpers import run_cli

    proc = run_cli(args, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert needle in proc.stderr, proc.stderr
