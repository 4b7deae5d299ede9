"""A layout from a test package (``toy_layout``), registered by one line: ``-h``, ``breadth bfs
--partition toy`` on real mpiexec ranks, ``--partition auto`` and ``breadth plan`` list it and run it,
and no file under ``breadth/`` names it."""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
from scipy.sparse.csgraph import shortest_path

import breadth

sys.path.insert(0, os.path.dirname(__file__))
from mpi_helpers import ROOT, mpi_env, run_cli  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REGISTRATION = {"BREADTH_LAYOUTS": "toy_layout"}          # the one line that adds the layout
ENV = dict(REGISTRATION, PYTHONPATH=os.pathsep.join([ROOT, HERE]))


def _graph(tmp_path):
    g = breadth.kronecker(8, seed=3)
    path = tmp_path / "k8.npz"
    breadth.save(g, path)
    return g, path, int(np.argmax(g.degree()))


def _reference(g, root) -> np.ndarray:
    """Depths by scipy's unweighted shortest paths (-1: unreached)."""
    d = shortest_path(g.to_scipy(), unweighted=True, indices=root)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def test_only_the_registration_line_names_it():
    from breadth.distributed import registry

    assert registry.ENV in REGISTRATION and "toy" not in registry.partitions()
    named = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "breadth")):
        for name in files:
            if name.endswith((".py", ".md", ".toml")):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    if re.search(r"\btoy\b|toy_layout", f.read(), re.IGNORECASE):
                        named.append(name)
    assert named == []


def test_help_lists_it_and_checks_its_flag(tmp_path):
    proc = run_cli(["bfs", "-h"], **ENV)
    assert proc.returncode == 0, proc.stderr
    assert "--toy-weight" in proc.stdout and "toy:" in proc.stdout
    assert "--toy-weight" not in run_cli(["bfs", "-h"]).stdout
    missing = run_cli(["bfs", "-h"], BREADTH_LAYOUTS="no_such_layout")
    assert missing.returncode == 2 and missing.stderr.strip().splitlines() == [
        "breadth: error: BREADTH_LAYOUTS: no_such_layout is not a module with a LAYOUTS tuple "
        "(No module named 'no_such_layout')"]
    _, path, root = _graph(tmp_path)
    bad = run_cli(["bfs", str(path), "--root", str(root), "--ranks", "2", "--partition", "toy",
                   "--toy-weight", "rows"], **ENV)
    assert bad.returncode == 2 and "--toy-weight" in bad.stderr
    wrong = run_cli(["bfs", str(path), "--root", str(root), "--ranks", "2", "--partition", "1d",
                     "--toy-weight", "edges"], **ENV)
    assert wrong.returncode == 2 and "--toy-weight applies to --partition toy" in wrong.stderr


def test_bfs_partition_toy_runs_on_ranks(tmp_path, warm_kernels):
    g, path, root = _graph(tmp_path)
    depth, out = tmp_path / "d.npy", tmp_path / "r.json"
    proc = run_cli(["bfs", str(path), "--root", str(root), "--ranks", "2", "--partition", "toy", "--toy-weight",
                    "vertices", "--validate", "--out", str(depth), "--json", str(out)], timeout=300, **ENV)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    s = json.loads(out.read_text())
    part = s["graph"]["partition"]
    assert part["partition"] == "toy" and s["validation"]["passed"]
    assert part["bounds"] == [0, 128, 256]             # balanced by vertex count, as the flag asked
    assert np.array_equal(np.load(depth), _reference(g, root))


def _calibration_with_a_free_toy(tmp_path) -> dict:
    """The environment of a planner cache (``BREADTH_CACHE_DIR``) holding this machine's measurements,
    with the toy's own cost per level and per search nil: the planner then predicts it fastest, whatever
    the network probe of the moment says (its model has no communication). Measured, the toy's own
    cost is the 1D all-to-all search's, and on one host a cheaper engine (ButterFly's) can outweigh
    the few bytes the toy saves."""
    from breadth.distributed.planner import calibration

    cache = tmp_path / "planner-cache"
    cache.mkdir()
    mine = calibration.cache_path()                    # what breadth warmup measured here, if it ran
    if os.path.exists(mine):
        shutil.copy(mine, cache / os.path.basename(mine))
    env = dict(ENV, BREADTH_CACHE_DIR=str(cache))
    fill = subprocess.run([sys.executable, "-c", "from breadth.distributed.planner.calibration import "
                           "machine_costs; machine_costs()"], env=mpi_env(**env), cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert fill.returncode == 0, fill.stderr[-3000:]
    [written] = list(cache.glob("planner-*.json"))
    got = json.loads(written.read_text())
    for part in (got, got["uniform"]):
        part["engine"]["toy/alltoall"] = {k: 0.0 for k in part["engine"]["toy/alltoall"]}
    written.write_text(json.dumps(got))
    return env


def test_auto_lists_it_picks_it_and_runs_it(tmp_path, warm_kernels):
    g, path, root = _graph(tmp_path)
    depth, out = tmp_path / "d.npy", tmp_path / "r.json"
    proc = run_cli(["bfs", str(path), "--root", str(root), "--ranks", "2", "--validate", "--out", str(depth),
                    "--json", str(out)], timeout=300, **_calibration_with_a_free_toy(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    s = json.loads(out.read_text())
    plan = s["planner"]
    labels = [c["layout"] for c in plan["candidates"]]
    assert plan["chosen"] == "toy vertices" == labels[0] and "1d alltoall" in labels and len(labels) == 6
    assert s["graph"]["partition"]["partition"] == "toy"
    assert np.array_equal(np.load(depth), _reference(g, root))


def test_plan_lists_it():
    proc = run_cli(["plan", "--scale", "12", "--ranks", "4", "--hosts", "2", "--json", "-"], **ENV)
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    rows = {r["label"]: r for r in d["layouts"]}
    assert "toy vertices" in rows and rows["toy vertices"]["memory_per_rank"] > 0
    assert d["recommendation"] == "toy vertices" and "1d alltoall" in rows
