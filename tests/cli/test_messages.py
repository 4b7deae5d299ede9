"""The CLI's side of library messages: API parameter names become flags; library log records reach stderr."""
import logging
import sys

import pytest

import breadth
from breadth.cli import main
from breadth.cli.messages import library_logging, translate


@pytest.mark.parametrize("api,cli", [
    ("x: cannot tell the graph format from the extension '.q'; pass format= one of edgelist, mtx",
     "x: cannot tell the graph format from the extension '.q'; pass --from/--to one of edgelist, mtx"),
    ("g.g500: Graph500 binaries carry no vertex count; read it back with num_vertices=12 to keep the isolated "
     "vertices at the end", "g.g500: Graph500 binaries carry no vertex count; read it back with --vertices 12 to "
                            "keep the isolated vertices at the end"),
    ("original-id mapping is kept only by .npz (or pass original_ids=True)",
     "original-id mapping is kept only by .npz (or pass --original-ids)"),
    ("no directedness declared; read as undirected (directed=True for a directed graph)",
     "no directedness declared; read as undirected (--directed for a directed graph)"),
    ("the ids are sparse); relabel=True numbers the used ids densely", "the ids are sparse); --relabel numbers "
                                                                       "the used ids densely"),
    ("g.npz: the file holds a directed graph; directed=False does not match",
     "g.npz: the file holds a directed graph; --undirected does not match"),
    ("e.bin: truncated ...; if it holds 12-byte tuples, read it with format='graph500-packed'",
     "e.bin: truncated ...; if it holds 12-byte tuples, read it with --from graph500-packed"),
    ("max_depth must be a non-negative integer, got -1", "--max-depth must be a non-negative integer, got -1"),
    ("alpha and beta must be positive, got alpha=0.0, beta=18.0",
     "--alpha and --beta must be positive, got --alpha=0.0, --beta=18.0"),
    ("group size must be a positive integer, got 0", "--group-size must be a positive integer, got 0"),
    ("words must be a positive integer, got 0", "--words must be a positive integer, got 0"),
    ("root 7 does not exist (graph has 5 vertices: 0..4)", "root 7 does not exist (graph has 5 vertices: 0..4)"),
    ("an undirected graph", "an undirected graph"),
])
def test_translate(api, cli):
    assert translate(api) == cli


def _run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_notes_and_errors_name_flags(tmp_path, capsys):
    sparse = tmp_path / "s.txt"
    sparse.write_text("0 1\n1 5000\n")
    rc, _, err = _run(capsys, "convert", sparse, tmp_path / "s.g500")
    assert rc == 0
    assert "--relabel numbers the used ids densely" in err and "relabel=True" not in err
    assert "--directed for a directed graph" in err and "directed=True" not in err
    rc, _, err = _run(capsys, "convert", sparse, tmp_path / "s.weird")
    assert rc == 2 and "pass --from/--to one of" in err and "format=" not in err
    g = breadth.Graph.from_edges([0, 1], [1, 2], num_vertices=4)
    breadth.write(g, tmp_path / "g.npz")
    rc, _, err = _run(capsys, "convert", tmp_path / "g.npz", tmp_path / "g.bin")
    assert rc == 0 and "read it back with --vertices 4" in err
    rc, _, err = _run(capsys, "msbfs", tmp_path / "g.npz", "--all", "--group-size", "0")
    assert rc == 2 and err.strip() == "breadth msbfs: error: --group-size must be a positive integer, got 0"
    rc, _, err = _run(capsys, "bfs", tmp_path / "g.npz", "--root", "0", "--max-depth", "-1")
    assert rc == 2 and "--max-depth must be a non-negative integer" in err


@pytest.fixture
def header_csv(tmp_path):
    p = tmp_path / "h.csv"
    p.write_text("src,dst\n0,1\n1,2\n")
    return p


def test_read_summary_and_notes_on_a_terminal_only(header_csv, capsys, monkeypatch):
    rc, out, err = _run(capsys, "bfs", header_csv, "--root", "0")
    assert rc == 0 and "reached=3" in out and err == ""            # not a terminal: INFO stays hidden
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    rc, out, err = _run(capsys, "bfs", header_csv, "--root", "0")
    lines = err.splitlines()
    assert rc == 0 and lines[0].startswith("h.csv [edgelist]: 3 vertices, 2 edges (undirected)")
    assert "note: h.csv: line 1 'src,dst' skipped as a column header (the other lines hold numbers; " \
           "--no-header reads it as an edge)" in lines
    assert "note: h.csv: no directedness declared; read as undirected (--directed for a directed graph)" in lines


def test_warnings_always_shown_and_handler_removed(capsys):
    logger = logging.getLogger("breadth")
    before = (list(logger.handlers), logger.level, logger.propagate)
    with library_logging():
        logging.getLogger("breadth.somewhere").info("hidden off a terminal")
        logging.getLogger("breadth.somewhere").warning("pass format= one of x")
    assert capsys.readouterr().err == "pass --from/--to one of x\n"
    assert (list(logger.handlers), logger.level, logger.propagate) == before


def test_search_options_come_from_the_policy(capsys):
    from breadth.cli import build_parser
    from breadth.kernels.policy import ALGORITHMS, ALPHA, BETA

    parser = build_parser()
    for argv in (["bfs", "g", "--root", "0"], ["graph500", "--scale", "5"], ["msbfs", "g", "--all"],
                 ["closeness", "g"]):
        args = parser.parse_args(argv)
        assert (args.algorithm, args.alpha, args.beta) == ("do", ALPHA, BETA)
        for name in ALGORITHMS:
            assert parser.parse_args(argv + ["--algorithm", name]).algorithm == name
    with pytest.raises(SystemExit):
        parser.parse_args(["bfs", "g", "--root", "0", "--algorithm", "xx"])
