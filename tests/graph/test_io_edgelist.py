"""Text edge lists: the vectorised parser against a plain Python reference, headers, errors."""
import gzip
import logging
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import breadth
from breadth import InputError
from read_support import read_fails
from breadth.graph.io import edgelist, read, read_with_stats, write
from breadth.graph.io.edgelist import read_edges
from breadth.graph.io.text import format_rows


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def reference_parse(text: str):
    """Line-by-line parse (the slow obvious way): comments #/%, separators space/tab/comma."""
    src, dst = [], []
    for line in text.split("\n"):
        fields = [f for f in re.split(r"[ \t,\r\x0b\x0c]+", line) if f]
        if not fields or fields[0][0] in "#%":
            continue
        src.append(int(fields[0]))
        dst.append(int(fields[1]))
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)


def write_text(tmp_path, text, name="g.txt"):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def same_graph(a, b):
    return (a.num_vertices == b.num_vertices and a.directed == b.directed
            and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.in_indptr, b.in_indptr) and np.array_equal(a.in_indices, b.in_indices))


# ---------------------------------------------------------------- accepted syntax
def test_snap_style_file(tmp_path):
    text = ("# Directed graph (each unordered pair of nodes is saved once): test.txt\n"
            "# Nodes: 4 Edges: 4\n# FromNodeId\tToNodeId\n"
            "0\t1\n1\t2\n\n2\t0\n7\t2\n")
    g = read(write_text(tmp_path, text))
    assert g.directed                       # SNAP header says so
    assert g.num_vertices == 8
    assert g.neighbors(7).tolist() == [2]
    assert g.in_neighbors(2).tolist() == [1, 7]


def test_snap_undirected_header_and_konect(tmp_path):
    g = read(write_text(tmp_path, "# Undirected graph: x\n0 1\n1 2\n"))
    assert not g.directed and g.num_edges == 2
    g = read(write_text(tmp_path, "% asym unweighted\n0 1\n1 2\n", "k.tsv"))
    assert g.directed
    g = read(write_text(tmp_path, "% sym unweighted\n0 1\n1 2\n", "k2.tsv"))
    assert not g.directed


def test_mixed_separators_crlf_no_final_newline(tmp_path):
    text = "0,1\r\n1 , 2\r\n  2\t\t3  \r\n% comment\r\n3,4"
    g = read(write_text(tmp_path, text, "g.csv"))
    assert g.num_edges == 4 and g.num_vertices == 5
    assert g.neighbors(2).tolist() == [1, 3]


def test_utf8_bom_is_skipped(tmp_path):
    g = read(write_text(tmp_path, b"\xef\xbb\xbf0 1\n1 2\n"))
    assert g.num_edges == 2


SUMMARY = "g.txt [edgelist]: 3 vertices, 2 edges (undirected), 0 self-loops removed"
NOTE = "note: g.txt: no directedness declared; read as undirected (directed=True for a directed graph)"


@pytest.mark.parametrize("verbose,level", [(True, logging.WARNING), (None, logging.INFO), (False, logging.DEBUG)])
def test_summary_and_notes_are_logged_not_printed(tmp_path, capsys, caplog, verbose, level):
    p = write_text(tmp_path, "0 1\n1 2\n")
    with caplog.at_level(logging.DEBUG, logger="breadth.graph.io"):
        read(p, progress=False, verbose=verbose)
    records = [r for r in caplog.records if r.name == "breadth.graph.io"]
    assert [r.levelno for r in records] == [level, level]
    assert records[0].getMessage().startswith(SUMMARY) and records[1].getMessage() == NOTE
    assert capsys.readouterr().err == ""
    read(p, progress=True, verbose=verbose)
    assert "reading g.txt" in capsys.readouterr().err          # progress bars still go to stderr


def test_verbose_summary_reaches_stderr_without_logging_setup(tmp_path):
    p = write_text(tmp_path, "0 1\n1 2\n")
    code = f"import breadth; breadth.read({str(p)!r}, progress=False, verbose=True); breadth.read({str(p)!r})"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith(SUMMARY) and lines[1] == NOTE   # the default (INFO) is silent


def test_third_column_ignored_with_note(tmp_path):
    g, stats = read_with_stats(write_text(tmp_path, "0 1 0.5\n1 2 3.25\n2 3\n"))
    assert g.num_edges == 3
    assert any("ignored" in n for n in stats.notes)
    _, stats = read_with_stats(write_text(tmp_path, "0 1\n1 2\n", "two.txt"))
    assert not any("ignored" in n for n in stats.notes)


def test_directedness_defaults_and_override(tmp_path):
    p = write_text(tmp_path, "0 1\n")
    g, stats = read_with_stats(p)
    assert not g.directed and any("undirected" in n for n in stats.notes)
    assert read(p, directed=True).directed
    header = write_text(tmp_path, "# Directed graph\n0 1\n", "d.txt")
    assert not read(header, directed=False).directed


def test_self_loops_and_duplicates_counted(tmp_path):
    g, stats = read_with_stats(write_text(tmp_path, "0 0\n0 1\n1 0\n0 1\n2 2\n"))
    assert g.num_edges == 1 and g.num_vertices == 3
    assert stats.self_loops == 2 and stats.duplicates == 2 and stats.tuples == 5
    assert "self-loops removed" in stats.summary() and "MB/s" in stats.summary()


def test_empty_and_comment_only_files_are_empty_graphs(tmp_path):
    for text in ("", "# nothing here\n", "\n\n   \n"):
        g = read(write_text(tmp_path, text))
        assert g.num_vertices == 0 and g.num_edges == 0
    g = read(write_text(tmp_path, ""), num_vertices=4)
    assert g.num_vertices == 4


def test_large_ids_near_int64(tmp_path):
    big = 2**62
    src, dst, _, _ = read_edges(write_text(tmp_path, f"{big} 1\n{2**63 - 2} 0\n"))
    assert src.tolist() == [big, 2**63 - 2]
    with pytest.raises(InputError, match="line 1: vertex id 9223372036854775807 is too large"):
        read_edges(write_text(tmp_path, f"{2**63 - 1} 0\n"))
    g = read(write_text(tmp_path, f"{big} 5\n{big + 7} 5\n"), relabel=True)
    assert g.vertex_ids.tolist() == [5, big, big + 7]


def test_relabel_keeps_original_ids(tmp_path):
    text = "10 20\n20 30\n30 10\n1000000 20\n"
    g = read(write_text(tmp_path, text), relabel=True)
    assert g.num_vertices == 4
    assert g.vertex_ids.tolist() == [10, 20, 30, 1000000]
    dense = read(write_text(tmp_path, "0 1\n1 2\n2 0\n3 1\n", "dense.txt"))
    assert same_graph(g, dense)


def test_sparse_ids_note_suggests_relabel(tmp_path):
    _, stats = read_with_stats(write_text(tmp_path, "0 1\n1 5000\n"))
    assert any("relabel" in n for n in stats.notes)
    _, stats = read_with_stats(write_text(tmp_path, "0 1\n1 5000\n"), relabel=True)
    assert not any("relabel=True" in n for n in stats.notes)


def test_gzip_detected_by_content(tmp_path):
    text = "0 1\n1 2\n2 3\n"
    a = tmp_path / "g.txt.gz"
    a.write_bytes(gzip.compress(text.encode()))
    b = tmp_path / "plain_name.txt"          # gzip data behind a .txt name still reads
    b.write_bytes(gzip.compress(text.encode()))
    assert read(a).num_edges == read(b).num_edges == 3


@pytest.mark.parametrize("chunk", [7, 16, 64])
def test_block_boundaries_and_line_numbers(tmp_path, monkeypatch, chunk):
    """Streaming in tiny blocks (a line may straddle two) parses the same and counts lines right."""
    rng = np.random.default_rng(chunk)
    src = rng.integers(0, 1000, 300)
    dst = rng.integers(0, 1000, 300)
    lines = [f"{s} {d}" for s, d in zip(src, dst)]
    lines.insert(50, "# a comment")
    lines.insert(120, "")
    text = "\n".join(lines) + "\n"
    monkeypatch.setattr(edgelist, "CHUNK_BYTES", chunk)
    s2, d2, _, _ = read_edges(write_text(tmp_path, text))
    assert np.array_equal(s2, src) and np.array_equal(d2, dst)
    bad = lines.copy()
    bad[250] = "12 -7"
    with pytest.raises(InputError, match=r"line 251: negative vertex id -7"):
        read_edges(write_text(tmp_path, "\n".join(bad) + "\n", "bad.txt"))
    named = lines.copy()
    named[250] = "12 x7"                  # a name after blocks of numbers: the file is read again as names
    declared = {}
    s3, d3, n, _ = read_edges(write_text(tmp_path, "\n".join(named) + "\n", "named.txt"), declared=declared)
    labels = declared["labels"]
    expect = [(f"{a}", f"{b}") for a, b in zip(src, dst)]
    expect[248] = ("12", "x7")            # lines 50 and 120 are a comment and a blank line
    assert n == labels.size and [(labels[a], labels[b]) for a, b in zip(s3, d3)] == expect


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**12), st.integers(0, 10**12),
                          st.sampled_from([" ", "\t", ",", "  ", " , ", "\t\t"]),
                          st.sampled_from(["", " 1.5", ",3", "\t-2.0e3", " "]),
                          st.sampled_from(["\n", "\r\n", "\n# c\n", "\n\n", "\n% x y z\n"])),
                max_size=40))
def test_parser_matches_reference(tmp_path_factory, rows):
    text = "".join(f"{s}{sep}{d}{extra}{end}" for s, d, sep, extra, end in rows)
    p = tmp_path_factory.mktemp("hyp") / "g.txt"
    p.write_bytes(text.encode())
    src, dst, _, _ = read_edges(p)
    rs, rd = reference_parse(text)
    assert np.array_equal(src, rs) and np.array_equal(dst, rd)


# ---------------------------------------------------------------- errors (file, line, problem)
@pytest.mark.parametrize("text, pattern, options", [
    ("0 1\n-4 2\n", r"line 2: negative vertex id -4", {}),
    ("0 1\n\n7\n", r"line 3: only one column", {}),
    ("# header\n0 1\n5 99999999999999999999\n", r"line 3: vertex id 9+\.\.\. does not fit in int64", {}),
    ("0 1\n1 2\n2 9\n", r"line 3: vertex id 9 is beyond the declared vertex count 5",
     {"num_vertices": 5}),
    ("# breadth: vertices=3 directed=0\n0 1\n1 3\n",
     r"g\.txt: line 3: vertex id 3 is beyond the declared vertex count 3", {}),
])
def test_bad_lines(tmp_path, text, pattern, options):
    read_fails(write_text(tmp_path, text), pattern, **options)


def test_missing_file_and_directory(tmp_path):
    read_fails(tmp_path / "nope.txt", r"nope\.txt: no such file")
    d = tmp_path / "dir.txt"
    d.mkdir()
    read_fails(d, r"dir\.txt: is a directory")


def test_corrupt_gzip(tmp_path):
    data = gzip.compress(b"".join(b"%d %d\n" % (i, i + 1) for i in range(20000)))
    p = tmp_path / "g.txt.gz"
    p.write_bytes(data[: len(data) // 2])
    read_fails(p, r"g\.txt\.gz: corrupt or truncated gzip")


# ---------------------------------------------------------------- writing
def test_format_rows_matches_python():
    rng = np.random.default_rng(0)
    cols = rng.integers(-(2**62), 2**62, size=(3, 500))
    cols[:, :5] = [[0, -1, 9, 10, -10]] * 3
    expected = "".join(",".join(str(x) for x in cols[:, i]) + "\n" for i in range(cols.shape[1]))
    assert format_rows(cols, ",").tobytes().decode() == expected
    assert format_rows(np.zeros((2, 0), np.int64), " ").size == 0


def test_written_file_is_plain_and_declares_vertices(tmp_path):
    g = breadth.Graph.from_edges([0, 1], [1, 2], num_vertices=6)
    p = tmp_path / "g.tsv"
    write(g, p)
    lines = p.read_text().splitlines()
    assert "# breadth: vertices=6 directed=0" in lines
    assert [ln for ln in lines if not ln.startswith("#")] == ["0\t1", "1\t2"]
    assert read(p).num_vertices == 6


def test_original_ids_written_on_request(tmp_path):
    g = read(write_text(tmp_path, "100 200\n200 300\n"), relabel=True)
    out = tmp_path / "orig.txt"
    notes = write(g, out, original_ids=True)
    assert notes == []
    assert [ln for ln in out.read_text().splitlines() if not ln.startswith("#")] == ["100 200", "200 300"]
    back = read(out, relabel=True)
    assert same_graph(back, g) and np.array_equal(back.vertex_ids, g.vertex_ids)
    dense = tmp_path / "dense.txt"
    notes = write(g, dense)
    assert any("dense ids" in n for n in notes)
    assert same_graph(read(dense), g)
    with pytest.raises(InputError, match="needs a relabelled graph"):
        write(breadth.Graph.from_edges([0], [1]), tmp_path / "x.txt", original_ids=True)


@pytest.mark.parametrize("text", ["src,dst\n0,1\n1,2\n", "# c\n\nsource target weight\n0 1 5\n1 2 7\n",
                                  '"from"\t"to"\n0\t1\n1\t2\n'])
def test_column_header_row_is_skipped_with_a_note(tmp_path, text):
    from breadth.graph.io import read_with_stats

    path = write_text(tmp_path, text, "h.csv")
    g, stats = read_with_stats(path)
    assert g.num_vertices == 3 and g.num_edges == 2 and g.vertex_ids is None
    line = 3 if text.startswith("#") else 1
    assert any(f"line {line} " in note and "skipped as a column header" in note for note in stats.notes)
    assert read(path, header=False).vertex_ids is not None       # --no-header: the first line is an edge


def test_a_name_in_a_later_line_makes_every_token_a_name(tmp_path):
    path = write_text(tmp_path, "src,dst\n0,1\nx,2\n", "h2.csv")
    g = read(path)
    assert sorted(g.vertex_ids.tolist()) == ["0", "1", "2", "dst", "src", "x"] and g.num_edges == 3
