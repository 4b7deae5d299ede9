"""The documented exit codes: 0 ok, 2 bad input, 3 failed validation, 130 interrupted, 141 closed pipe."""
import importlib
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import breadth
from breadth.cli import EXIT_CODES, main
from breadth.errors import BreadthError, InputError, MemoryEstimateError, ValidationError
from mpi_launch import saved_kronecker

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def popen(*args, **kw):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.Popen([sys.executable, "-m", "breadth", *map(str, args)], env=env, text=True, **kw)


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    return saved_kronecker(tmp_path_factory, 12, seed=2)


def test_error_classes_carry_their_codes():
    assert EXIT_CODES[0] == "success" and {0, 1, 2, 3, 130, 141} == set(EXIT_CODES)
    assert BreadthError.exit_code == InputError.exit_code == MemoryEstimateError.exit_code == 2
    assert ValidationError("parent", 3, "x").exit_code == 3


def test_success_and_bad_input(graph_file, capsys):
    assert main(["bfs", str(graph_file), "--root", "1"]) == 0
    assert main(["bfs", str(graph_file), "--root", "99999"]) == 2
    assert main(["graph500", "--scale", "40", "--quiet"]) == 2      # too large for memory
    assert "GiB" in capsys.readouterr().err


def test_failed_validation_exits_3(graph_file, capsys, monkeypatch):
    """A tree that breaks a Graph500 rule (a validator that finds one) ends with code 3 and one line."""
    def broken(graph, root, parent, depth=None):
        raise ValidationError("tree-edge", 17, "parent[17] is not a neighbour")

    monkeypatch.setattr(importlib.import_module("breadth.graph500.validate"), "validate", broken)
    assert main(["bfs", str(graph_file), "--root", "1", "--validate"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["breadth bfs: error: validation failed [tree-edge] at vertex 17: parent[17] is not a neighbour"]


def test_keyboard_interrupt_exits_130(graph_file, capsys, monkeypatch):
    import breadth.search

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(breadth.search, "bfs", interrupted)
    assert main(["bfs", str(graph_file), "--root", "1"]) == 130
    assert capsys.readouterr().err.strip() == "breadth bfs: interrupted"


def test_ctrl_c_during_a_long_run_exits_130_and_resumes(tmp_path):
    """A real SIGINT while msbfs works through its groups: exit 130, then the same command resumes."""
    graph = tmp_path / "k15.npz"
    breadth.save(breadth.kronecker(15, seed=1), graph)
    ck = tmp_path / "ck"
    args = ["msbfs", graph, "--all", "--group-size", "64", "--words", "1", "--checkpoint", ck, "--json",
            tmp_path / "r.json"]
    # a terminal's Ctrl-C reaches a process whose SIGINT is at its default; a suite started in the
    # background (`cmd &` in a script) inherits SIGINT ignored, and Python keeps it ignored
    proc = popen(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if ck.is_dir() and any(p.name.startswith("group-") for p in ck.iterdir()):
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "breadth msbfs: interrupted" and "Traceback" not in err
    done = sum(p.name.startswith("group-") for p in ck.iterdir())
    assert 0 < done < 512
    proc = popen(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert f"resumed={done} " in out


def test_closed_pipe_exits_141(graph_file):
    """'breadth closeness ... | head -1': the reader goes away; no traceback, status 141."""
    proc = popen("closeness", graph_file, "--top", "4096", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=300)
    assert first.startswith("closeness sources=4096")
    assert proc.returncode == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_numpy_result_unaffected_by_codes(graph_file, tmp_path):
    """Exit 0 leaves complete outputs; exit 2 leaves none."""
    out = tmp_path / "d.npy"
    assert main(["bfs", str(graph_file), "--root", "1", "--out", str(out)]) == 0
    assert np.load(out).size == 4096
    bad = tmp_path / "e.npy"
    assert main(["bfs", str(graph_file), "--root", "-5", "--out", str(bad)]) == 2
    assert not bad.exists()
