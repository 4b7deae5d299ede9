"""Device detection, memory estimates, launch checks and the host<->device copy count of a search."""
import os
import subprocess
import sys

import numpy as np
import pytest

import breadth
from breadth.errors import InputError, MemoryEstimateError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBE = ("import breadth.gpu.device as d\n"
         "try:\n    d.require_cuda()\nexcept Exception as e:\n    print(type(e).__name__ + ': ' + str(e))\n"
         "else:\n    print('available')\n")


def _probe(env_extra, prelude=""):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env.update(env_extra)
    proc = subprocess.run([sys.executable, "-c", prelude + PROBE], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip(), proc.stderr


def test_no_gpu_and_no_simulator_is_one_clear_line(cuda):
    out, err = _probe({"CUDA_VISIBLE_DEVICES": "", "NUMBA_ENABLE_CUDASIM": "0"})
    assert out.startswith("InputError: device='cuda' needs an NVIDIA GPU"), out
    assert "NUMBA_ENABLE_CUDASIM=1" in out and "\n" not in out
    assert err == ""


def test_simulator_counts_as_a_device(cuda):
    out, _ = _probe({"NUMBA_ENABLE_CUDASIM": "1"})
    assert out == "available"


def test_missing_numba_cuda_names_the_extra():
    out, _ = _probe({}, prelude="import sys\nsys.modules['numba.cuda'] = None\n")
    assert out == "InputError: device='cuda' needs numba-cuda: pip install 'breadth[cuda]'"


def test_check_device_and_launch():
    from breadth.checks import check_device
    from breadth.gpu.device import Launch, check_launch

    assert check_device("cuda") == "cuda" and check_device("cpu") == "cpu"
    with pytest.raises(InputError, match="unknown device 'gpu'"):
        check_device("gpu")
    check_launch(Launch())
    for bad in (Launch(thread_tpb=48), Launch(warp_tpb=16), Launch(thread_tpb=256), Launch(max_blocks=0)):
        with pytest.raises(InputError):
            check_launch(bad)


def test_memory_estimate_before_upload(cuda):
    from breadth.gpu.graph import DeviceGraph, graph_bytes, search_bytes

    g = breadth.kronecker(10, seed=3)
    need = graph_bytes(g) + search_bytes(g.num_vertices, 4)
    with pytest.raises(MemoryEstimateError, match="GiB of GPU memory"):
        DeviceGraph(g, free_bytes=need // 2)
    DeviceGraph(g, free_bytes=2 * need)


def test_select_gpu_wraps_local_rank(cuda):
    from breadth.gpu.device import num_gpus, select_gpu

    assert select_gpu(5) == 5 % num_gpus()


def test_local_rank_from_env(monkeypatch):
    from breadth.gpu.device import local_rank_from_env

    for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "SLURM_LOCALID"):
        monkeypatch.delenv(var, raising=False)
    assert local_rank_from_env() is None
    monkeypatch.setenv("SLURM_LOCALID", "3")
    assert local_rank_from_env() == 3
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1")
    assert local_rank_from_env() == 1


@pytest.mark.parametrize("algorithm", ["td", "bu", "do"])
def test_one_small_copy_per_level(cuda, algorithm):
    """No per-vertex round trips: a level copies one counter row down, the search nothing else
    but parent/depth down (one root is seeded by the fill kernel; several seeds go up once)."""
    from breadth import gpu
    from breadth.gpu.primitives import HEAD

    for n in (64, 700):                     # the count does not grow with the graph
        v = np.arange(n - 1)
        g = breadth.Graph.from_edges(np.concatenate([v, v[:-1]]), np.concatenate([v + 1, v[:-1] + 2]), n)
        dg = gpu.DeviceGraph(g)
        with gpu.count_transfers() as t:
            r = gpu.bfs(dg, 0, algorithm, max_depth=12)
        levels = len(r.levels)
        assert levels == 12
        assert t.to_device == 0                                     # one root: a kernel argument
        assert t.to_host == levels + 2                              # one row per level, parent, depth
        assert t.sizes_to_host[:levels] == [8 * HEAD] * levels
        assert t.sizes_to_host[levels:] == [8 * n, 8 * n]
        with gpu.count_transfers() as t:
            many = gpu.bfs(dg, np.array([0, 1, 1]), algorithm, max_depth=12)
        assert t.to_device == 1 and t.bytes_to_device == 16         # the distinct seeds, once
        assert len(many.levels) == 12 and many.depth[1] == 0 and many.parent[1] == 1


def test_ibfs_one_copy_per_level(cuda):
    from breadth import gpu
    from breadth.gpu.ibfs import traverse
    from breadth.gpu.ibfs_kernels import IROW

    s, d = breadth.kronecker_edges(7, 8, 2)
    dg = gpu.DeviceGraph(breadth.Graph.from_edges(s, d, 128))
    with gpu.count_transfers() as t:
        hist, stats, _, _, _, _ = traverse(dg, np.arange(70), 2, 0, 15.0, 18.0)
    levels = stats.shape[0]                  # the seeding row included: identified like a level
    assert t.to_host == levels and set(t.sizes_to_host) == {8 * IROW}
    assert t.to_device == 2                  # sources, and the unused-instance pattern once per W
