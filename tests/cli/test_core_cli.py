"""The generate / bfs / graph500 commands, their errors, and the numba cache."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import breadth
from breadth.cli import build_parser, main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_cli(*args, env=None):
    e = dict(os.environ, PYTHONPATH=ROOT)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "breadth", *args], capture_output=True, text=True,
                          env=e, timeout=300)


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("g") / "k10.npz"
    assert main(["generate", "kronecker", "--scale", "10", "-o", str(path)]) == 0
    return path


def test_help_explains_every_option():
    parser = build_parser()
    sub = parser._subparsers._group_actions[0]
    for name, p in sub.choices.items():
        for action in p._actions:
            if action.dest != "help":
                assert action.help, f"{name} {action.dest} has no help"


def test_bfs_outputs(graph_file, tmp_path, capsys):
    g = breadth.load(graph_file)
    root = int(np.argmax(g.degree()))
    out, par, js = tmp_path / "d.npy", tmp_path / "p.npy", tmp_path / "r.json"
    assert main(["bfs", str(graph_file), "--root", str(root), "--out", str(out), "--parents", str(par),
                 "--validate", "--json", str(js)]) == 0
    assert "validated" in capsys.readouterr().out
    ref = breadth.bfs(g, root)
    np.testing.assert_array_equal(np.load(out), ref.depth)
    breadth.validate(g, root, np.load(par))
    data = json.loads(js.read_text())
    assert data["reached"] == ref.num_reached and data["levels"][0]["frontier"] == 1
    csv = tmp_path / "d.csv"
    assert main(["bfs", str(graph_file), "--root", str(root), "--out", str(csv)]) == 0
    rows = np.loadtxt(csv, delimiter=",", skiprows=1, dtype=np.int64)
    np.testing.assert_array_equal(rows[:, 1], ref.depth)


def test_bfs_json_stdout_and_plot(graph_file, tmp_path, capsys):
    png = tmp_path / "levels.png"
    assert main(["bfs", str(graph_file), "--root", "1", "2", "--json", "--plot", str(png),
                 "--max-depth", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["roots"] == [1, 2] and data["max_depth"] <= 2
    assert png.stat().st_size > 1000


def test_graph500_streams_when_the_tuple_list_does_not_fit_and_both_runs_are_the_same(tmp_path, monkeypatch):
    runs = {}
    for flag in ("", "--stream", "--tuple-list"):
        js = tmp_path / f"run{flag}.json"
        assert main(["graph500", "--scale", "9", "--roots", "4", "--quiet", *([flag] if flag else []), "--json",
                     str(js)]) == 0
        runs[flag] = json.loads(js.read_text())
    assert runs[""]["engine"]["streaming"] is False           # the tuple list fits: the reference's way
    monkeypatch.setenv("BREADTH_AVAILABLE_MEMORY", "450K")   # too little for the tuple list, enough streamed
    js = tmp_path / "capped.json"
    assert main(["graph500", "--scale", "9", "--roots", "4", "--quiet", "--json", str(js)]) == 0
    capped = json.loads(js.read_text())
    assert capped["engine"]["streaming"] is True and capped["nedges"] == runs[""]["nedges"]
    a, b = runs["--stream"], runs["--tuple-list"]
    assert a["engine"]["streaming"] is True and b["engine"]["streaming"] is False
    assert a["roots"] == b["roots"] and a["nedges"] == b["nedges"] and a["graph"] == b["graph"]
    assert b["regeneration_time"] is None and a["regeneration_time"] is not None


def test_graph500_cli_json(tmp_path, capsys):
    js = tmp_path / "g500.json"
    assert main(["graph500", "--scale", "9", "--roots", "8", "--quiet", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "harmonic_mean_TEPS" in out and "NBFS:                           8" in out
    data = json.loads(js.read_text())
    assert data["NBFS"] == 8 and len(data["searches"]) == 8 and data["validated"]


@pytest.mark.parametrize("args,msg", [
    (["graph500", "--scale", "-1"], "scale must be >= 0"),
    (["graph500", "--scale", "39"], "GiB"),
    (["bfs", "{g}", "--root", "5000"], "does not exist"),
    (["bfs", "{bad}", "--root", "0"], "not a valid breadth graph"),
    (["bfs", "{missing}", "--root", "0"], "no such file"),
    (["generate", "kronecker", "--scale", "-2", "-o", "{tmp}/x.npz"], "scale"),
])
def test_bad_input_one_line_exit_2(args, msg, graph_file, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"\x00" * 100)
    subs = {"g": graph_file, "bad": bad, "missing": tmp_path / "nope.npz", "tmp": tmp_path}
    proc = run_cli(*[a.format(**subs) for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and msg in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_second_run_loads_kernels_from_cache(graph_file, tmp_path):
    code = (
        "import breadth, sys\n"
        "from breadth.kernels import direction_optimizing as do\n"
        f"g = breadth.load({str(graph_file)!r}); breadth.bfs(g, 1)\n"
        "print(sum(do.search.stats.cache_misses.values()), sum(do.search.stats.cache_hits.values()))\n"
    )
    env = dict(os.environ, PYTHONPATH=ROOT, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    m1, h1 = map(int, first.stdout.split())
    m2, h2 = map(int, second.stdout.split())
    assert m1 == 1 and h1 == 0    # compiled the first time (callees are linked into the driver)
    assert m2 == 0 and h2 == 1    # loaded from the on-disk cache the second time
