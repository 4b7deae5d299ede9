"""A test that fails, or a run that is interrupted, inside a namespace cluster leaves no
namespace, state or process behind (the fixture's teardown, atexit and the signal handler),
also with every core busy, within a stated bound."""
import os
import signal
import subprocess
import sys
import time

import pytest
from interrupt_support import carrying, interrupt_when_ready

from breadth.cluster import state

from helpers import env

pytestmark = pytest.mark.mpi

INNER = '''
import os, subprocess, sys, time
import pytest
from breadth.cluster import Cluster
from breadth.cluster.state import start_time

@pytest.fixture
def cluster():
    with Cluster(3, name=os.environ["NAME"]) as c:
        yield c

def test_fails_inside_the_cluster(cluster):
    job = cluster.popen(1, cluster.mpiexec([sys.executable, "-c", "import time; time.sleep(300)"]))
    deadline = time.monotonic() + 60
    while len(cluster.pids()) < 6 and time.monotonic() < deadline:   # mpiexec, 2 daemons, 3 ranks
        time.sleep(0.1)
    inodes = [os.stat("/run/netns/" + h.netns).st_ino for h in cluster.hosts]
    with open(os.environ["PIDS"] + ".ns", "w") as f:
        f.write(" ".join(map(str, inodes)))
    with open(os.environ["PIDS"] + ".tmp", "w") as f:
        f.write(" ".join(f"{p}:{start_time(p)}" for p in cluster.pids()))
    os.replace(os.environ["PIDS"] + ".tmp", os.environ["PIDS"])
    if os.environ.get("WAIT"):
        time.sleep(300)
    assert False, "planted failure"
'''


@pytest.mark.parametrize("how", ["fails", "sigterm", "sigint"])
def test_failing_or_interrupted_test_leaves_nothing(cluster_ok, tmp_path, how):
    (tmp_path / "test_inner.py").write_text(INNER)
    name = f"c{how[:4]}{os.getpid() % 100000}"
    pids_file = tmp_path / "pids"
    extra = env(NAME=name, PIDS=pids_file, **({"WAIT": "1"} if how != "fails" else {}))
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                             str(tmp_path / "test_inner.py")], cwd=tmp_path, env={**os.environ, **extra},
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        if how != "fails":
            deadline = time.monotonic() + 120
            while not (pids_file.exists() and pids_file.read_text()):
                assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0]
                time.sleep(0.1)
            proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        leftover = state.namespaces_of(name)
        if leftover:
            state.teardown(name)          # do not leak into the rest of the run if this test fails
    assert proc.returncode != 0, out
    if how == "fails":
        assert "planted failure" in out, out
    pids = [tuple(p.split(":")) for p in pids_file.read_text().split()]
    assert len(pids) >= 6, (pids, out)
    assert leftover == [], out
    assert not os.path.exists(state.state_dir(name))
    deadline = time.monotonic() + 10
    while _alive(pids) and time.monotonic() < deadline:    # exited processes may wait a moment to be reaped
        time.sleep(0.1)
    assert _alive(pids) == [], _describe(_alive(pids))


def _alive(pids):
    """The (pid, start time) still running (a zombie has exited: its parent has yet to reap it;
    a pid with another start time is another process)."""
    out = []
    for pid, started in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[0] not in ("Z", "X") and fields[19] == started:
                out.append(int(pid))
        except (OSError, IndexError):
            pass
    return out


def _describe(pids):
    """Each pid's state, parent and command line, for a failure's message."""
    lines = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            lines.append(f"{pid} state {fields[0]} parent {fields[1]}: {cmd}")
        except OSError:
            pass
    return "\n".join(lines) + "\n"


BOUND = 20.0     # seconds from the signal to the end of the run, with every core busy


@pytest.mark.parametrize("how", ["sigint", "sigint-ignored", "sigterm", "sigint-twice"])
def test_interrupt_under_load_ends_within_bound(cluster_ok, tmp_path, how):
    """With a busy loop on every core, a run inside a cluster that is sent SIGINT or SIGTERM (also
    SIGINT inherited ignored, as in a background job of a script; also a second SIGINT, which
    SIGKILLs) ends within BOUND seconds, leaving no process, namespace (nor one kept alive by a
    process: its veths), or state."""
    (tmp_path / "test_inner.py").write_text(INNER)
    name = f"l{how.replace('-', '')[:7]}{os.getpid() % 100000}"
    pids_file = tmp_path / "pids"
    extra = env(NAME=name, PIDS=pids_file, WAIT="1")
    ignore = signal.SIG_IGN if how == "sigint-ignored" else signal.SIG_DFL
    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(os.cpu_count() or 2)]
    proc = None
    try:
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                                 str(tmp_path / "test_inner.py")], cwd=tmp_path, env={**os.environ, **extra},
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, ignore))
        out, took = interrupt_when_ready(proc, pids_file.exists, how, BOUND, "the run")
    finally:
        for p in hogs + ([proc] if proc else []):
            if p.poll() is None:
                p.kill()
                p.wait()
        leftover = state.namespaces_of(name)
        if leftover:
            state.teardown(name)
    assert proc.returncode != 0, out
    assert leftover == [], out
    assert not os.path.exists(state.state_dir(name)), out
    pids = [tuple(p.split(":")) for p in pids_file.read_text().split()]
    inodes = {int(i) for i in (tmp_path / "pids.ns").read_text().split()}
    assert len(pids) >= 6 and len(inodes) == 3, (pids, inodes, out)
    deadline = time.monotonic() + 5
    marker = f"PIDS={pids_file}".encode()
    while (_alive(pids) or _holding(inodes) or carrying(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive(pids) == [], _describe(_alive(pids)) + out
    assert _holding(inodes) == [], _describe(_holding(inodes)) + out
    assert carrying(marker) == [], _describe(carrying(marker)) + out
    assert took < BOUND, took


def _holding(inodes):
    """The processes still inside one of the deleted network namespaces ``inodes`` (keeping it and its
    veth). A freed namespace's inode number can be given to a new one (another cluster's, made by a
    test beside this one): an inode that /run/netns names again is not ours."""
    named = set()
    for ns in os.listdir("/run/netns") if os.path.isdir("/run/netns") else ():
        try:
            named.add(os.stat(os.path.join("/run/netns", ns)).st_ino)
        except OSError:
            pass
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ino = os.stat(f"/proc/{entry}/ns/net").st_ino
            except OSError:
                continue
            if ino in inodes and ino not in named:
                out.append(int(entry))
    return out
