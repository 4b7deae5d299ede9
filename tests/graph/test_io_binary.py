"""Graph500 binary tuples: int64 pairs and the reference generator's 48-bit packed layout."""
import numpy as np
import pytest

import breadth
from breadth import InputError
from breadth.graph.io import read, write
from breadth.graph.io.graph500bin import PACKED_DTYPE


def pack_reference(src, dst):
    """The reference packed_edge bytes, built field by field (v0_low, v1_low, high halves)."""
    out = bytearray()
    for u, v in zip(src, dst):
        high = ((u >> 32) & 0xFFFF) | (((v >> 32) & 0xFFFF) << 16)
        out += int(u & 0xFFFFFFFF).to_bytes(4, "little") + int(v & 0xFFFFFFFF).to_bytes(4, "little")
        out += int(high).to_bytes(4, "little")
    return bytes(out)


def test_int64_pairs_layout(tmp_path):
    pairs = np.array([[0, 5], [5, 2], [3, 3], [2, 0]], dtype="<i8")
    p = tmp_path / "e.g500"
    p.write_bytes(pairs.tobytes())
    g = read(p)
    assert not g.directed and g.num_vertices == 6
    assert g.neighbors(5).tolist() == [0, 2] and g.neighbors(3).tolist() == []
    assert g.build_info.self_loops == 1
    d = read(p, directed=True)
    assert d.neighbors(5).tolist() == [2] and d.in_neighbors(5).tolist() == [0]


def test_packed_layout_decodes_48_bit_ids(tmp_path):
    src = [0, 2**40 + 3, 7, 2**47 - 1]
    dst = [2**33, 1, 2**32 + 7, 0]
    p = tmp_path / "e.pk"
    p.write_bytes(pack_reference(src, dst))
    g = read(p, format="graph500-packed", relabel=True)
    assert g.vertex_ids.tolist() == sorted(set(src) | set(dst))
    rec = np.frombuffer(p.read_bytes(), dtype=PACKED_DTYPE)
    assert rec.size == 4


def test_packed_writer_matches_reference_bytes(tmp_path):
    g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3], directed=True)
    g.vertex_ids = np.array([5, 2**36 + 1, 2**45, 9], dtype=np.int64)
    write(g, tmp_path / "o.pk", format="graph500-packed", original_ids=True)
    ids = g.vertex_ids
    assert (tmp_path / "o.pk").read_bytes() == pack_reference(ids[[0, 1, 2]], ids[[1, 2, 3]])


def test_packed_negative_id_is_refused(tmp_path):
    p = tmp_path / "e.pk"
    p.write_bytes(pack_reference([1, 4], [2, 0]) + b"\xff" * 12)   # (-1, -1) as the third tuple
    with pytest.raises(InputError, match=r"e\.pk: tuple 2 \(byte offset 24\): negative vertex id: -1"):
        read(p, format="graph500-packed")


def test_negative_and_beyond_declared(tmp_path):
    p = tmp_path / "e.bin"
    p.write_bytes(np.array([[0, 1], [1, -7]], dtype="<i8").tobytes())
    with pytest.raises(InputError, match=r"e\.bin: tuple 1 \(byte offset 16\): negative vertex id: -7"):
        read(p)
    p.write_bytes(np.array([[0, 1], [1, 2], [9, 1]], dtype="<i8").tobytes())
    with pytest.raises(InputError, match=r"tuple 2 \(byte offset 32\): vertex id beyond the declared "
                                         r"vertex count 5: 9"):
        read(p, num_vertices=5)


def test_truncated_file(tmp_path):
    p = tmp_path / "e.g500"
    p.write_bytes(np.arange(6, dtype="<i8").tobytes()[:-3])
    with pytest.raises(InputError, match=r"e\.g500: truncated binary file: 45 bytes is not a whole number of "
                                         r"16-byte graph500 tuples"):
        read(p)
    p.write_bytes(np.arange(6, dtype="<i8").tobytes())        # 48 bytes: 3 pairs, or 4 packed tuples
    assert read(p).num_vertices == 6
    p.write_bytes(bytes(36))                                   # 36 bytes: only the packed form fits
    with pytest.raises(InputError, match="format='graph500-packed'"):
        read(p)


def test_packed_id_too_large_for_writer(tmp_path):
    g = breadth.Graph.from_edges([0], [1])
    g.vertex_ids = np.array([0, 2**47], dtype=np.int64)
    with pytest.raises(InputError, match="does not fit the 48-bit packed"):
        write(g, tmp_path / "o.pk", format="graph500-packed", original_ids=True)
    assert not (tmp_path / "o.pk").exists()


def test_kronecker_tuples_read_back(tmp_path):
    """A dump of generator tuples reads to the same graph the generator builds."""
    src, dst = breadth.kronecker_edges(9, 8)
    pairs = np.empty((src.size, 2), dtype="<i8")
    pairs[:, 0], pairs[:, 1] = src, dst
    (tmp_path / "k.g500").write_bytes(pairs.tobytes())
    g = read(tmp_path / "k.g500", num_vertices=2**9)
    ref = breadth.Graph.from_edges(src, dst, num_vertices=2**9)
    assert np.array_equal(g.indptr, ref.indptr) and np.array_equal(g.indices, ref.indices)
