"""Matrix Market: 1-based ids, symmetry, value fields, header and body errors."""
import gzip

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import breadth
from breadth import InputError
from read_support import read_fails
from breadth.graph.io import read, read_with_stats, write


def mtx(tmp_path, text, name="m.mtx"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_one_based_general_is_directed(tmp_path):
    p = mtx(tmp_path, "%%MatrixMarket matrix coordinate pattern general\n% c\n4 4 3\n1 2\n2 3\n4 1\n")
    g = read(p)
    assert g.directed and g.num_vertices == 4
    assert g.neighbors(0).tolist() == [1] and g.neighbors(3).tolist() == [0]
    assert g.in_neighbors(0).tolist() == [3]


def test_symmetric_lower_triangle_is_undirected(tmp_path):
    p = mtx(tmp_path, "%%MatrixMarket matrix coordinate real symmetric\n5 5 4\n2 1 0.5\n3 2 1\n3 3 7\n5 1 -2\n")
    g, stats = read_with_stats(p)
    assert not g.directed and g.num_vertices == 5 and g.num_edges == 3
    assert g.neighbors(0).tolist() == [1, 4] and g.neighbors(3).tolist() == []
    assert stats.self_loops == 1
    d = read(p, directed=True)                   # both directions of each stored entry
    assert d.directed and d.neighbors(0).tolist() == [1, 4] and d.in_neighbors(0).tolist() == [1, 4]


def test_general_read_undirected_symmetrises(tmp_path):
    p = mtx(tmp_path, "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n3 2 0\n")
    g = read(p, directed=False)
    assert g.neighbors(1).tolist() == [0, 2]     # the explicit zero is a stored entry: an edge


@pytest.mark.parametrize("field", ["pattern", "real", "integer", "complex"])
def test_matches_scipy_mmread(tmp_path, field):
    rng = np.random.default_rng(3)
    a = sp.random(60, 60, density=0.05, random_state=rng, format="coo")
    if field == "complex":
        a = a * (1 + 1j)
    p = tmp_path / "m.mtx"
    scipy.io.mmwrite(p, a, field=None if field in ("real", "complex") else field)
    g = read(p, directed=True)
    coo = scipy.io.mmread(p).tocoo()            # structure, explicit zeros included
    ref = breadth.Graph.from_edges(coo.row, coo.col, num_vertices=60, directed=True)
    assert ref.num_edges == a.nnz - np.count_nonzero(a.row == a.col)   # minus self-loops
    assert np.array_equal(g.indptr, ref.indptr) and np.array_equal(g.indices, ref.indices)


def test_gzip_mtx(tmp_path):
    text = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n"
    p = tmp_path / "m.mtx.gz"
    p.write_bytes(gzip.compress(text.encode()))
    assert read(p).num_edges == 2


def test_written_file_is_valid_for_scipy(tmp_path):
    g = breadth.kronecker(7)
    write(g, tmp_path / "u.mtx")
    m = scipy.io.mmread(tmp_path / "u.mtx")
    assert (m != 0).nnz == g.num_arcs      # symmetric file expands to both directions
    head = (tmp_path / "u.mtx").read_text().splitlines()[0]
    assert head == "%%MatrixMarket matrix coordinate pattern symmetric"


@pytest.mark.parametrize("text, pattern, options", [
    ("%%MatrixMarket matrix coordnate pattern general\n3 3 1\n1 2\n", r"m\.mtx: line 1: bad Matrix Market header", {}),
    ("hello\n1 2\n", r"line 1: bad Matrix Market header", {}),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", r"line 1: .*'matrix coordinate'", {}),
    ("%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n", r"3x4; an adjacency matrix must be square", {}),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 4\n",
     r"m\.mtx: line 4: column index out of bounds \(Matrix Market ids are 1-based: 1\.\.3", {}),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n0 1\n", r"line 4: row index out of bounds", {}),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 x\n3 1\n", r"line 3: invalid integer value", {}),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n3 1\n", r"m\.mtx: truncated file", {}),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n", "declares 3 vertices, not 5",
     {"num_vertices": 5}),
])
def test_bad_files(tmp_path, text, pattern, options):
    read_fails(mtx(tmp_path, text), pattern, **options)


def test_relabel_drops_unused_rows(tmp_path):
    p = mtx(tmp_path, "%%MatrixMarket matrix coordinate pattern symmetric\n9 9 2\n5 2\n9 5\n")
    g = read(p, relabel=True)
    assert g.num_vertices == 3 and g.vertex_ids.tolist() == [1, 4, 8]
