"""Many-source BFS with ``--device cuda`` on 2 MPI ranks (mpiexec, simulator): equal to one process.

Each rank selects GPU (node-local rank % GPUs) -- in the simulator there is one device, which
both ranks share -- and runs its share of the groups with the GPU kernels.
"""
import json

import numpy as np
import pytest

import breadth
from breadth.multisource import msbfs
from mpi_launch import run_mpi

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.mpi


def test_msbfs_device_cuda_on_two_ranks_equals_one_process(cuda, gpu_env, tmp_path):
    path = tmp_path / "k8.npz"
    g = breadth.kronecker(8, seed=6)
    breadth.save(g, path)
    out = tmp_path / "d.npy"
    r = run_mpi(["-m", "breadth", "msbfs", str(path), "--sample", "96", "--seed", "3", "--group-size", "32",
                 "--device", "cuda", "--output", str(out), "--json"], n=2, timeout=900, env=gpu_env)
    assert r.returncode == 0, r.stderr[-3000:]
    data = json.loads(r.stdout)
    assert data["ranks"] == 2 and data["groups"] == 3
    sources = np.array(data["per_source"]["source"])
    ref = msbfs(g, sources, group_size=32, keep_depths=True)
    np.testing.assert_array_equal(data["per_source"]["reached"], ref.reached)
    np.testing.assert_array_equal(data["per_source"]["distance_sum"], ref.distance_sum)
    np.testing.assert_array_equal(np.load(out), ref.depths)
