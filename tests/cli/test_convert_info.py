"""``breadth convert`` and ``breadth info``: conversions, reports, and one-line errors with exit code 2."""
import gzip
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import breadth
from breadth.cli import main


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture
def snap(tmp_path):
    p = tmp_path / "web.txt"
    p.write_text("# Directed graph (each unordered pair of nodes is saved once): web.txt\n"
                 "# FromNodeId\tToNodeId\n10\t20\n20\t30\n30\t10\n30\t30\n40\t50\n")
    return p


def test_convert_chain_preserves_graph(tmp_path, capsys, snap):
    rc, out, err = run(capsys, "convert", snap, tmp_path / "a.npz", "--relabel")
    assert rc == 0
    assert "5 edges (directed)" not in out and "read  web.txt [edgelist]: 5 vertices, 4 edges (directed)" in out
    assert "1 self-loops removed" in out and "wrote a.npz [native]" in out
    g = breadth.read(tmp_path / "a.npz")
    assert g.vertex_ids.tolist() == [10, 20, 30, 40, 50]
    for name in ("b.mtx", "c.g500", "d.tsv.gz", "e.csv"):
        rc, _, _ = run(capsys, "convert", tmp_path / "a.npz", tmp_path / name, "-q")
        assert rc == 0
        back = breadth.read(tmp_path / name, directed=True, num_vertices=5 if name.endswith("g500") else None)
        assert np.array_equal(back.indptr, g.indptr) and np.array_equal(back.indices, g.indices)
    rc, _, _ = run(capsys, "convert", tmp_path / "a.npz", tmp_path / "orig.txt", "--original-ids", "-q")
    assert "30 10" in (tmp_path / "orig.txt").read_text()


def test_convert_json_and_format_overrides(tmp_path, capsys, snap):
    rc, out, _ = run(capsys, "convert", snap, tmp_path / "graph.dat", "--to", "graph500-packed", "--json")
    assert rc == 0
    report = json.loads(out)
    assert report["output"]["format"] == "graph500-packed" and report["input"]["tuples"] == 5
    assert report["input"]["directed"] is True
    rc, out, _ = run(capsys, "convert", tmp_path / "graph.dat", tmp_path / "g.el", "--from", "graph500-packed",
                     "--undirected", "--json")
    assert rc == 0 and json.loads(out)["input"]["directed"] is False


def test_info_reports(tmp_path, capsys):
    g = breadth.Graph.from_edges(np.arange(9), np.arange(1, 10), num_vertices=13)   # a path and 3 isolated
    breadth.write(g, tmp_path / "p.npz")
    rc, out, _ = run(capsys, "info", tmp_path / "p.npz")
    assert rc == 0
    assert "vertices     13" in out and "9 (undirected" in out
    assert "min 0, mean 1.38, max 2; 3 vertices with degree 0" in out
    assert "components   4; largest 10 vertices (76.9%); 3 isolated" in out
    assert "diameter     >= 9" in out
    rc, out, _ = run(capsys, "info", tmp_path / "p.npz", "--json")
    report = json.loads(out)
    assert report["components"]["count"] == 4 and report["diameter"]["lower_bound"] == 9
    hist = {(h["lo"], h["hi"]): h["count"] for h in report["degree"]["histogram"]}
    assert hist == {(0, 0): 3, (1, 1): 2, (2, 3): 8}
    assert report["memory"]["csr_bytes"] == g.nbytes


def test_info_directed_and_empty(tmp_path, capsys, snap):
    rc, out, _ = run(capsys, "info", snap, "--relabel", "--samples", "2")
    assert rc == 0 and "out-degree" in out and "in-degree" in out and "weakly connected" in out
    (tmp_path / "empty.txt").write_text("")
    rc, out, err = run(capsys, "info", tmp_path / "empty.txt")
    assert rc == 2 and "empty.txt: no edges and no vertices" in err and "--allow-empty" in err
    rc, out, _ = run(capsys, "info", tmp_path / "empty.txt", "--allow-empty")
    assert rc == 0 and "vertices     0" in out


def test_info_diameter_matches_networkx(tmp_path, capsys):
    nx = pytest.importorskip("networkx")
    G = nx.grid_2d_graph(6, 9)
    g = breadth.Graph.from_networkx(nx.convert_node_labels_to_integers(G))
    breadth.write(g, tmp_path / "grid.mtx")
    rc, out, _ = run(capsys, "info", tmp_path / "grid.mtx", "--json", "--samples", "3")
    assert json.loads(out)["diameter"]["lower_bound"] == nx.diameter(G) == 13   # exact on a grid


BAD_INPUTS = [
    ("garbage.txt", b"0 1\n1 \x89PNG\r\x1a\x00\x00\x00\rIHDR" + bytes(range(128, 255)) + b"\n", [],
     r"garbage\.txt: line 2: not a text edge list \(binary data\?\): '1 \\x89PNG\\r\\x1a\\x00\\x00\\x00\\rIHDR\\x80\.\.\.'$"),
    ("neg.txt", b"0 1\n2 -3\n", [], r"neg\.txt: line 2: negative vertex id -3"),
    ("onecol.csv", b"0,1\n1,2\n7\n", [], r"onecol\.csv: line 3: only one column"),
    ("beyond.txt", b"0 1\n1 8\n", ["--vertices", "5"], r"beyond\.txt: line 2: vertex id 8 is beyond the "
                                                        r"declared vertex count 5"),
    ("trunc.g500", b"\0" * 20, [], r"trunc\.g500: truncated binary file"),
    ("badhdr.mtx", b"%%MatrixMarket matrix cordinate real general\n2 2 1\n1 2 1\n", [],
     r"badhdr\.mtx: line 1: bad Matrix Market header"),
    ("badgz.txt.gz", gzip.compress(b"".join(b"%d %d\n" % (i * 7919 % 10007, i) for i in range(5000)))[:9000],
     [], r"badgz\.txt\.gz: corrupt or truncated gzip"),
]


@pytest.mark.parametrize("name, data, extra, pattern", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
@pytest.mark.parametrize("command", ["convert", "info"])
def test_bad_input_one_line_exit_2_no_output(tmp_path, capsys, name, data, extra, pattern, command):
    src = tmp_path / name
    src.write_bytes(data)
    out_path = tmp_path / "out.npz"
    argv = [command, src] + ([out_path] if command == "convert" else []) + extra
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"breadth {command}: error: ")
    import re
    assert re.search(pattern, lines[0]), lines[0]
    assert "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == [name]          # no output, no temporary file


def test_missing_file_directory_and_empty(tmp_path, capsys):
    rc, _, err = run(capsys, "convert", tmp_path / "missing.txt", tmp_path / "o.npz")
    assert rc == 2 and "missing.txt: no such file" in err
    (tmp_path / "adir.txt").mkdir()
    rc, _, err = run(capsys, "info", tmp_path / "adir.txt")
    assert rc == 2 and "adir.txt: is a directory" in err
    rc, _, err = run(capsys, "convert", tmp_path / "missing.txt", tmp_path / "adir.txt")
    assert rc == 2
    (tmp_path / "empty.txt").write_bytes(b"")
    rc, out, err = run(capsys, "convert", tmp_path / "empty.txt", tmp_path / "empty.npz")
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "no edges and no vertices" in err
    assert not (tmp_path / "empty.npz").exists()
    for bounded in ([], ["--spill-dir", str(tmp_path)]):
        (tmp_path / "comments.txt").write_text("# nothing here\n")
        rc, _, err = run(capsys, "convert", tmp_path / "comments.txt", tmp_path / "c.npz", *bounded)
        assert rc == 2 and "no edges" in err and not (tmp_path / "c.npz").exists()
    rc, out, _ = run(capsys, "convert", tmp_path / "empty.txt", tmp_path / "empty.npz", "--allow-empty")
    assert rc == 0 and breadth.read(tmp_path / "empty.npz").num_vertices == 0
    rc, _, err = run(capsys, "convert", tmp_path / "empty.txt", tmp_path / "out.parquet")
    assert rc == 2 and "cannot tell the graph format" in err and not (tmp_path / "out.parquet").exists()
    rc, _, err = run(capsys, "convert", tmp_path / "empty.txt", tmp_path / "nodir" / "o.npz", "--allow-empty")
    assert rc == 2 and "does not exist" in err


def test_bfs_reads_text_and_writes_results(tmp_path, capsys, snap):
    """The lead's ``breadth bfs`` reads any format through breadth.read and writes CSV via write_result."""
    rc, out, err = run(capsys, "bfs", snap, "--root", "10", "--out", tmp_path / "r.csv")
    assert rc == 0, err
    assert (tmp_path / "r.csv").read_text().splitlines()[0] == "vertex,depth,parent"


def test_help_explains_options(capsys):
    for cmd in ("convert", "info"):
        with pytest.raises(SystemExit) as e:
            main([cmd, "-h"])
        assert e.value.code == 0
        text = capsys.readouterr().out
        for option in ("--from", "--directed", "--relabel", "--vertices", "--json"):
            assert option in text


def test_subprocess_error_has_no_traceback(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 -2\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    proc = subprocess.run([sys.executable, "-m", "breadth", "convert", str(bad), str(tmp_path / "o.npz")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"breadth convert: error: {bad}: line 2: negative vertex id -2"
    assert not (tmp_path / "o.npz").exists()


def test_info_bytes_per_edge(tmp_path, capsys):
    g = breadth.Graph.from_edges(np.arange(9), np.arange(1, 10), num_vertices=13)
    breadth.write(g, tmp_path / "p.npz")
    rc, out, _ = run(capsys, "info", tmp_path / "p.npz", "--json")
    memory = json.loads(out)["memory"]
    assert memory["bytes_per_edge"] == pytest.approx(g.nbytes / g.num_edges)
    rc, out, _ = run(capsys, "info", tmp_path / "p.npz")
    assert f"({g.nbytes / g.num_edges:.1f} bytes/edge, 4-byte ids)" in out


def _edges_file(path, lines=5000):
    rng = np.random.default_rng(7)
    s, d = rng.integers(0, 300, lines), rng.integers(0, 300, lines)
    s[:20] = d[:20]
    path.write_text("".join(f"{a}\t{b}\n" for a, b in zip(s, d)) + "1\t2\n1\t2\n")
    return path


@pytest.mark.parametrize("directed", [[], ["--directed"]])
def test_convert_bounded_memory_same_graph(tmp_path, capsys, monkeypatch, directed):
    src = _edges_file(tmp_path / "g.tsv")
    rc, _, _ = run(capsys, "convert", src, tmp_path / "mem.npz", *directed, "-q")
    assert rc == 0
    monkeypatch.setenv("BREADTH_AVAILABLE_MEMORY", "64K")      # the estimate no longer fits: spill
    rc, out, _ = run(capsys, "convert", src, tmp_path / "auto.npz", *directed, "--json")
    assert rc == 0 and json.loads(out)["output"]["bounded"] is True
    monkeypatch.delenv("BREADTH_AVAILABLE_MEMORY")
    rc, out, err = run(capsys, "convert", src, tmp_path / "asked.npz", *directed, "--spill-dir", tmp_path)
    assert rc == 0 and "(bounded memory, spilled to disk)" in out and "duplicates removed" in out
    rc, out, _ = run(capsys, "convert", src, tmp_path / "big.npz", *directed, "--memory", "8", "--json")
    assert rc == 0 and json.loads(out)["output"]["bounded"] is False
    want = breadth.read(tmp_path / "mem.npz")
    for name in ("auto.npz", "asked.npz", "big.npz"):
        got = breadth.read(tmp_path / name)
        assert got.directed == bool(directed)
        assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)
        assert np.array_equal(got.in_indices, want.in_indices)
    assert sorted(os.listdir(tmp_path)) == ["asked.npz", "auto.npz", "big.npz", "g.tsv", "mem.npz"]


@pytest.mark.parametrize("content, extra, pattern", [
    (b"1 2\n" * 3000 + b"3 -4\n", ["--spill-dir", "."], r"bad\.txt: line 3001: negative vertex id -4"),
    (b"1 2\n2 900000000000\n", ["--spill-dir", ".", "--relabel"], r"relabelling needs a map of ids"),
    (b"1 2\n", ["--spill-dir", ".", "--to", "mtx"], r"--spill-dir converts edge lists, Matrix Market and "
     r"Graph500 binary files to \.npz in bounded memory; not edgelist to mtx"),
    (b"1 2\n", ["--memory", "0"], r"--memory must be a positive number of GiB"),
    (b"1 2\n", ["--spill-dir", "nowhere"], r"nowhere: spill directory does not exist"),
])
def test_convert_bounded_errors(tmp_path, capsys, monkeypatch, content, extra, pattern):
    import re
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.txt").write_bytes(content)
    rc, _, err = run(capsys, "convert", "bad.txt", "out.npz", *extra)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1 and re.search(pattern, lines[0]), err
    assert sorted(os.listdir(tmp_path)) == ["bad.txt"]


def _binary_and_mtx(tmp_path):
    rng = np.random.default_rng(8)
    s, d = rng.integers(0, 300, 5000), rng.integers(0, 300, 5000)
    s[:20] = d[:20]
    (tmp_path / "g.g500").write_bytes(np.stack((s, d), axis=1).astype("<i8").tobytes())
    lines = "".join(f"{a + 1} {b + 1} 0.5\n" for a, b in zip(s, d))
    (tmp_path / "m.mtx").write_text(f"%%MatrixMarket matrix coordinate real general\n320 320 {s.size}\n{lines}")


@pytest.mark.parametrize("name, extra", [("g.g500", ["--vertices", "320"]), ("g.g500", ["--directed"]),
                                         ("m.mtx", []), ("m.mtx", ["--undirected"])])
def test_convert_bounded_binary_and_mtx(tmp_path, capsys, monkeypatch, name, extra):
    _binary_and_mtx(tmp_path)
    src = tmp_path / name
    rc, _, _ = run(capsys, "convert", src, tmp_path / "mem.npz", *extra, "-q")
    assert rc == 0
    monkeypatch.setenv("BREADTH_AVAILABLE_MEMORY", "64K")      # the estimate no longer fits: spill
    rc, out, _ = run(capsys, "convert", src, tmp_path / "auto.npz", *extra, "--json")
    report = json.loads(out)
    assert rc == 0 and report["output"]["bounded"] is True and report["input"]["tuples"] == 5000
    monkeypatch.delenv("BREADTH_AVAILABLE_MEMORY")
    rc, out, _ = run(capsys, "convert", src, tmp_path / "asked.npz", *extra, "--spill-dir", tmp_path)
    assert rc == 0 and "(bounded memory, spilled to disk)" in out and "self-loops removed" in out
    rc, out, _ = run(capsys, "convert", src, tmp_path / "big.npz", *extra, "--memory", "8", "--json")
    assert rc == 0 and json.loads(out)["output"]["bounded"] is False
    want = (tmp_path / "mem.npz").read_bytes()
    for out_name in ("auto.npz", "asked.npz", "big.npz"):
        assert (tmp_path / out_name).read_bytes() == want, out_name
    assert sorted(os.listdir(tmp_path)) == ["asked.npz", "auto.npz", "big.npz", "g.g500", "m.mtx", "mem.npz"]


@pytest.mark.parametrize("name, content, extra, pattern", [
    ("bad.g500", b"\x01" * 16 * 300 + b"\x02" * 5, [], r"bad\.g500: truncated binary file: 4805 bytes"),
    ("bad.g500", np.array([[1, 2]] * 300 + [[3, -4]], "<i8").tobytes(), [],
     r"bad\.g500: tuple 300 \(byte offset 4800\): negative vertex id: -4"),
    ("bad.g500", np.array([[1, 2], [3, 9]], "<i8").tobytes(), ["--vertices", "5"],
     r"beyond the declared vertex count 5"),
    ("bad.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 301\n" + b"1 2\n" * 300 + b"1 4\n", [],
     r"bad\.mtx: line 303: column index out of bounds \(Matrix Market ids are 1-based: 1\.\.3"),
    ("bad.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 5\n1 2\n", [], r"bad\.mtx: truncated file"),
    ("bad.mtx", b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n", ["--vertices", "4"],
     r"bad\.mtx: the header declares 3 vertices, not 4"),
])
def test_convert_bounded_binary_and_mtx_errors(tmp_path, capsys, monkeypatch, name, content, extra, pattern):
    import re
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(content)
    for how in (["--spill-dir", "."], []):                      # bounded, then in memory: the same line
        rc, _, err = run(capsys, "convert", name, "out.npz", *extra, *how)
        lines = err.strip().splitlines()
        assert rc == 2 and len(lines) == 1 and re.search(pattern, lines[0]), err
        assert sorted(os.listdir(tmp_path)) == [name]
