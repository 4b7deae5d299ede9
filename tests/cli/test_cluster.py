"""``breadth cluster``: up, run (one host and across hosts), status, rate, link, down, from the
command line, and its errors (one line, exit 2). Skipped where namespaces cannot be made."""
import json
import os
import subprocess
import sys
import time

import pytest

from breadth.cluster import available, state

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def breadth(*args, timeout=120, **extra):
    env = dict(os.environ, PYTHONPATH=ROOT, **extra)
    return subprocess.run([sys.executable, "-m", "breadth", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


@pytest.fixture
def name():
    reason = available()
    if reason:
        pytest.skip(reason)
    pytest.importorskip("mpi4py")
    n = f"cli{os.getpid() % 100000}"
    yield n
    if state.namespaces_of(n) or os.path.exists(state.state_dir(n)):
        state.teardown(n)


def _lingering_mpiexec(folder):
    """An mpiexec that runs the real one, then keeps running (as Open MPI 5 sometimes does)."""
    from breadth.distributed.launch import find_mpiexec

    path = folder / "mpiexec"
    path.write_text(f"#!{sys.executable}\nimport subprocess, sys, time\n"
                    f"code = subprocess.call([{find_mpiexec()!r}, *sys.argv[1:]])\n"
                    f"time.sleep(300)\nsys.exit(code)\n")
    path.chmod(0o755)
    return str(path)


def test_up_run_status_rate_link_down(name, tmp_path):
    up = breadth("cluster", "up", "--hosts", "3", "--name", name, "--rate", "1gbit", "--slots", "2", "--json")
    assert up.returncode == 0, up.stderr
    info = json.loads(up.stdout)
    assert [h["address"] for h in info["hosts"]] == ["127.77.0.11", "127.77.0.12", "127.77.0.13"]
    assert info["rate_bits_per_s"] == 10**9 and open(info["hostfile"]).read().count("slots=2") == 3
    assert breadth("cluster", "up", "--hosts", "2", "--name", name).returncode == 2        # taken

    one = breadth("cluster", "run", name, "--on", "2", "--", "hostname")
    assert one.returncode == 0 and one.stdout.strip() == f"{name}-h2", one.stderr
    every = breadth("cluster", "run", name, "--ranks-per-host", "1", "--", "hostname")
    assert every.returncode == 0 and sorted(every.stdout.split()) == [f"{name}-h{i}" for i in (1, 2, 3)], every.stderr
    code = breadth("cluster", "run", name, "--", "sh", "-c", "exit 7")
    assert code.returncode == 7
    lingering = _lingering_mpiexec(tmp_path)         # Open MPI hanging after the job: ended, the ranks' status
    t0 = time.monotonic()
    late = breadth("cluster", "run", name, "--ranks-per-host", "1", "--", "sh", "-c", "exit 3",
                   BREADTH_MPIEXEC=lingering)
    assert late.returncode == 3 and "prrte#1839" in late.stderr, late.stderr
    assert time.monotonic() - t0 < 60
    slow = breadth("cluster", "run", name, "--timeout", "2", "--", "sleep", "100")
    assert slow.returncode == 124 and "ran past --timeout 2 s" in slow.stderr

    status = json.loads(breadth("cluster", "status", "--json").stdout)
    mine = [c for c in status if c["name"] == name]
    assert len(mine) == 1 and mine[0]["owner"] is None and not mine[0]["stale"] and mine[0]["processes"] == 0
    assert f"{name}: 3 hosts" in breadth("cluster", "status").stdout

    assert breadth("cluster", "rate", name, "200mbit", "--host", "3").returncode == 0
    shown = breadth("cluster", "run", name, "--on", "3", "--", "tc", "qdisc", "show", "dev", "eth0").stdout
    assert "200Mbit" in shown
    assert breadth("cluster", "rate", name, "none").returncode == 0
    assert "tbf" not in breadth("cluster", "run", name, "--on", "3", "--", "tc", "qdisc", "show", "dev", "eth0").stdout

    assert breadth("cluster", "link", name, "2", "down").returncode == 0
    cut = breadth("cluster", "run", name, "--", sys.executable, "-c",
                  "import socket; s = socket.socket(); s.settimeout(2); print(s.connect_ex(('127.77.0.12', 9)))")
    assert cut.stdout.strip() not in ("0", "111"), cut.stdout            # neither connected nor refused
    assert breadth("cluster", "link", name, "2", "up").returncode == 0

    assert breadth("cluster", "env", name, "3", "BREADTH_MARK=x y", "OTHER=1").returncode == 0
    marks = breadth("cluster", "run", name, "--ranks-per-host", "1", "--", "sh", "-c",
                    'echo "$(hostname):$BREADTH_MARK:$OTHER"').stdout.split("\n")
    assert sorted(m for m in marks if m) == [f"{name}-h1::", f"{name}-h2::", f"{name}-h3:x y:1"], marks
    assert breadth("cluster", "env", name, "3", "BREADTH_MARK=", "OTHER=").returncode == 0
    assert breadth("cluster", "run", name, "--on", "3", "--", "sh", "-c", 'echo "[$BREADTH_MARK]"').stdout == "[]\n"

    down = breadth("cluster", "down", name)
    assert down.returncode == 0 and f"removed cluster {name}" in down.stdout
    assert not state.namespaces_of(name) and not os.path.exists(state.state_dir(name))


@pytest.mark.parametrize("args,needle", [
    (["cluster", "run", "nosuch0", "--", "true"], "no cluster nosuch0"),
    (["cluster", "down", "nosuch0"], "no cluster nosuch0"),
    (["cluster", "up", "--name", "Bad_Name"], "bad cluster name 'Bad_Name'"),
    (["cluster", "up", "--subnet", "10.1.2"], "is not in the loopback range"),
    (["cluster", "up", "--subnet", "127.77"], "bad subnet '127.77'"),
    (["cluster", "up", "--rate", "fast"], "bad rate 'fast'"),
    (["cluster", "down"], "name the clusters to remove"),
    (["cluster", "env", "nosuch0", "1", "1BAD=x"], "expected VAR=VALUE, got '1BAD=x'"),
])
def test_errors_one_line(name, args, needle):
    proc = breadth(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], proc.stderr


def test_not_root_is_a_clear_reason(monkeypatch):
    from breadth.cluster import probe

    probe.available.cache_clear()
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    try:
        assert probe.available() == "namespace clusters need root (creating network namespaces needs CAP_SYS_ADMIN)"
    finally:
        probe.available.cache_clear()
