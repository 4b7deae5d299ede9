"""What a new user notices: empty files, binary bytes, unwritable outputs, plot suffixes, aligned columns,
memory-mapped reads, directed degree maxima, quick-start outputs ignored by git."""
import os
import re
import subprocess

import pytest

import breadth
from breadth.cli import main
from breadth.graph.io import read_with_stats

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_empty_edge_list_is_an_error_unless_allowed(tmp_path, capsys):
    (tmp_path / "e.txt").write_text("")
    for argv in (["bfs", tmp_path / "e.txt", "--root", "0"], ["closeness", tmp_path / "e.txt"]):
        rc, _, err = run(capsys, *argv)
        assert rc == 2 and len(err.strip().splitlines()) == 1 and "no edges and no vertices" in err


def test_unwritable_output_names_the_folder_and_the_reason(tmp_path, capsys):
    (tmp_path / "g.txt").write_text("0 1\n1 2\n")
    try:
        open("/proc/breadth-probe", "w").close()
        pytest.skip("needs a /proc that takes no new files")
    except OSError:
        pass
    rc, _, err = run(capsys, "bfs", tmp_path / "g.txt", "--root", "0", "--out", "/proc/r.csv")
    assert rc == 2 and "cannot create a file in the folder /proc: the folder takes no new files" in err


def test_unwritable_folder_permission(tmp_path, capsys):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    (tmp_path / "g.txt").write_text("0 1\n")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    rc, _, err = run(capsys, "convert", tmp_path / "g.txt", locked / "g.npz")
    assert rc == 2 and f"folder {locked}: permission denied" in err


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_graph500_plot_formats_and_where(tmp_path, capsys, suffix):
    pytest.importorskip("matplotlib")
    path = tmp_path / f"levels{suffix}"
    rc, out, err = run(capsys, "graph500", "--scale", "6", "--roots", "2", "--plot", path, "-q")
    assert rc == 0, err
    assert f"plot written to {path}" in out
    head = path.read_bytes()[:5]
    assert head == {".png": b"\x89PNG\r", ".svg": b"<?xml", ".pdf": b"%PDF-"}[suffix]


def test_graph500_plot_other_suffix_is_refused_before_the_run(tmp_path, capsys):
    rc, out, err = run(capsys, "graph500", "--scale", "6", "--roots", "2", "--plot", tmp_path / "p.txt")
    assert rc == 2 and len(err.strip().splitlines()) == 1 and ".png, .svg or .pdf" in err and out == ""
    assert os.listdir(tmp_path) == []


def test_closeness_top_columns_are_aligned(tmp_path, capsys):
    (tmp_path / "g.txt").write_text("a bb\nbb ccccccc\nccccccc d\n")
    rc, out, err = run(capsys, "closeness", tmp_path / "g.txt", "--top", "4")
    assert rc == 0, err
    rows = out.splitlines()[1:]
    assert rows[0].split() == ["rank", "vertex", "closeness"] and len(rows) == 5
    cells = {tuple(m.end() if k == 0 else m.start() for k, m in enumerate(re.finditer(r"\S+", row))) for row in rows}
    assert len(cells) == 1          # ranks end, vertices and scores start, at the same column in every row


def test_memory_mapped_read_has_no_speed_and_directed_maxima(tmp_path, capsys):
    star = breadth.Graph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], directed=True)     # out-max 3, in-max 2
    breadth.save(star, tmp_path / "s.npz")
    rc, out, _ = run(capsys, "info", tmp_path / "s.npz")
    assert rc == 0 and "memory-mapped (no parsing)" in out and "MB/s" not in out
    (tmp_path / "s.txt").write_text("# Directed graph\n0 1\n0 2\n0 3\n1 2\n")
    for bounded in ([], ["--spill-dir", tmp_path]):
        rc, out, _ = run(capsys, "convert", tmp_path / "s.txt", tmp_path / "o.npz", *bounded)
        assert rc == 0 and "max out-degree 3, max in-degree 2" in out
    _, stats = read_with_stats(tmp_path / "s.npz")
    assert stats.mb_per_s is None and "MB/s" not in stats.summary()


def test_quick_start_outputs_are_ignored_by_git():
    names = ["result.csv", "web-Google.txt.gz", "k16.npz", "web.npz", "levels.png", "run.json", "scores.csv"]
    proc = subprocess.run(["git", "check-ignore", *names], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode == 128:
        pytest.skip("not a git checkout")
    assert sorted(proc.stdout.split()) == sorted(names)
