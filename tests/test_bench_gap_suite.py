"""bench/gap_suite.py: its graph files read back exactly, and a --quick run completes.

GAP itself is not part of the project; the run against it happens when a GAP ``bfs``
binary is named by ``$GAP_BFS`` (or sits at /work/gap/bfs), and is skipped otherwise.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import breadth

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import suite_graphs as sg  # noqa: E402

GAP = os.environ.get("GAP_BFS", "/work/gap/bfs")


def read_sg(path):
    """An independent reader of GAP's .sg layout (the inverse of sg.write_sg)."""
    raw = Path(path).read_bytes()
    directed = bool(raw[0])
    arcs, n = np.frombuffer(raw, dtype=np.int64, count=2, offset=1)
    pos = 17
    parts = []
    for _ in range(2 if directed else 1):
        indptr = np.frombuffer(raw, dtype=np.int64, count=n + 1, offset=pos)
        pos += 8 * (n + 1)
        indices = np.frombuffer(raw, dtype=np.int32, count=arcs, offset=pos)
        pos += 4 * arcs
        parts.append((indptr, indices))
    assert pos == len(raw)
    return directed, int(n), parts


@pytest.mark.parametrize("kind", sg.KINDS)
def test_generators_and_sg_roundtrip(kind, tmp_path):
    src, dst, n, directed = sg.make(kind, 8, seed=3, side=12)
    assert src.shape == dst.shape and src.dtype == np.int64
    assert src.min() >= 0 and max(src.max(), dst.max()) < n
    g = breadth.Graph.from_edges(src, dst, n, directed=directed)
    sg.write_sg(tmp_path / "g.sg", g)
    d, n2, parts = read_sg(tmp_path / "g.sg")
    assert (d, n2) == (directed, n)
    np.testing.assert_array_equal(parts[0][0], g.indptr)
    np.testing.assert_array_equal(parts[0][1], g.indices)
    if directed:
        np.testing.assert_array_equal(parts[1][0], g.in_indptr)
        np.testing.assert_array_equal(parts[1][1], g.in_indices)
    cand = sg.root_candidates(kind, g)
    assert cand.size and (g.out_degree()[cand] > 0).all()


def test_el_text_matches_edges(tmp_path):
    rng = np.random.default_rng(0)
    src = rng.integers(0, 10**9, 5000)
    dst = rng.integers(0, 10**9, 5000)
    src[:3] = [0, 9, 10]
    dst[:3] = [0, 99, 1000000000]
    sg.write_el(tmp_path / "g.el", src, dst)
    back = np.loadtxt(tmp_path / "g.el", dtype=np.int64)
    np.testing.assert_array_equal(back[:, 0], src)
    np.testing.assert_array_equal(back[:, 1], dst)


def run_suite(tmp_path, *extra):
    out = tmp_path / "rows.json"
    cmd = [sys.executable, str(BENCH / "gap_suite.py"), "--quick", "--threads", "1",
           "--workdir", str(tmp_path), "--json", str(out), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=BENCH)
    assert proc.returncode == 0, proc.stderr
    assert "## Summary" in proc.stdout
    return json.loads(out.read_text())


def test_quick_run_breadth_and_scipy(tmp_path):
    res = run_suite(tmp_path, "--peers", "scipy")
    assert res["threads"] == 1
    rows = res["rows"]
    assert [r["graph"].split("-")[0] for r in rows] == list(sg.KINDS)
    for r in rows:
        assert r["breadth"] > 0 and r["build"] > 0 and r["scipy"] > 0
        assert len(r["roots"]) == 2


@pytest.mark.skipif(not os.access(GAP, os.X_OK), reason="no GAP bfs binary ($GAP_BFS)")
def test_quick_run_against_gap(tmp_path):
    rows = run_suite(tmp_path, "--gap", GAP, "--build", "--kinds", "urand", "web")["rows"]
    for r in rows:
        assert r["gap"] > 0 and r["gap_build_squish"] >= 0
    assert (tmp_path / f"{rows[0]['graph']}-s7.sg").exists()
