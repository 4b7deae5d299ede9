"""write -> read gives the identical CSR, for every format, directed or not, gzip or not."""
import os

import numpy as np
import pytest

import breadth
from breadth import Graph
from breadth.graph.io import FORMATS, infer_format, read, write

SUFFIX = {"edgelist": [".el", ".txt", ".tsv", ".csv", ".txt.gz", ".csv.gz"], "mtx": [".mtx", ".mtx.gz"],
          "graph500": [".g500", ".bin", ".g500.gz"], "graph500-packed": [".g500p", ".g500p.gz"],
          "native": [".npz"]}
CASES = [(fmt, sfx) for fmt in FORMATS for sfx in SUFFIX[fmt]]
NEEDS_COUNT = ("graph500", "graph500-packed")   # binaries carry no vertex count


def assert_same(a: Graph, b: Graph):
    assert a.num_vertices == b.num_vertices
    assert a.directed == b.directed
    assert np.array_equal(a.indptr, b.indptr)
    assert np.array_equal(a.indices, b.indices)
    assert a.indices.dtype == b.indices.dtype
    if a.directed:
        assert np.array_equal(a.in_indptr, b.in_indptr)
        assert np.array_equal(a.in_indices, b.in_indices)


def graphs():
    rng = np.random.default_rng(7)
    src = rng.integers(0, 40, 300)
    dst = rng.integers(0, 40, 300)
    return {
        # vertices 40..49 are isolated: the end of the id range has no edges
        "isolated_tail": dict(src=src, dst=dst, n=50),
        "kronecker": dict(edges=breadth.kronecker_edges(8, 8), n=256),
        "path": dict(src=np.arange(99), dst=np.arange(1, 100), n=100),
        "single_vertex": dict(src=np.zeros(0, np.int64), dst=np.zeros(0, np.int64), n=1),
        "empty": dict(src=np.zeros(0, np.int64), dst=np.zeros(0, np.int64), n=0),
    }


def build(spec, directed):
    src, dst = spec["edges"] if "edges" in spec else (spec["src"], spec["dst"])
    return Graph.from_edges(src, dst, num_vertices=spec["n"], directed=directed)


@pytest.mark.parametrize("fmt, suffix", CASES)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("name", list(graphs()))
def test_roundtrip(tmp_path, fmt, suffix, directed, name):
    g = build(graphs()[name], directed)
    path = tmp_path / f"g{suffix}"
    explicit = fmt if fmt == "graph500-packed" else None
    write(g, path, format=explicit)
    kw = {"num_vertices": g.num_vertices} if fmt in NEEDS_COUNT else {}
    # edge lists and binaries do not record directedness unless breadth wrote a header
    back = read(path, format=explicit, directed=directed if fmt in NEEDS_COUNT else None, **kw)
    assert_same(g, back)
    assert [f for f in os.listdir(tmp_path) if f != path.name] == []   # no temporary left behind


def test_binary_without_count_ends_at_largest_id(tmp_path):
    g = build(graphs()["isolated_tail"], False)
    notes = write(g, tmp_path / "g.g500")
    assert any("num_vertices" in n for n in notes)
    back = read(tmp_path / "g.g500")
    assert back.num_vertices == int(g.indices.max()) + 1


def test_relabelled_graph_roundtrips_through_native(tmp_path):
    p = tmp_path / "snap.txt"
    p.write_text("5 17\n17 900\n900 5\n42 17\n")
    g = read(p, relabel=True)
    write(g, tmp_path / "g.npz")
    back = read(tmp_path / "g.npz")
    assert_same(g, back)
    assert back.vertex_ids.tolist() == [5, 17, 42, 900]
    # the binary form can carry the original ids too
    write(g, tmp_path / "g.g500", original_ids=True)
    again = read(tmp_path / "g.g500", relabel=True)
    assert_same(g, again) and again.vertex_ids.tolist() == [5, 17, 42, 900]


def test_infer_format():
    assert infer_format("a.TXT") == "edgelist"
    assert infer_format("a.csv.gz") == "edgelist"
    assert infer_format("a.mtx.gz") == "mtx"
    assert infer_format("a.bin") == "graph500"
    assert infer_format("a.npz") == "native"
    assert infer_format("anything", "packed") == "graph500-packed"
    with pytest.raises(breadth.InputError, match="cannot tell the graph format"):
        infer_format("a.xyz", for_write=True)
    with pytest.raises(breadth.InputError, match="unknown graph format"):
        infer_format("a.txt", "parquet")


def test_unknown_extension_sniffed_on_read(tmp_path):
    g = build(graphs()["path"], False)
    for fmt in ("mtx", "native", "edgelist"):
        p = tmp_path / f"noext_{fmt}"
        write(g, p, format=fmt)
        assert_same(g, read(p))
    junk = tmp_path / "junk.dat"
    junk.write_bytes(bytes(range(256)))
    with pytest.raises(breadth.InputError, match="cannot tell the graph format"):
        read(junk)


def test_index_dtype_forced_on_read(tmp_path):
    g = build(graphs()["path"], True)
    write(g, tmp_path / "g.txt")
    write(g, tmp_path / "g.npz")
    for name in ("g.txt", "g.npz"):
        wide = read(tmp_path / name, index_dtype=np.int64)
        assert wide.indices.dtype == np.int64 and wide.in_indices.dtype == np.int64
        assert np.array_equal(wide.indices, g.indices)
