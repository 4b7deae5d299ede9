"""``breadth graph500`` and ``breadth bfs`` with their ranks on different namespace hosts: under
mpiexec across the hosts, and through ``--ranks P --hostfile FILE`` started on host 1; the
results equal the single-node run and validate."""
import json
import sys

import numpy as np
import pytest

import breadth
from breadth.graph500 import Graph500Config, LocalEngine, run_benchmark

from helpers import ROOT, cli, env

pytestmark = pytest.mark.mpi


@pytest.fixture(scope="module")
def kron_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("graphs")
    g = breadth.kronecker(11, 8, seed=9)
    breadth.save(g, d / "k.npz")
    return d / "k.npz", g


@pytest.mark.parametrize("hosts,per_host,layout", [
    (3, 1, ["--partition", "1d", "--exchange", "alltoall"]),
    pytest.param(4, 2, ["--partition", "1d", "--exchange", "butterfly", "--fanout", "4"], marks=pytest.mark.slow),
    pytest.param(4, 1, ["--partition", "2d", "--exchange", "scan", "--grid", "2x2"], marks=pytest.mark.slow),
    pytest.param(3, 2, ["--partition", "delegates", "--threshold", "16"], marks=pytest.mark.slow),
], ids=["1d-alltoall", "1d-butterfly-f4", "2d-scan", "delegates"])
def test_graph500_across_hosts_matches_single_node(request, warm, tmp_path, hosts, per_host, layout):
    cluster = request.getfixturevalue(f"cluster{hosts}")
    out = tmp_path / "g500.json"
    proc = cli(cluster, ["graph500", "--scale", "10", "--roots", "4", "--device", "cpu", *layout, "--quiet",
                         "--json", str(out)], ranks_per_host=per_host)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    P = hosts * per_host
    assert f"num_mpi_processes:              {P}" in proc.stdout
    d = json.loads(out.read_text())
    local = run_benchmark(Graph500Config(scale=10, nroots=4), LocalEngine(), progress=False)
    assert d["roots"] == local.roots and d["nedges"] == local.nedges
    assert d["engine"]["ranks"] == P and d["engine"]["engine"].startswith(f"mpi-{layout[1]}")
    assert d["communication"]["bytes_per_search"] > 0


@pytest.mark.parametrize("hosts,layout", [
    (3, ["--partition", "2d", "--exchange", "fold", "--grid", "1x3"]),
    pytest.param(4, ["--partition", "1d", "--exchange", "butterfly", "--fanout", "2"], marks=pytest.mark.slow),
    pytest.param(4, ["--partition", "delegates", "--threshold", "auto"], marks=pytest.mark.slow),
], ids=["2d-fold", "1d-butterfly-f2", "delegates"])
def test_bfs_ranks_hostfile_from_host_1(request, warm, kron_file, tmp_path, hosts, layout):
    """``breadth bfs --ranks P --hostfile FILE`` run on host 1: breadth starts mpiexec itself, and the
    cluster's Open MPI settings (environment) take its ranks to the other hosts."""
    cluster = request.getfixturevalue(f"cluster{hosts}")
    path, g = kron_file
    root = int(np.argmax(g.degree()))
    depth_file, parent_file = tmp_path / "d.npy", tmp_path / "p.npy"
    proc = cluster.exec(1, [sys.executable, "-m", "breadth", "bfs", str(path), "--root", str(root),
                            "--ranks", str(hosts), "--hostfile", cluster.hostfile(), *layout, "--device", "cpu",
                            "--validate", "--out", str(depth_file), "--parents", str(parent_file)],
                        timeout=300, env=env(), cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"ranks={hosts}" in proc.stdout and "validated" in proc.stdout, proc.stdout
    depth, parent = np.load(depth_file), np.load(parent_file)
    assert np.array_equal(depth, breadth.bfs(g, root).depth)
    breadth.validate(g, root, parent, depth)
