"""``--device cuda`` on the command line: same output as the CPU, one line and exit 2 without a GPU."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import breadth
from breadth.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    """Scale 6: from its largest hub the search goes top-down, bottom-up twice, then top-down again."""
    path = tmp_path_factory.mktemp("g") / "k6.npz"
    breadth.save(breadth.kronecker(6, seed=5), path)
    return path


def _json(capsys, argv):
    assert main(argv + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_bfs_device_cuda_equals_cpu(cuda, graph_file, tmp_path, capsys):
    root = str(int(np.argmax(breadth.load(graph_file).degree())))
    out_gpu, out_cpu = tmp_path / "g.npy", tmp_path / "c.npy"
    gpu = _json(capsys, ["bfs", str(graph_file), "--root", root, "--device", "cuda", "--validate", "--out", str(out_gpu)])
    cpu = _json(capsys, ["bfs", str(graph_file), "--root", root, "--out", str(out_cpu)])
    assert gpu["engine"] == "cuda" and gpu["validation"]["passed"]
    assert gpu["reached"] == cpu["reached"] and gpu["max_depth"] == cpu["max_depth"]
    assert [lv["direction"] for lv in gpu["levels"]] == [lv["direction"] for lv in cpu["levels"]]
    np.testing.assert_array_equal(np.load(out_gpu), np.load(out_cpu))


def test_msbfs_and_closeness_device_cuda(cuda, graph_file, tmp_path, capsys):
    out_gpu, out_cpu = tmp_path / "g.npy", tmp_path / "c.npy"
    args = ["--sample", "40", "--seed", "2", "--group-size", "32"]
    gpu = _json(capsys, ["msbfs", str(graph_file), *args, "--device", "cuda", "--output", str(out_gpu)])
    cpu = _json(capsys, ["msbfs", str(graph_file), *args, "--output", str(out_cpu)])
    assert gpu["per_source"] == cpu["per_source"] and gpu["groups"] == 2
    np.testing.assert_array_equal(np.load(out_gpu), np.load(out_cpu))
    gpu = _json(capsys, ["closeness", str(graph_file), *args, "--device", "cuda", "--measure", "harmonic"])
    cpu = _json(capsys, ["closeness", str(graph_file), *args, "--measure", "harmonic"])
    np.testing.assert_allclose(gpu["scores"]["score"], cpu["scores"]["score"])


@pytest.mark.parametrize("command", [["bfs", "GRAPH", "--root", "0"], ["msbfs", "GRAPH", "--sample", "4"],
                                     ["closeness", "GRAPH"], ["graph500", "--scale", "5", "--roots", "2"]])
def test_no_gpu_is_one_line_exit_2(cuda, graph_file, command):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env.update(NUMBA_ENABLE_CUDASIM="0", CUDA_VISIBLE_DEVICES="")
    args = [str(graph_file) if a == "GRAPH" else a for a in command]
    argv = [sys.executable, "-m", "breadth", *args, "--device", "cuda"]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--device cuda needs an NVIDIA GPU" in lines[0], proc.stderr
    assert proc.stdout == ""


def test_library_device_argument(cuda):
    from breadth.errors import InputError

    g = breadth.kronecker(7, seed=1)
    r = breadth.bfs(g, 3, device="cuda")
    np.testing.assert_array_equal(r.depth, breadth.bfs(g, 3).depth)
    with pytest.raises(InputError, match="unknown device"):
        breadth.bfs(g, 3, device="gpu")
    with pytest.raises(InputError, match="workspace applies"):
        breadth.bfs(g, 3, device="cuda", workspace=breadth.BFSWorkspace(g.num_vertices))
    with pytest.raises(InputError, match="unknown device"):
        breadth.multi_bfs(g, [1, 2], device="tpu")
    labelled = breadth.Graph(g.indptr, g.indices, vertex_ids=10 * np.arange(g.num_vertices))
    r = breadth.bfs(labelled, 30, by_label=True, device="cuda")
    np.testing.assert_array_equal(r.depth, breadth.bfs(g, 3).depth)
