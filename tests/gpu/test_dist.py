"""One MPI rank per GPU (``--device cuda`` under mpiexec, 2 ranks, simulator): the 1D butterfly search with
the local steps on the GPU equals the single-node search, validates, and copies host<->device only per level,
with host buffers for MPI or (forced, as a CUDA-aware MPI would be used) device buffers."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import breadth

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.mpi

HERE = os.path.dirname(os.path.abspath(__file__))


def _mpiexec(nprocs, args, env, timeout=600):
    from breadth.distributed.launch import find_mpiexec, mpi_flavour, private_session

    try:
        exe = find_mpiexec()
        flavour = mpi_flavour(exe)
    except Exception as exc:  # noqa: BLE001 - no MPI launcher here
        pytest.skip(f"no usable mpiexec: {exc}")
    cmd = [exe, "-n", str(nprocs)] + (["--oversubscribe"] if flavour == "openmpi" else []) + [sys.executable, *args]
    env = dict(env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", NUMBA_NUM_THREADS="1")
    with private_session(env) as env:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


@pytest.mark.parametrize("mode", ["host-buffers", "device-mpi"])
def test_two_ranks_equal_single_node_and_count_copies(cuda, gpu_env, mode):
    r = _mpiexec(2, [os.path.join(HERE, "dist_driver.py"), mode], gpu_env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    if lines and "refused" in lines[0]:     # a real GPU whose MPI is not CUDA-aware: forcing device buffers is refused
        assert mode == "device-mpi" and gpu_env["NUMBA_ENABLE_CUDASIM"] != "1" and len(lines) == 1, lines
        return
    assert len(lines) == (3 if mode == "device-mpi" else 6)
    assert {x["engine"] for x in lines} == {"mpi-1d-butterfly-cuda"}
    assert {x["algorithm"] for x in lines} == {"do", "td", "bu"}
    assert {x["device_mpi"] for x in lines} == {mode == "device-mpi"}


def test_cli_bfs_and_graph500_with_ranks_and_device_cuda(cuda, gpu_env, tmp_path):
    g = breadth.kronecker(7, seed=4)
    path = tmp_path / "k7.npz"
    breadth.save(g, path)
    root = int(np.argmax(g.degree()))
    out = tmp_path / "d.npy"
    r = _mpiexec(2, ["-m", "breadth", "bfs", str(path), "--root", str(root), "--device", "cuda", "--validate",
                     "--out", str(out), "--json"], gpu_env)
    assert r.returncode == 0, r.stderr[-3000:]
    data = json.loads(r.stdout)
    assert data["engine"] == "mpi-1d-butterfly-cuda" and data["validation"]["passed"]
    ref = breadth.bfs(g, root)
    np.testing.assert_array_equal(np.load(out), ref.depth)
    assert [lv["direction"] for lv in data["levels"]] == [lv.direction for lv in ref.levels]
    run = tmp_path / "g500.json"
    r = _mpiexec(2, ["-m", "breadth", "graph500", "--scale", "6", "--edgefactor", "8", "--roots", "2", "-q",
                     "--device", "cuda", "--json", str(run)], gpu_env)
    assert r.returncode == 0, r.stderr[-3000:]
    data = json.loads(run.read_text())
    assert data["engine"]["device"] == "cuda" and data["engine"]["cuda_aware_mpi"] is False
    assert data["engine"]["device_buffers_to_mpi"] is False           # never CUDA-aware under the simulator
    assert data["validated"] and data["NBFS"] == 2 and data["num_mpi_processes"] == 2


def test_device_cuda_needs_the_butterfly_exchange(cuda, gpu_env, tmp_path):
    path = tmp_path / "k6.npz"
    breadth.save(breadth.kronecker(6, seed=1), path)
    r = _mpiexec(2, ["-m", "breadth", "bfs", str(path), "--root", "0", "--device", "cuda", "--exchange", "alltoall"],
                 gpu_env)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = [x for x in r.stderr.splitlines() if "device" in x]
    assert len(lines) == 1 and "--device cuda runs the 1d partition with the butterfly exchange" in lines[0]
