"""Native .npz graph files: round trip, memory mapping, corrupt files."""
import numpy as np
import pytest

import breadth


@pytest.mark.parametrize("directed", [False, True])
def test_round_trip(tmp_path, directed):
    s, d = breadth.kronecker_edges(9, 8, 2)
    g = breadth.Graph.from_edges(s, d, 600, directed=directed)   # isolated tail 512..599
    path = tmp_path / "g.npz"
    breadth.save(g, path)
    h = breadth.load(path)
    assert h.directed == directed and h.num_vertices == 600
    for name in ("indptr", "indices", "in_indptr", "in_indices"):
        np.testing.assert_array_equal(getattr(g, name), getattr(h, name))
    assert isinstance(h.indices.base, np.memmap) or isinstance(h.indices, np.memmap)
    np.testing.assert_array_equal(breadth.bfs(h, int(s[0])).depth, breadth.bfs(g, int(s[0])).depth)


def test_suffix_added_and_empty_graph(tmp_path):
    g = breadth.Graph.from_edges([], [], 0)
    breadth.save(g, tmp_path / "empty")
    h = breadth.load(tmp_path / "empty.npz")
    assert h.num_vertices == 0


def test_corrupt_files(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(breadth.InputError, match="not a valid"):
        breadth.load(bad)
    with pytest.raises(breadth.InputError, match="no such file"):
        breadth.load(tmp_path / "missing.npz")
    with pytest.raises(breadth.InputError, match="directory"):
        breadth.load(tmp_path)
    # structurally broken CSR
    np.savez(tmp_path / "broken.npz", indptr=np.array([0, 5], dtype=np.int64),
             indices=np.array([0], dtype=np.int32), meta=np.array([1, 0]))
    with pytest.raises(breadth.InputError, match="corrupt"):
        breadth.load(tmp_path / "broken.npz")
    # out-of-range neighbour id
    np.savez(tmp_path / "range.npz", indptr=np.array([0, 1], dtype=np.int64),
             indices=np.array([7], dtype=np.int32), meta=np.array([1, 0]))
    with pytest.raises(breadth.InputError, match="out of range"):
        breadth.load(tmp_path / "range.npz")
    # truncated archive
    g = breadth.kronecker(8)
    breadth.save(g, tmp_path / "t.npz")
    raw = (tmp_path / "t.npz").read_bytes()
    (tmp_path / "trunc.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(breadth.InputError):
        breadth.load(tmp_path / "trunc.npz")
