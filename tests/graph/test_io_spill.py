"""The bounded-memory edge list -> native conversion (graph/io/spill.py) against the in-memory one."""
import gzip
import os

import numpy as np
import pytest

import breadth
from breadth import InputError
from breadth.graph.io.spill import convert_edgelist, estimate_in_memory_bytes, needs_bounded
from spill_support import members, random_tuples, shrink


def edge_text(seed=3, m=6000, n=700, header=""):
    """Random edges with duplicates, self-loops and a hub (vertex 5), in shuffled order."""
    s, d = random_tuples(seed, m, n)
    lines = [f"{a} {b}" for a, b in zip(s, d)]
    return header + "# comment\n" + "\n".join(lines) + "\n"


@pytest.fixture
def small_buckets(monkeypatch):
    """Small sizes, so that small files take every path; yields the bucket counts of each build."""
    yield shrink(monkeypatch)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("relabel", [False, True])
def test_same_file_as_in_memory(tmp_path, small_buckets, directed, relabel):
    text = edge_text()
    if relabel:                            # sparse ids: every id times 10 plus 7
        text = "\n".join(" ".join(str(int(x) * 10 + 7) for x in line.split()) if line[:1].isdigit() else line
                         for line in text.split("\n"))
    src = tmp_path / "g.txt"
    src.write_text(text)
    breadth.write(breadth.read(src, directed=directed, relabel=relabel), tmp_path / "mem.npz")
    stats = convert_edgelist(src, tmp_path / "spill.npz", directed=directed, relabel=relabel, memory=1 << 18)
    assert len(small_buckets) == (2 if directed else 1) and min(small_buckets) >= 2
    want, want_names = members(tmp_path / "mem.npz")
    got, got_names = members(tmp_path / "spill.npz")
    assert got_names == want_names and got == want
    _, mem_stats = breadth.graph.io.read_with_stats(src, directed=directed, relabel=relabel)
    for key in ("tuples", "vertices", "edges", "self_loops", "duplicates", "max_degree", "directed", "relabelled"):
        assert getattr(stats, key) == getattr(mem_stats, key), key
    assert stats.self_loops >= 40 and stats.duplicates >= 400
    assert sorted(os.listdir(tmp_path)) == ["g.txt", "mem.npz", "spill.npz"]   # spill directory gone
    g = breadth.read(tmp_path / "spill.npz")
    assert g.directed == directed and g.num_edges == stats.edges


def test_declared_vertices_gzip_and_spill_dir(tmp_path, small_buckets):
    text = edge_text(seed=5, m=3000, n=300, header="# breadth: vertices=400 directed=0\n")
    src = tmp_path / "g.txt.gz"
    src.write_bytes(gzip.compress(text.encode()))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    convert_edgelist(src, tmp_path / "s.npz", spill_dir=scratch, memory=1 << 20)
    a, b = breadth.read(src), breadth.read(tmp_path / "s.npz")
    assert b.num_vertices == 400 and not b.directed
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
    assert os.listdir(scratch) == []
    with pytest.raises(InputError, match="spill directory does not exist"):
        convert_edgelist(src, tmp_path / "t.npz", spill_dir=tmp_path / "nowhere")


def test_comments_only_and_empty(tmp_path):
    src = tmp_path / "c.txt"
    src.write_text("# breadth: vertices=3 directed=1\n# nothing else\n")
    stats = convert_edgelist(src, tmp_path / "c.npz")
    g = breadth.read(tmp_path / "c.npz")
    assert g.num_vertices == 3 and g.directed and g.num_edges == 0 and stats.tuples == 0
    (tmp_path / "e.txt").write_bytes(b"")
    convert_edgelist(tmp_path / "e.txt", tmp_path / "e.npz")
    assert breadth.read(tmp_path / "e.npz").num_vertices == 0


def test_bad_line_mid_file_leaves_nothing(tmp_path, small_buckets):
    text = edge_text(m=4000)
    lines = text.split("\n")
    lines[3000] = "12 -13"
    src = tmp_path / "bad.txt"
    src.write_text("\n".join(lines))
    with pytest.raises(InputError, match=r"bad\.txt: line 3001: negative vertex id -13"):
        convert_edgelist(src, tmp_path / "out.npz", memory=1 << 20)
    assert sorted(os.listdir(tmp_path)) == ["bad.txt"]


def test_relabel_map_too_big_is_refused(tmp_path):
    src = tmp_path / "big.txt"
    src.write_text("1 2\n2 900000000000\n")
    with pytest.raises(InputError, match=r"relabelling needs a map of ids 0\.\.900000000000"):
        convert_edgelist(src, tmp_path / "o.npz", relabel=True, memory=1 << 30)
    assert sorted(os.listdir(tmp_path)) == ["big.txt"]


def test_estimate_and_choice(tmp_path):
    src = tmp_path / "g.txt"
    src.write_text(edge_text(m=20000))
    est = estimate_in_memory_bytes(src)
    assert 32 * 20000 <= est < 32 * 20000 * 10
    assert needs_bounded(src, memory=est) and not needs_bounded(src, memory=2 * est)
    (tmp_path / "z.txt.gz").write_bytes(b"\x1f\x8bnot gzip at all")
    assert estimate_in_memory_bytes(tmp_path / "z.txt.gz") == 0
