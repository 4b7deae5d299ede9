"""write_result: BFS depth/parent files in .csv, .npy and .npz, atomically."""
import csv

import numpy as np
import pytest

import breadth
from breadth import InputError
from breadth.graph.io import write_result


@pytest.fixture
def result():
    g = breadth.Graph.from_edges([0, 1, 3], [1, 2, 4], num_vertices=6)
    return g, breadth.bfs(g, 1)


def test_csv(tmp_path, result):
    g, r = result
    write_result(tmp_path / "r.csv", r.depth, r.parent)
    rows = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert [int(x["vertex"]) for x in rows] == list(range(6))
    assert [int(x["depth"]) for x in rows] == r.depth.tolist() == [1, 0, 1, -1, -1, -1]
    assert [int(x["parent"]) for x in rows] == r.parent.tolist()


def test_npy_and_npz(tmp_path, result):
    g, r = result
    write_result(tmp_path / "r.npy", r.depth, r.parent)
    table = np.load(tmp_path / "r.npy")
    assert table.shape == (6, 3) and table.dtype == np.int64
    assert np.array_equal(table[:, 1], r.depth) and np.array_equal(table[:, 2], r.parent)
    write_result(tmp_path / "r.npz", r.depth, r.parent)
    z = np.load(tmp_path / "r.npz")
    assert np.array_equal(z["depth"], r.depth) and np.array_equal(z["vertex"], np.arange(6))


def test_original_ids(tmp_path, result):
    g, r = result
    ids = np.array([10, 11, 12, 30, 40, 50])
    write_result(tmp_path / "r.csv", r.depth, r.parent, original_ids=ids)
    lines = (tmp_path / "r.csv").read_text().splitlines()
    assert lines == ["vertex,depth,parent", "10,1,11", "11,0,11", "12,1,11", "30,-1,-1", "40,-1,-1", "50,-1,-1"]


def test_bad_arguments_leave_nothing(tmp_path, result):
    g, r = result
    with pytest.raises(InputError, match="results are written as"):
        write_result(tmp_path / "r.txt", r.depth, r.parent)
    with pytest.raises(InputError, match="parent has 5 entries, expected 6"):
        write_result(tmp_path / "r.csv", r.depth, r.parent[:5])
    with pytest.raises(InputError, match="original_ids has 2 entries"):
        write_result(tmp_path / "r.csv", r.depth, r.parent, original_ids=[1, 2])
    with pytest.raises(InputError, match="directory .* does not exist"):
        write_result(tmp_path / "no" / "r.csv", r.depth, r.parent)
    assert list(tmp_path.iterdir()) == []


def test_large_csv_matches_numpy(tmp_path):
    rng = np.random.default_rng(0)
    n = 5_000_000 // 50
    depth = rng.integers(-1, 30, n)
    parent = rng.integers(-1, n, n)
    write_result(tmp_path / "r.csv", depth, parent)
    back = np.loadtxt(tmp_path / "r.csv", delimiter=",", skiprows=1, dtype=np.int64)
    assert np.array_equal(back[:, 1], depth) and np.array_equal(back[:, 2], parent)
