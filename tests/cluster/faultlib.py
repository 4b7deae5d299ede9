"""Running a breadth job on the namespace cluster, injecting a fault mid-search, and checking how it ended
(imported by tests/cluster/test_faults.py and test_resume.py)."""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

from breadth.cluster import netns
from helpers import ROOT, env

STALL = 6                 # --stall-timeout of the tests, seconds
END_BOUND = STALL + 45    # a job ends this long after its fault at most (abort, grace, mpiexec's cleanup)
MPI_NAMES = ("prterun", "prted", "mpiexec", "mpirun", "orted")


class Job:
    """``breadth ARGS --ranks P --hostfile HF`` started on host 1, with status and log in ``tmp``."""

    def __init__(self, cluster, args, tmp, ranks_per_host=1, hosts=None, extra_env=None):
        self.cluster, self.tmp = cluster, str(tmp)
        self.status = os.path.join(self.tmp, "status")
        os.makedirs(self.status, exist_ok=True)
        chosen = cluster.hosts if hosts is None else [cluster.host(h) for h in hosts]
        hostfile = cluster.hostfile(slots=ranks_per_host, hosts=[h.index for h in chosen],
                                    path=os.path.join(self.tmp, "hostfile"))
        self.ranks = ranks_per_host * len(chosen)
        argv = [sys.executable, "-m", "breadth", *args, "--ranks", str(self.ranks), "--hostfile", hostfile]
        self.proc = cluster.popen(1, argv, env=env(BREADTH_STATUS_DIR=self.status, BREADTH_MPI_LOG=self.tmp,
                                                   **(extra_env or {})),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        self.fault_at = None

    def rank_status(self, rank):
        try:
            with open(os.path.join(self.status, f"rank{rank}.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def wait_for_search(self, number=3, timeout=240):
        """Wait until rank 0 is in search ``number`` (the first is the untimed warm-up)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                out, err = self.proc.communicate()
                raise AssertionError(f"the job ended (exit {self.proc.returncode}) before search {number}:\n"
                                     f"{out[-2000:]}\n{err[-3000:]}")
            st = self.rank_status(0)
            m = re.match(r"(?:after )?search (\d+)", (st or {}).get("where", ""))
            if m and int(m.group(1)) >= number:
                return
            time.sleep(0.05)
        raise AssertionError(f"the job never reached search {number}: {self.rank_status(0)}")

    def pid_of(self, rank):
        st = self.rank_status(rank)
        assert st is not None, f"rank {rank} never wrote its status"
        return int(st["pid"])

    def fault(self, action):
        """Run ``action()`` now and remember when (the end-time bound counts from here)."""
        action()
        self.fault_at = time.monotonic()

    def finish(self, timeout=END_BOUND + 30):
        """Wait for the job; returns (exit code, stdout, stderr, seconds since the fault)."""
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.cluster.kill_processes()
            out, err = self.proc.communicate()
            raise AssertionError(f"the job did not end within {timeout} s: {err[-3000:]}") from None
        since = time.monotonic() - self.fault_at if self.fault_at is not None else 0.0
        _report(code=self.proc.returncode, seconds=round(since, 1),
                message=[ln for ln in err.splitlines() if ln.startswith("breadth")])
        return self.proc.returncode, out, err, since


def stop_host(cluster, which, sig=signal.SIGSTOP):
    """Send ``sig`` to every process on host ``which`` (SIGSTOP freezes the host)."""
    for pid in netns.pids_in(cluster.host(which).netns):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _report(**item):
    """Append a measurement to $BREADTH_FAULT_REPORT (the docs' table of end times), if set."""
    report = os.environ.get("BREADTH_FAULT_REPORT")
    if report:
        with open(report, "a") as f:
            f.write(json.dumps({"test": os.environ.get("PYTEST_CURRENT_TEST", "?"), **item}) + "\n")


def leftovers(cluster, timeout=20, since=None):
    """breadth or MPI processes still on any host after ``timeout`` seconds (empty: all gone).
    ``since``: a time.monotonic() (the fault) to report how long the hosts took to be clean."""
    deadline = time.monotonic() + timeout
    while True:
        found = {}
        for h in cluster.hosts:
            for pid in netns.pids_in(h.netns):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    continue
                if "breadth" in cmd or any(n in cmd for n in MPI_NAMES):
                    found[pid] = (h.name, cmd[:200])
        if not found or time.monotonic() > deadline:
            if since is not None and not found:
                _report(clean_seconds=round(time.monotonic() - since, 1))
            return found
        time.sleep(0.25)


def no_partial_files(directory, names=()):
    """No temporary (``.NAME.xxx.tmp``) file in ``directory`` and none of ``names`` written."""
    debris = glob.glob(os.path.join(directory, ".*.tmp"))
    written = [n for n in names if os.path.exists(os.path.join(directory, n))]
    return not debris and not written


def user_lines(err):
    """The lines of a job's stderr that speak to the user (breadth's, not progress bars)."""
    return [ln for ln in err.splitlines() if ln.startswith("breadth")]


def failure_message(err):
    """The one 'the MPI job failed' line, and the path of the Open MPI log it names (which must exist)."""
    lines = [ln for ln in user_lines(err) if "the MPI job failed" in ln]
    assert len(lines) == 1, err[-3000:]
    m = re.search(r"Open MPI's messages: (\S+)$", lines[0])
    assert m and os.path.exists(m.group(1)), lines[0]
    return lines[0]
