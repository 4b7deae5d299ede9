"""bench/gap_levels.py: its .sg reader gives back the graph the suite wrote, and a run against
GAP prints a row per level (skipped without a GAP ``bfs`` binary: ``$GAP_BFS`` or /work/gap/bfs)."""
import os
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import breadth

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import gap_levels  # noqa: E402
import suite_graphs as sg  # noqa: E402

GAP = os.environ.get("GAP_BFS", "/work/gap/bfs")


@pytest.mark.parametrize("directed", [False, True])
def test_read_sg_gives_back_the_written_graph(tmp_path, directed):
    s, d = breadth.kronecker_edges(10, 8, 3)
    g = breadth.Graph.from_edges(s, d, 1 << 10, directed=directed)
    path = tmp_path / "g.sg"
    sg.write_sg(path, g)
    h = gap_levels.read_sg(path)
    assert h.directed == directed
    np.testing.assert_array_equal(h.indptr, g.indptr)
    np.testing.assert_array_equal(h.indices, g.indices)
    np.testing.assert_array_equal(h.in_indptr, g.in_indptr)
    np.testing.assert_array_equal(h.in_indices, g.in_indices)
    root = int(np.argmax(g.out_degree()))
    np.testing.assert_array_equal(breadth.bfs(h, root).depth, breadth.bfs(g, root).depth)


@pytest.mark.skipif(not os.access(GAP, os.X_OK), reason="no GAP bfs binary")
def test_levels_against_gap(tmp_path, capsys):
    g = breadth.kronecker(12, seed=5)
    path = tmp_path / "k12.sg"
    sg.write_sg(path, g)
    threads = numba.get_num_threads()
    try:
        gap_levels.main([str(path), "--gap", GAP, "--roots", "2", "--reps", "1", "--threads", "1"])
    finally:
        numba.set_num_threads(threads)
    out = capsys.readouterr().out
    assert "| 0 td |" in out and "**total**" in out and "GAP i" in out
