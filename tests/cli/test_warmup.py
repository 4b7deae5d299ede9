"""``breadth warmup`` and ``breadth.warmup()``: the common paths' kernels compiled (or loaded) ahead."""
import json
import os
import subprocess
import sys

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
    assert set(STEPS) == {"bfs", "graph500", "multi_bfs", "info", "files", "networkx", "planner"}
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


# ---------------------------------------------------------------- after a warmup, nothing compiles
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTE = "compiling breadth's kernels for this machine (first run only"


@pytest.fixture(scope="module")
def warmed(tmp_path_factory):
    """`breadth warmup` into an empty cache of its own (stderr not a terminal), then the README's and the
    guide's commands (tests/cli/warm_paths.py) with that cache, recording what numba compiled."""
    tmp = tmp_path_factory.mktemp("warm-paths")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(NUMBA_CACHE_DIR=str(tmp / "cache"), PYTHONPATH=ROOT)
    warm = subprocess.run([sys.executable, "-m", "breadth", "warmup"], env=env, cwd=tmp, capture_output=True,
                          text=True, timeout=3600, stdin=subprocess.DEVNULL)
    assert warm.returncode == 0, warm.stderr[-4000:]
    work = tmp / "work"
    work.mkdir()
    paths = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "cli", "warm_paths.py"), str(work)],
                           env=env, cwd=tmp, capture_output=True, text=True, timeout=1800,
                           stdin=subprocess.DEVNULL)
    assert paths.returncode == 0, paths.stderr[-4000:]
    return {"warmup": warm, "compiled": json.loads(paths.stdout.strip().splitlines()[-1])["compiled"]}


def test_warmup_into_an_empty_cache_says_so_once_on_stderr_that_is_not_a_terminal(warmed):
    err = warmed["warmup"].stderr
    assert err.count(NOTE) == 1 and err.strip().splitlines()[0].startswith(NOTE), err


def test_after_warmup_the_readme_and_guide_compile_nothing(warmed):
    compiled = "\n".join(f"{step}: {fn}{sig[:200]}" for step, fn, sig in warmed["compiled"])
    assert not warmed["compiled"], "compiled after warmup:\n" + compiled


# ---------------------------------------------------------------- the second process
def test_the_largest_step_runs_in_a_second_process_only_beside_other_steps(monkeypatch):
    from breadth.warmup import _aside

    assert _aside(["bfs", "multi_bfs", "planner"]) == ["multi_bfs"]
    assert _aside(["multi_bfs", "planner"]) == []          # nothing to run beside it (the planner runs alone)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert _aside(["bfs", "multi_bfs"]) == []               # one core


def test_a_failing_second_process_is_an_error_naming_its_steps():
    from breadth.warmup import _Aside

    with pytest.raises(RuntimeError, match=r"(?s)warmup step\(s\) nope failed in their own process \(exit 1\).*KeyError"):
        with _Aside(["nope"]) as other:
            other.result()
