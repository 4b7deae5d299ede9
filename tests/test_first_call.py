"""The first call of a fresh process: compiling is never reported as search time, it is announced once
on the command line (and not with --quiet), and a warm cache answers at once, from a read-only install too.

The package is copied and made read-only (for root, whom permission bits do not stop, by a read-only
bind mount in a private mount namespace); its numba cache goes to the per-user folder breadth chooses
(XDG_CACHE_HOME points it into the test's temporary folder). An empty cache costs a full compilation
(tens of seconds), so the module pays it once per cache, in two processes run at the same time.
"""
import json
import os
import pty
import shutil
import stat
import subprocess
import sys
import threading

import pytest

import breadth

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTE = "compiling breadth's kernels for this machine (first run only"
TIMEOUT = 1800          # an empty cache on a busy shared machine compiles slowly

CLI = ("import sys, breadth; assert breadth.__file__.startswith(sys.argv[1]), breadth.__file__; "
       "from breadth.cli import main; sys.exit(main(sys.argv[2:]))")

API = """
import json, os, sys, time
t0 = time.perf_counter()
import breadth
g = breadth.load(sys.argv[2])
first = breadth.bfs(g, 1)
wall = time.perf_counter() - t0
second = breadth.bfs(g, 1)
assert breadth.__file__.startswith(sys.argv[1]), breadth.__file__
print(json.dumps({"wall": wall, "first": first.seconds, "second": second.seconds,
                  "compile": first.compile_seconds, "writable": os.access(os.path.dirname(breadth.__file__), os.W_OK),
                  "cache": breadth.cache.cache_dir()}))
"""


def _readonly_prefix(site) -> list:
    """A command prefix under which ``site`` is read-only for the child, whoever runs the tests."""
    if os.geteuid() != 0:
        for dirpath, dirnames, filenames in os.walk(site):
            for name in dirnames + filenames + ["."]:
                path = os.path.join(dirpath, name)
                os.chmod(path, os.stat(path).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        return []
    prefix = ["unshare", "-m", "--propagation", "private"]
    if shutil.which("unshare") is None or subprocess.run(prefix + ["true"], capture_output=True).returncode:
        pytest.skip("root needs a private mount namespace (unshare -m) for a read-only install")
    return prefix + ["sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', str(site)]


def _start(cmd, env, cwd):
    """Start ``cmd`` with stderr on a terminal (so the command line shows its notes); returns a waiter."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    chunks = []

    def read():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def wait():
        out, _ = proc.communicate(timeout=TIMEOUT)
        reader.join(10)
        os.close(master)
        err = b"".join(chunks).decode(errors="replace")
        assert proc.returncode == 0, err
        return out.decode(), err

    return wait


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("first-call")
    site = tmp / "site"
    shutil.copytree(os.path.join(ROOT, "breadth"), site / "breadth", ignore=shutil.ignore_patterns("__pycache__"))
    graph = str(tmp / "k8.npz")
    breadth.save(breadth.kronecker(8, seed=1), graph)
    prefix = _readonly_prefix(site)
    base = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}

    def env(cache):
        return dict(base, PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp / cache))

    def cli(cache, *args):
        return _start(prefix + [sys.executable, "-c", CLI, str(site), *args], env(cache), tmp)

    # two empty caches, compiled at the same time: one run shows its notes, one is --quiet
    loud = cli("cache-a", "bfs", graph, "--root", "1", "--json", str(tmp / "cold.json"))
    quiet = cli("cache-b", "bfs", graph, "--root", "1", "--quiet", "--json", str(tmp / "quiet.json"))
    out = {"cold": loud(), "quiet": quiet()}
    out["warm"] = cli("cache-a", "bfs", graph, "--root", "1", "--json", str(tmp / "warm.json"))()
    api_out, _ = _start(prefix + [sys.executable, "-c", API, str(site), graph], env("cache-a"), tmp)()
    out["api"] = json.loads(api_out.strip().splitlines()[-1])
    for name in ("cold", "quiet", "warm"):
        out[name + ".json"] = json.loads((tmp / f"{name}.json").read_text())
    out["tmp"] = tmp
    return out


def test_an_empty_cache_compiles_and_the_cli_says_so_once(runs):
    _, err = runs["cold"]
    assert err.count(NOTE) == 1, err
    assert runs["cold.json"]["compile_seconds"] > 1.0      # it compiled, and says how long apart


def test_quiet_says_nothing_while_it_compiles(runs):
    _, err = runs["quiet"]
    assert err.strip() == ""
    assert runs["quiet.json"]["compile_seconds"] > 1.0


def test_compiling_is_not_search_time(runs):
    cold, warm = runs["cold.json"]["seconds"], runs["warm.json"]["seconds"]
    assert cold <= 10 * warm + 0.02, (cold, warm)
    api = runs["api"]
    assert api["first"] <= 10 * api["second"] + 0.02, api


def test_a_warm_cache_answers_at_once_from_a_read_only_install(runs):
    _, err = runs["warm"]
    assert NOTE not in err
    assert runs["warm.json"]["compile_seconds"] < 2.0       # loaded, not compiled
    api = runs["api"]
    assert api["writable"] is False
    assert api["cache"] == str(runs["tmp"] / "cache-a" / "breadth" / "numba" / breadth.cache.source_tag())
    assert api["wall"] <= 2.0, api                          # import breadth + load + first bfs
