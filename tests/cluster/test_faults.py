"""The fault matrix on the namespace cluster: a killed rank, a cut link, a stopped rank, a frozen host,
a crawling link, a killed launcher, a host short of memory, a rank raising inside a collective.

Each case runs ``breadth graph500 --ranks P --hostfile`` (or the test driver) across the hosts,
injects its fault mid-search and checks that the job ended within ``END_BOUND`` seconds of
it, with the expected exit code and one message naming what failed, with no output file
written and no breadth or MPI process left on any host."""
import os
import re
import signal
import sys
import time

import pytest

from breadth.cluster import netns
from faultlib import _report, END_BOUND, STALL, Job, failure_message, leftovers, no_partial_files, stop_host, user_lines
from helpers import DRIVER, ROOT, env

pytestmark = pytest.mark.mpi

SCALE = "13"
ROOTS = "2000"          # enough searches that the fault lands mid-run however fast the machine is


def graph500(tmp, *extra):
    return ["graph500", "--scale", SCALE, "--roots", ROOTS, "--quiet", "--stall-timeout", str(STALL),
            "--json", os.path.join(str(tmp), "out.json"), *extra]


def ended_cleanly(cluster, job, tmp):
    """No process left on any host, no partial output."""
    left = leftovers(cluster, since=job.fault_at if job is not None else None)
    assert not left, left
    assert no_partial_files(str(tmp), ["out.json"])


def test_rank_killed_on_another_host(cluster3, tmp_path):
    job = Job(cluster3, graph500(tmp_path, "--exchange", "alltoall"), tmp_path)
    job.wait_for_search(3)
    job.fault(lambda: os.kill(job.pid_of(1), signal.SIGKILL))
    code, _, err, since = job.finish()
    assert code != 0 and since < END_BOUND, (code, since, err[-2000:])
    line = failure_message(err)
    host = cluster3.hosts[1].name
    assert (f"rank 1 on host {host} was killed by signal 9" in line or host in line), line
    ended_cleanly(cluster3, job, tmp_path)


def test_rank_stopped_on_another_host_ends_by_the_watchdog(cluster3, tmp_path):
    job = Job(cluster3, graph500(tmp_path, "--partition", "2d"), tmp_path)
    job.wait_for_search(3)
    stopped = job.pid_of(1)
    job.fault(lambda: os.kill(stopped, signal.SIGSTOP))
    try:
        code, _, err, since = job.finish()
    finally:
        _resume(stopped)
    assert code == 1 and since < END_BOUND, (code, since, err[-2000:])
    line = failure_message(err)
    assert re.search(r" stalled in (search \d+, level \d+|(validation|reporting) of search \d+|after search \d+): waited \d+ s "
                     r"in \w", line), line
    assert any(h.name in line for h in cluster3.hosts) and "(host " in line, line
    assert len([ln for ln in user_lines(err) if "stalled" in ln]) == 1, err[-3000:]
    ended_cleanly(cluster3, job, tmp_path)


def test_host_short_of_memory_is_refused_naming_it(cluster3, tmp_path):
    cluster3.set_env(2, BREADTH_AVAILABLE_MEMORY="1M")
    try:
        job = Job(cluster3, graph500(tmp_path), tmp_path)
        job.fault(lambda: None)
        code, _, err, since = job.finish(timeout=240)
    finally:
        cluster3.set_env(2, BREADTH_AVAILABLE_MEMORY=None)
    lines = [ln for ln in user_lines(err) if "error:" in ln]
    assert code == 2 and len(lines) == 1, err[-3000:]
    assert "rank 1: " in lines[0] and f"available on host {cluster3.hosts[1].name}" in lines[0], lines[0]
    assert "the MPI job failed" not in err
    ended_cleanly(cluster3, job, tmp_path)


def test_rank_raising_inside_a_collective(cluster3, tmp_path):
    mpiexec = cluster3.mpiexec([sys.executable, DRIVER, "loop"])
    wrapper = ("import os, sys; from breadth.distributed.launch import run_mpiexec; "
               "sys.exit(run_mpiexec(sys.argv[1:], dict(os.environ)))")
    t0 = time.monotonic()
    proc = cluster3.exec(1, [sys.executable, "-c", wrapper, *mpiexec], timeout=240, cwd=ROOT,
                         env=env(FAIL_RANK=2, FAIL_AFTER=3, FAIL_IN="recv_all", BREADTH_MPI_LOG=str(tmp_path)))
    assert proc.returncode == 1, proc.stderr[-3000:]
    line = failure_message(proc.stderr)
    assert "rank 2 of 3 failed: RuntimeError: injected failure inside Comm.recv_all" in line, line
    assert time.monotonic() - t0 < 240
    _report(code=proc.returncode, message=[line])
    ended_cleanly(cluster3, None, tmp_path)


@pytest.mark.slow
def test_link_down_mid_search(cluster3, tmp_path):
    host = cluster3.hosts[2]
    job = Job(cluster3, graph500(tmp_path, "--partition", "delegates"), tmp_path)
    job.wait_for_search(3)
    job.fault(lambda: netns.set_link(host.netns, cluster3.iface, False))
    try:
        code, _, err, since = job.finish()
    finally:
        netns.set_link(host.netns, cluster3.iface, True)
    assert code != 0 and since < END_BOUND, (code, since, err[-2000:])
    line = failure_message(err)
    assert host.name in line or " stalled in " in line, line
    ended_cleanly(cluster3, job, tmp_path)


@pytest.mark.slow
def test_whole_host_frozen(cluster3, tmp_path):
    job = Job(cluster3, graph500(tmp_path, "--exchange", "butterfly", "--fanout", "2"), tmp_path)
    job.wait_for_search(3)
    job.fault(lambda: stop_host(cluster3, 3))
    try:
        code, _, err, since = job.finish()
    finally:
        stop_host(cluster3, 3, signal.SIGCONT)
    assert code != 0 and since < END_BOUND, (code, since, err[-2000:])
    line = failure_message(err)
    assert " stalled in " in line, line
    ended_cleanly(cluster3, job, tmp_path)


@pytest.mark.slow
def test_link_at_a_crawl_finishes_or_ends_by_the_watchdog(cluster3, tmp_path):
    job = Job(cluster3, graph500(tmp_path, "--partition", "2d"), tmp_path)
    job.wait_for_search(3)
    job.fault(lambda: cluster3.set_rate("8kbit", hosts=[3]))
    try:
        code, out, err, since = job.finish()
    finally:
        cluster3.set_rate(None, hosts=[3])
    assert since < END_BOUND, (code, since, err[-2000:])
    if code == 0:
        assert "harmonic_mean_TEPS" in out and os.path.exists(tmp_path / "out.json")
    else:
        assert code == 1 and " stalled in " in failure_message(err), err[-3000:]
        ended_cleanly(cluster3, job, tmp_path)


@pytest.mark.slow
def test_launcher_terminated_then_killed(cluster3, tmp_path):
    job = Job(cluster3, graph500(tmp_path, "--partition", "delegates"), tmp_path)
    job.wait_for_search(3)
    launcher = _launcher_pid(cluster3)

    def kill():
        os.kill(launcher, signal.SIGTERM)
        time.sleep(0.5)
        try:
            os.kill(launcher, signal.SIGKILL)
        except ProcessLookupError:
            pass
    job.fault(kill)
    code, _, _, since = job.finish()
    assert code != 0 and since < END_BOUND
    ended_cleanly(cluster3, job, tmp_path)


def _launcher_pid(cluster):
    for pid in netns.pids_in(cluster.hosts[0].netns):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        if b"breadth" in cmd and b"--ranks" in cmd and cmd[0].endswith(b"python") or b"python3" in cmd[0]:
            if b"--ranks" in cmd:
                return pid
    raise AssertionError("no launcher process on host 1")


def _resume(pid):
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass
