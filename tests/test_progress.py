"""breadth.progress: one helper for every progress bar; on a terminal only; off with --quiet / --json -."""
import os
import re

import numpy as np
import pytest

import breadth
from breadth import progress
from breadth.cli import main

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "breadth")


def test_wish_rules(monkeypatch):
    monkeypatch.setattr(progress, "_isatty", lambda stream: False)
    assert progress.wanted(True) and not progress.wanted(None) and not progress.wanted(False)
    monkeypatch.setattr(progress, "_isatty", lambda stream: True)
    assert progress.wanted(None) and progress.wanted(True) and not progress.wanted(False)
    with progress.quiet():
        assert not progress.wanted(None) and not progress.wanted(True)
        with progress.quiet(False):
            assert progress.is_quiet()
    assert not progress.is_quiet() and progress.wanted(None)


def test_a_disabled_bar_is_silent_but_usable(capsys):
    with progress.quiet():
        with progress.bar(10, "work", True) as bar:
            bar.update(3)
            bar.set_description_str("more")
    assert bar.disable and capsys.readouterr().err == ""
    with progress.bar(4, "shown", True, unit="B") as bar:
        bar.update(4)
    assert "shown" in capsys.readouterr().err


def test_without_tqdm_a_bar_is_a_silent_stand_in(monkeypatch, capsys, caplog):
    monkeypatch.setitem(__import__("sys").modules, "tqdm", None)        # import tqdm raises ImportError
    monkeypatch.setattr(progress, "_WARNED", [False])
    with progress.bar(10, "work", False) as bar:
        bar.update(3)
        bar.set_description_str("more")
        bar.refresh()
    assert isinstance(bar, progress.NoBar) and bar.n == 3 and bar.disable
    assert not caplog.records
    with caplog.at_level("WARNING", logger="breadth.progress"):
        progress.bar(4, "shown", True).close()
        progress.bar(4, "again", True).close()
    assert [r.getMessage() for r in caplog.records] == ["no progress bars: tqdm is not installed (pip install tqdm)"]
    assert capsys.readouterr().err == ""


def test_tqdm_is_set_up_in_one_place():
    """No module but breadth/progress.py creates tqdm bars itself."""
    users = []
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                text = open(path).read()
                if re.search(r"^\s*(from tqdm|import tqdm)", text, re.M):
                    users.append(os.path.relpath(path, PACKAGE))
    assert users == ["progress.py"]


@pytest.fixture
def terminal(monkeypatch):
    """Pretend stderr is a terminal and show bars at once (no 1 s delay)."""
    monkeypatch.setattr(progress, "_isatty", lambda stream: True)
    monkeypatch.setattr(progress, "DELAY", 0.0)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("p")
    g = breadth.kronecker(9, seed=3)
    breadth.save(g, d / "k9.npz")
    breadth.write(g, d / "k9.txt")
    return d


COMMANDS = [
    (["convert", "{d}/k9.txt", "{d}/out.mtx"], "reading k9.txt"),
    (["generate", "kronecker", "--scale", "8", "-o", "{d}/gen.npz"], "generate kronecker"),
    (["graph500", "--scale", "8", "--roots", "4"], "graph500: BFS + validation"),
    (["msbfs", "{d}/k9.npz", "--sample", "64"], "groups"),
    (["closeness", "{d}/k9.npz", "--sample", "64"], "groups"),
    (["bfs", "{d}/k9.txt", "--root", "0"], "reading k9.txt"),
    (["info", "{d}/k9.txt"], "reading k9.txt"),
]


@pytest.mark.parametrize("argv,desc", COMMANDS, ids=[c[0][0] for c in COMMANDS])
def test_every_long_command_shows_the_bar_on_a_terminal_and_none_when_quiet(argv, desc, files, terminal, capsys):
    argv = [a.format(d=files) for a in argv]
    assert main(argv) == 0
    assert desc in capsys.readouterr().err
    assert main(argv + ["--quiet"]) == 0
    assert desc not in capsys.readouterr().err
    if argv[0] not in ("generate", "graph500"):
        assert main(argv + ["--json"]) == 0          # JSON on stdout: nothing else on the terminal
        out, err = capsys.readouterr()
        assert desc not in err and out.lstrip().startswith("{")


def test_no_bar_when_stderr_is_piped(files, capsys, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    assert main(["convert", str(files / "k9.txt"), str(files / "again.npz")]) == 0
    assert "reading" not in capsys.readouterr().err
    np.testing.assert_array_equal(breadth.load(files / "again.npz").indptr, breadth.load(files / "k9.npz").indptr)


def test_counts_are_integers_below_the_scaled_range():
    import io

    for total, done, shown in ((128, 50, "50/128"), (128, 121, "121/128"), (3_000_000, 1_500_000, "1.50M/3.00M")):
        with progress.bar(total, "work", True) as b:
            b.fp = io.StringIO()
            b.update(done)
            assert shown in str(b), str(b)
