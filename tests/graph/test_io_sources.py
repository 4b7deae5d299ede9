"""The bounded-memory conversion of Graph500 binaries and Matrix Market files (graph/io/sources.py
feeding graph/io/spill.py) against the in-memory one: the same file, byte for byte, and the same errors."""
import gzip
import os

import numpy as np
import pytest

import breadth
from breadth import InputError
from breadth.graph.io import graph500bin, read_with_stats
from breadth.graph.io.sources import estimate_in_memory_bytes, needs_bounded
from breadth.graph.io.spill import convert_to_native
from spill_support import members, random_tuples, shrink

STATS = ("tuples", "vertices", "edges", "self_loops", "duplicates", "max_degree", "directed", "relabelled")


@pytest.fixture
def small(monkeypatch):
    """Small sizes, so that small files take every path; yields the bucket counts of each build."""
    yield shrink(monkeypatch)


def same_as_in_memory(tmp_path, src, fmt, buckets=None, **kw):
    """Convert ``src`` both ways; assert the same members, bytes and statistics; return the graph."""
    graph, mem_stats = read_with_stats(src, format=fmt, **kw)
    breadth.write(graph, tmp_path / "mem.npz")
    stats = convert_to_native(src, tmp_path / "spill.npz", format=fmt, memory=1 << 18, **kw)
    want, want_names = members(tmp_path / "mem.npz")
    got, got_names = members(tmp_path / "spill.npz")
    assert got_names == want_names and got == want
    for key in STATS:
        assert getattr(stats, key) == getattr(mem_stats, key), key
    assert stats.notes == mem_stats.notes and stats.format == fmt
    assert stats.file_bytes == os.path.getsize(src)
    if buckets is not None:
        assert len(buckets) == (2 if graph.directed else 1) and min(buckets) >= 2
        buckets.clear()
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".breadth-convert-")]
    return graph


def write_pairs(path, s, d, packed=False, gz=False):
    if packed:
        rec = np.empty(s.size, dtype=graph500bin.PACKED_DTYPE)
        rec["v0_low"], rec["v1_low"] = s & 0xFFFFFFFF, d & 0xFFFFFFFF
        rec["high"] = ((s >> 32) & 0xFFFF) | (((d >> 32) & 0xFFFF) << 16)
        data = rec.tobytes()
    else:
        data = np.stack((s, d), axis=1).astype("<i8").tobytes()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


@pytest.mark.parametrize("fmt", ["graph500", "graph500-packed"])
@pytest.mark.parametrize("directed", [False, True])
def test_graph500_same_file(tmp_path, small, fmt, directed):
    s, d = random_tuples()
    src = write_pairs(tmp_path / "g.bin", s, d, packed=fmt == "graph500-packed")
    assert os.path.getsize(src) > 10 * 1600                      # many chunks
    same_as_in_memory(tmp_path, src, fmt, small, directed=directed)
    g = same_as_in_memory(tmp_path, src, fmt, small, directed=directed, num_vertices=900)
    assert g.num_vertices == 900 and g.degree()[-1] == 0           # isolated tail vertices kept
    same_as_in_memory(tmp_path, src, fmt, small, directed=directed, relabel=True)


def test_graph500_sparse_ids_gzip_and_note(tmp_path, small):
    s, d = random_tuples(seed=4, m=3000, n=500)
    src = write_pairs(tmp_path / "g.bin.gz", s * 7 + 3, d * 7 + 3, gz=True)
    g = same_as_in_memory(tmp_path, src, "graph500", small)
    assert g.num_vertices == 7 * 499 + 4
    assert len(read_with_stats(src)[1].notes) == 1              # the sparse-id note, both ways
    same_as_in_memory(tmp_path, src, "graph500", small, relabel=True)
    empty = tmp_path / "e.bin"
    empty.write_bytes(b"")
    assert same_as_in_memory(tmp_path, empty, "graph500", num_vertices=4).num_vertices == 4


def error_of(fn, *args, **kw):
    with pytest.raises(InputError) as info:
        fn(*args, **kw)
    return str(info.value)


@pytest.mark.parametrize("case", ["odd", "odd-gz", "negative", "beyond", "packed-size"])
def test_graph500_errors_match(tmp_path, small, case):
    s, d = random_tuples(m=2000)
    s[1500] = -3 if case == "negative" else s[1500]
    fmt = "graph500"
    kw = {"num_vertices": 600} if case == "beyond" else {}
    src = write_pairs(tmp_path / "g.bin", s, d, gz=case == "odd-gz")
    if case.startswith("odd"):
        data = gzip.decompress(src.read_bytes()) if case == "odd-gz" else src.read_bytes()
        data += b"\x01\x02\x03"
        src.write_bytes(gzip.compress(data) if case == "odd-gz" else data)
    if case == "packed-size":
        fmt = "graph500-packed"
        src.write_bytes(src.read_bytes()[:16000])               # whole int64 pairs, not 12-byte tuples
    want = error_of(breadth.read, src, format=fmt, **kw)
    got = error_of(convert_to_native, src, tmp_path / "o.npz", format=fmt, memory=1 << 18, **kw)
    assert got == want
    assert {"odd": "truncated binary file", "odd-gz": "truncated binary file", "negative": "tuple 1500 ",
            "beyond": "beyond the declared vertex count 600", "packed-size": "truncated"}[case] in got
    assert sorted(os.listdir(tmp_path)) == ["g.bin"]


def mtx_text(s, d, n, symmetry="general", field="real", comments=3):
    rng = np.random.default_rng(1)
    head = [f"%%MatrixMarket matrix coordinate {field} {symmetry}"] + [f"% comment {i}" for i in range(comments)]
    head.append(f"{n} {n} {s.size}")
    if field == "pattern":
        body = [f"{a + 1} {b + 1}" for a, b in zip(s, d)]
    else:
        body = [f"{a + 1} {b + 1} {v:.3g}" for a, b, v in zip(s, d, rng.normal(size=s.size))]
    return "\n".join(head + body) + "\n"


@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
@pytest.mark.parametrize("directed", [None, False, True])
def test_mtx_same_file(tmp_path, small, symmetry, directed):
    s, d = random_tuples()
    if symmetry == "symmetric":
        s, d = np.maximum(s, d), np.minimum(s, d)                 # a lower triangle
    src = tmp_path / "m.mtx"
    src.write_text(mtx_text(s, d, 750, symmetry))
    assert os.path.getsize(src) > 10 * 4096                        # many blocks
    g = same_as_in_memory(tmp_path, src, "mtx", small, directed=directed)
    assert g.num_vertices == 750 and g.directed == (symmetry == "general" if directed is None else directed)
    same_as_in_memory(tmp_path, src, "mtx", small, directed=directed, relabel=True)


def test_mtx_pattern_gzip_and_empty(tmp_path, small):
    s, d = random_tuples(seed=9, m=3000, n=300)
    src = tmp_path / "m.mtx.gz"
    src.write_bytes(gzip.compress(mtx_text(s, d, 320, "general", "pattern", comments=0).encode()))
    assert same_as_in_memory(tmp_path, src, "mtx", num_vertices=320).num_vertices == 320
    src = tmp_path / "none.mtx"
    src.write_text("%%MatrixMarket matrix coordinate pattern symmetric\n5 5 0\n")
    assert same_as_in_memory(tmp_path, src, "mtx").num_vertices == 5


HEAD = "%%MatrixMarket matrix coordinate real general\n% c\n"


@pytest.mark.parametrize("body", [
    "3 4 0.5\n",            # column beyond n
    "4 1 1\n",              # row beyond n
    "0 2 1\n",              # row 0 (ids are 1-based)
    "2 0 1\n",              # column 0
    "1 x 1\n",              # not an integer
    "-1 2 1\n",             # negative
    "2\n",                  # one column
    "99999999999999999999 1 1\n",   # beyond int64
    "% a comment among the entries\n",
    "1,2,1\n",              # commas
])
def test_mtx_bad_entry_deep_in_file(tmp_path, small, body):
    lines = [f"{1 + i % 3} {1 + (i * 7) % 3} 1.5" for i in range(2000)]
    lines[1500] = body.strip()
    src = tmp_path / "m.mtx"
    src.write_text(HEAD + "3 3 2000\n" + "\n".join(lines) + "\n")
    want = error_of(breadth.read, src)
    got = error_of(convert_to_native, src, tmp_path / "o.npz", memory=1 << 18)
    assert got == want and "line 1504:" in got
    assert sorted(os.listdir(tmp_path)) == ["m.mtx"]


@pytest.mark.parametrize("text", [
    HEAD + "3 3 3\n1 2 1\n3 1 1\n",                      # fewer entries than declared
    HEAD + "3 3 1\n1 2 1\n3 1 1\n",                      # more
    "%%MatrixMarket matrix coordnate pattern general\n3 3 1\n1 2\n",
    "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
    "%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n",
])
def test_mtx_file_errors_match(tmp_path, text):
    src = tmp_path / "m.mtx"
    src.write_text(text)
    want = error_of(breadth.read, src)
    assert error_of(convert_to_native, src, tmp_path / "o.npz") == want
    assert error_of(convert_to_native, src, tmp_path / "o.npz", num_vertices=4).startswith(str(src))
    assert sorted(os.listdir(tmp_path)) == ["m.mtx"]


def test_estimates(tmp_path):
    s, d = random_tuples(m=20000)
    pairs = write_pairs(tmp_path / "g.bin", s, d)
    est = estimate_in_memory_bytes(pairs, format="graph500")
    assert 32 * 20000 <= est < 32 * 20000 * 10
    assert needs_bounded(pairs, memory=est, format="graph500") and not needs_bounded(pairs, memory=2 * est,
                                                                                      format="graph500")
    gz = write_pairs(tmp_path / "g.bin.gz", s, d, gz=True)
    assert estimate_in_memory_bytes(gz, format="graph500") == est
    m = tmp_path / "m.mtx"
    m.write_text(mtx_text(s, d, 700, "symmetric"))
    sym = estimate_in_memory_bytes(m, format="mtx")
    assert 32 * 20000 <= sym < estimate_in_memory_bytes(m, directed=True, format="mtx")
    m.write_text("%%MatrixMarket matrix coordinate real general\nno size line\n")
    assert estimate_in_memory_bytes(m, format="mtx") == 0
