"""``breadth graph500`` and ``breadth bfs`` on several ranks: under mpiexec and through --ranks."""
import json
import os

import numpy as np
import pytest

import breadth
from breadth.graph500 import Graph500Config, LocalEngine, run_benchmark
from mpi_helpers import run_cli, run_mpi, save_kronecker_files

pytestmark = pytest.mark.mpi


def test_graph500_ranks_matches_single_node(tmp_path, warm_kernels):
    out = tmp_path / "g500.json"
    proc = run_cli(["graph500", "--scale", "10", "--roots", "4", "--ranks", "2", "--fanout", "2", "--quiet",
                    "--json", str(out)], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "num_mpi_processes:              2" in proc.stdout
    assert "communication:                  butterfly, fanout 2, 2 ranks" in proc.stdout
    assert proc.stdout.count("SCALE:") == 1                       # rank 0 prints, once
    d = json.loads(out.read_text())
    local = run_benchmark(Graph500Config(scale=10, nroots=4), LocalEngine(), progress=False)
    assert d["roots"] == local.roots and d["nedges"] == local.nedges
    assert d["engine"]["engine"] == "mpi-1d-butterfly" and d["engine"]["ranks"] == 2
    for s in d["searches"]:
        c = s["communication"]
        assert c["exchange"] == "butterfly" and c["fanout"] == 2
        for lv, per in zip(s["levels"], c["levels"]):
            assert len(per["messages"]) == 2 and len(per["bytes"]) == 2
            assert sum(per["messages"]) == lv["messages"] == 2       # one butterfly round of 2 messages
    assert d["communication"]["messages_per_search"] > 0
    assert d["graph"]["construction_communication"]["exchange"]["bytes"] > 0


def test_graph500_under_mpiexec_defaults_to_1d(warm_kernels):
    proc, _ = run_mpi(3, ["-m", "breadth", "graph500", "--scale", "9", "--roots", "3", "--exchange", "alltoall",
                          "--quiet"], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "num_mpi_processes:              3" in proc.stdout and "alltoall, 3 ranks" in proc.stdout


@pytest.fixture(scope="module")
def graph_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("graphs")
    g = save_kronecker_files(d, 11, seed=9)
    (d / "k.el").write_text("0 1\n1 2\n")
    return d, g


def test_bfs_ranks_on_native_file_writes_global_arrays(graph_files, tmp_path, warm_kernels):
    d, g = graph_files
    root = int(np.argmax(g.degree()))
    depth_file, parent_file = tmp_path / "d.npy", tmp_path / "p.npy"
    proc = run_cli(["bfs", str(d / "k.npz"), "--root", str(root), "--ranks", "3", "--validate",
                    "--out", str(depth_file), "--parents", str(parent_file)], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # --partition auto (the default with --ranks) picked a registered layout and says which
    assert "ranks=3 exchange=" in proc.stdout and "validated" in proc.stdout and "auto layout:" in proc.stdout
    depth, parent = np.load(depth_file), np.load(parent_file)
    assert np.array_equal(depth, breadth.bfs(g, root).depth)
    breadth.validate(g, root, parent, depth)


def test_bfs_ranks_on_graph500_pairs_json(graph_files, warm_kernels):
    d, g = graph_files
    root = int(np.argmax(g.degree()))
    proc = run_cli(["bfs", str(d / "k.g500"), "--root", str(root), "--ranks", "2", "--exchange", "alltoall",
                    "--json"], timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    s = json.loads(proc.stdout)
    ref = breadth.bfs(g, root)
    assert s["reached"] == ref.num_reached and s["max_depth"] == ref.max_depth
    assert s["communication"]["exchange"] == "alltoall" and len(s["communication"]["per_rank"]["bytes"]) == 2
    assert s["graph"]["edges"] == g.num_edges


@pytest.mark.parametrize("extra,needle", [
    (["k.el", "--root", "0"], "convert"),
    (["k.npz", "--root", "999999"], "does not exist"),
    (["missing.npz", "--root", "0"], "no such file"),
    (["k.npz", "--root", "0", "--threads", "100000"], "--threads must be an integer between 1 and"),
])
def test_bfs_ranks_bad_input_one_line(graph_files, extra, needle, warm_kernels):
    d, _ = graph_files
    proc = run_cli(["bfs", os.path.join(d, extra[0])] + extra[1:] + ["--ranks", "2"], timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert len(lines) == 1 and needle in lines[0], proc.stderr
