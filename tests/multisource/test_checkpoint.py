"""Checkpointed runs: resume after losing groups, refuse another run's directory, survive SIGKILL."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import breadth
from breadth.multisource import msbfs, multi_bfs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _same(a, b):
    for name in ("reached", "distance_sum", "harmonic", "eccentricity"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def _group_files(d):
    return sorted(f for f in os.listdir(d) if f.startswith("group-") and f.endswith(".npz"))


def test_resume_after_losing_groups(tmp_path):
    g = breadth.kronecker(10, seed=3)
    ck = tmp_path / "ck"
    full = msbfs(g, None, words=1, group_size=40, checkpoint=ck)
    files = _group_files(ck)
    assert len(files) == len(full.groups) == 26 and full.resumed == 0
    for f in files[::3]:
        os.unlink(ck / f)
    (ck / (files[1] + ".tmp999")).write_bytes(b"half a file")       # debris of a killed writer (old names)
    (ck / f".{files[2]}.k3x_9q2z.tmp").write_bytes(b"half a file")  # ... and of breadth.files.atomic_output
    again = msbfs(g, None, words=1, group_size=40, checkpoint=ck)
    assert again.resumed == 26 - len(files[::3])
    _same(full, again)
    assert not (ck / (files[1] + ".tmp999")).exists() and not (ck / f".{files[2]}.k3x_9q2z.tmp").exists()
    assert sorted(os.listdir(ck)) == sorted(files + ["manifest.json"])   # no temporary file left
    plain = msbfs(g, None, words=1, group_size=40)
    _same(full, plain)


def test_resume_keeps_depths(tmp_path):
    g = breadth.kronecker(9, seed=2)
    sources = np.arange(0, 512, 2)
    ck = tmp_path / "d"
    first = multi_bfs(g, sources, words=1, checkpoint=ck)
    os.unlink(ck / _group_files(ck)[0])
    second = multi_bfs(g, sources, words=1, checkpoint=ck)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, multi_bfs(g, sources))


def test_checkpoint_of_another_run_is_refused(tmp_path):
    g = breadth.kronecker(8, seed=1)
    ck = tmp_path / "ck"
    msbfs(g, np.arange(100), checkpoint=ck)
    with pytest.raises(breadth.InputError, match="belongs to another run"):
        msbfs(g, np.arange(101), checkpoint=ck)
    with pytest.raises(breadth.InputError, match="another run"):
        msbfs(breadth.kronecker(8, seed=2), np.arange(100), checkpoint=ck)
    with open(ck / _group_files(ck)[0], "wb") as f:
        f.write(b"garbage")
    with pytest.raises(breadth.InputError, match="damaged"):
        msbfs(g, np.arange(100), checkpoint=ck)
    (tmp_path / "file").write_text("x")
    with pytest.raises(breadth.InputError, match="not a directory"):
        msbfs(g, np.arange(100), checkpoint=tmp_path / "file")


def test_killed_run_resumes_with_identical_result(tmp_path):
    g = breadth.kronecker(12, seed=5)
    graph = tmp_path / "k12.npz"
    breadth.save(g, graph)
    ck = tmp_path / "ck"
    env = dict(os.environ, PYTHONPATH=ROOT)
    cmd = [sys.executable, "-m", "breadth", "msbfs", str(graph), "--all", "--words", "1", "--group-size", "4",
           "--checkpoint", str(ck)]
    total = (1 << 12) // 4
    proc = subprocess.Popen(cmd + ["--json", str(tmp_path / "killed.json")], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if ck.exists() and len(_group_files(ck)) >= 2:
                break
            time.sleep(0.002)
        assert proc.poll() is None, f"run ended before it could be killed: {proc.stderr.read().decode()}"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    proc.stderr.close()
    done = len(_group_files(ck))
    assert 2 <= done < total and not (tmp_path / "killed.json").exists()

    out = subprocess.run(cmd + ["--json"], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    resumed = json.loads(out.stdout)
    assert resumed["resumed_groups"] >= done and resumed["groups"] == total
    ref = msbfs(g, None, words=1, group_size=4)
    per_source = resumed["per_source"]
    np.testing.assert_array_equal(per_source["source"], np.arange(g.num_vertices))
    for key, name in (("reached", "reached"), ("eccentricity", "eccentricity"), ("distance_sum", "distance_sum")):
        np.testing.assert_array_equal(per_source[key], getattr(ref, name))
