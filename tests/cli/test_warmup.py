"""``breadth warmup`` and ``breadth.warmup()``: the common paths' kernels compiled (or loaded) ahead."""
import json

import pytest

import breadth
from breadth.cli import main
from breadth.errors import InputError
from breadth.warmup import STEPS


def test_warmup_runs_the_steps_asked_and_reports_them(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["warmup", "--only", "bfs", "multi_bfs", "--json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert list(rep["steps"]) == ["bfs", "multi_bfs"]
    assert rep["cache_dir"] == breadth.cache.cache_dir()
    for step in rep["steps"].values():
        assert step["seconds"] >= step["compile_seconds"] >= 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("warmup bfs seconds=") and lines[-1] == f"cache {rep['cache_dir']}"


def test_after_warmup_the_paths_compile_nothing():
    breadth.warmup(progress=False, steps=["bfs", "graph500"])
    with breadth.jit.Stopwatch() as clock:
        breadth.warmup(progress=False)
    assert set(STEPS) == {"bfs", "graph500", "multi_bfs", "files", "networkx"}
    with breadth.jit.Stopwatch() as again:
        r = breadth.bfs(breadth.kronecker(7, seed=2), 3)
        r.parent
    assert again.compile_seconds == 0.0 and r.compile_seconds == 0.0
    assert clock.seconds >= 0


def test_quiet_warmup_prints_nothing(capsys):
    assert main(["warmup", "--only", "bfs", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_unknown_step_is_an_input_error():
    with pytest.raises(InputError, match="unknown warmup step 'nope'"):
        breadth.warmup(steps=["nope"])
