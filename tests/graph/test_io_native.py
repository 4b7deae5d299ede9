"""breadth.read/write on the native .npz format: memory mapping, vertex_ids, corrupt files."""
import mmap
import zipfile

import numpy as np
import pytest

import breadth
from breadth import InputError
from breadth.graph import native
from breadth.graph.io import read, read_with_stats, write


def is_mapped(a) -> bool:
    while a is not None:
        if isinstance(a, mmap.mmap):
            return True
        a = getattr(a, "base", None)
    return False


def test_read_maps_and_reports(tmp_path):
    g = breadth.kronecker(8)
    write(g, tmp_path / "g.npz")
    h, stats = read_with_stats(tmp_path / "g.npz")
    assert is_mapped(h.indices) and is_mapped(h.indptr)
    assert stats.memory_mapped and "memory-mapped" in stats.summary()
    assert stats.vertices == g.num_vertices and stats.edges == g.num_edges
    assert stats.max_degree == int(np.diff(g.indptr).max())
    assert not is_mapped(read(tmp_path / "g.npz", mmap=False).indices)


def test_vertex_ids_saved_and_loaded(tmp_path):
    g = breadth.Graph.from_edges([0, 1], [1, 2])
    g.vertex_ids = np.array([10, 20, 99], dtype=np.int64)
    native.save(g, tmp_path / "a")               # native.save keeps them too (adds .npz)
    assert native.load(tmp_path / "a.npz").vertex_ids.tolist() == [10, 20, 99]
    write(g, tmp_path / "b.npz")
    with zipfile.ZipFile(tmp_path / "b.npz") as z:
        assert "vertex_ids.npy" in z.namelist()
    assert read(tmp_path / "b.npz").vertex_ids.tolist() == [10, 20, 99]


def test_bad_vertex_ids_refused():
    with pytest.raises(InputError, match="vertex_ids must be 3 integer ids"):
        breadth.Graph(np.array([0, 1, 2, 2]), np.array([1, 0], dtype=np.int32), vertex_ids=[1, 2])
    with pytest.raises(InputError, match="non-negative"):
        breadth.Graph(np.array([0, 1, 2]), np.array([1, 0], dtype=np.int32), vertex_ids=[-1, 2])


def test_directed_mismatch_and_relabel(tmp_path):
    g = breadth.Graph.from_edges([0, 5], [5, 9], num_vertices=12, directed=True)
    write(g, tmp_path / "d.npz")
    with pytest.raises(InputError, match="holds a directed graph"):
        read(tmp_path / "d.npz", directed=False)
    with pytest.raises(InputError, match="holds 12 vertices, not 3"):
        read(tmp_path / "d.npz", num_vertices=3)
    r = read(tmp_path / "d.npz", relabel=True)
    assert r.directed and r.vertex_ids.tolist() == [0, 5, 9]
    assert r.neighbors(1).tolist() == [2]


def test_corrupt_and_truncated_native(tmp_path):
    g = breadth.kronecker(6)
    write(g, tmp_path / "g.npz")
    data = (tmp_path / "g.npz").read_bytes()
    (tmp_path / "t.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"t\.npz: not a valid breadth graph file"):
        read(tmp_path / "t.npz")
    (tmp_path / "x.npz").write_bytes(b"PK\x03\x04 nonsense")
    with pytest.raises(InputError, match=r"x\.npz: not a valid breadth graph file"):
        read(tmp_path / "x.npz")
    np.savez(tmp_path / "other.npz", a=np.arange(3))
    with pytest.raises(InputError, match="not a breadth graph"):
        read(tmp_path / "other.npz")


def test_native_gz_refused(tmp_path):
    with pytest.raises(InputError, match="native files are not compressed"):
        write(breadth.kronecker(4), tmp_path / "g.npz.gz")
    assert list(tmp_path.iterdir()) == []


def test_empty_file_is_empty_graph(tmp_path):
    (tmp_path / "e.npz").write_bytes(b"")
    assert read(tmp_path / "e.npz").num_vertices == 0
