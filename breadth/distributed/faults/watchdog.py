"""The stall watchdog: a rank that waits in one MPI operation for too long ends the whole job.

A stopped (SIGSTOP) or unreachable rank does not fail: its peers wait for it inside a
collective forever, spinning. MPI has no timeout of its own, so every rank of a
distributed job runs this watchdog, a daemon thread that polls a ``Heartbeat``:

* the counted communicator (``distributed.comm.Comm``) calls ``HEARTBEAT.begin(name)``
  before each MPI operation and ``HEARTBEAT.end()`` after it, and tells it the phase
  (construction, search, validation ...) and the level of the search in progress;
* mpi4py releases the GIL inside blocking MPI calls, so the thread runs while the main
  thread waits; when the current wait is older than the bound it prints **one line**
  naming the host, the rank, the phase and level and the operation, then calls
  ``MPI_Abort`` (exit code 1), with ``os._exit(1)`` as a fallback should Abort not
  end the process. Ranks fire a little apart (by rank), so the first message is
  usually the only one.

The bound: ``stall_timeout`` seconds when given; otherwise ``DEFAULT_MULTIPLE`` times the
slowest level of the ``LEARN_SEARCHES`` searches after the first (which loads or compiles
kernels), never less than ``DEFAULT_FLOOR`` seconds (``SETUP_FLOOR`` during
generation and construction, where ranks legitimately drift apart). Only the early
searches teach the bound, so a link that later slows to a crawl cannot raise it: the
job ends instead of crawling on. A rank computing
on its own is not waiting and is never the one to fire; its peers are.

The thread also notices when the launcher that started this rank has gone (the parent
process changed) and then ends the rank, and, when ``$BREADTH_STATUS_DIR`` names a
directory (``--ranks`` sets it), writes this rank's phase and level there once per poll
so that the launcher can say where a job was when it failed. ``record_exit`` adds the exit
status the rank is about to end with, so that the launcher can end an mpiexec that
outlives a finished job (``launch``).
"""
from __future__ import annotations

import atexit
import json
import os
import socket
import sys
import threading
import time

DEFAULT_FLOOR = 30.0
SETUP_FLOOR = 120.0
DEFAULT_MULTIPLE = 20.0
LEARN_SEARCHES = 3         # the searches (after the first) whose slowest level sets the automatic bound
STAGGER = 2.0              # seconds between ranks 0, 1, 2, 3 firing on the same stall
STATUS_ENV = "BREADTH_STATUS_DIR"
_SETUP_PHASES = ("setup", "construct")


class Heartbeat:
    """What this rank is doing: the MPI operation it waits in (if any), since when, the phase and level.

    Written by the main thread (cheap attribute stores), read by the watchdog thread.
    """

    __slots__ = ("waiting", "since", "phase", "level", "searches", "level_started", "slowest_level", "exit_code")

    def __init__(self):
        self.waiting = None
        self.since = 0.0
        self.phase = "setup"
        self.level = None
        self.searches = 0
        self.level_started = 0.0
        self.slowest_level = 0.0
        self.exit_code = None

    def begin(self, operation: str) -> None:
        """The rank enters MPI operation ``operation`` (e.g. "Alltoallv (exchange)")."""
        self.since = time.monotonic()
        self.waiting = operation

    def end(self) -> None:
        self.waiting = None

    def begin_search(self) -> None:
        self.searches += 1
        self.level = 0
        self.level_started = time.monotonic()

    def next_level(self) -> None:
        """A level of the search in progress begins; the one before it ended."""
        now = time.monotonic()
        if self.level and 1 < self.searches <= 1 + LEARN_SEARCHES:
            self.slowest_level = max(self.slowest_level, now - self.level_started)
        self.level = (self.level or 0) + 1
        self.level_started = now

    def end_search(self) -> None:
        self.next_level()
        self.level = None

    def where(self) -> str:
        """The phase in the user's terms: "construction", "search 3, level 2", "validation" ..."""
        names = {"construct": "construction", "validate": "validation", "roots": "choosing the search keys",
                 "report": "reporting", "setup": "setup"}
        if self.phase == "search" or self.level is not None:
            return f"search {self.searches}" + (f", level {self.level}" if self.level else "")
        if self.phase == "setup" and self.searches:
            return f"after search {self.searches}"
        if self.phase == "validate" and self.searches:
            return f"validation of search {self.searches}"
        if self.phase == "report" and self.searches:
            return f"reporting of search {self.searches}"
        return names.get(self.phase, self.phase)


HEARTBEAT = Heartbeat()
_state = {"thread": None, "stop": None, "timeout": None}


def check_stall_timeout(value) -> float | None:
    """None (automatic bound), 0 (no watchdog) or a positive number of seconds; InputError otherwise."""
    from ...errors import InputError

    if value is None:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise InputError(f"stall_timeout must be a number of seconds, got {value!r}") from None
    if not seconds >= 0 or seconds == float("inf"):
        raise InputError(f"stall_timeout must be >= 0 seconds (0 turns the watchdog off), got {value!r}")
    return seconds


def watchdog_bound(heartbeat: Heartbeat = HEARTBEAT, stall_timeout: float | None = None) -> float:
    """Seconds a wait may last before the job is ended (see the module header)."""
    if stall_timeout:
        return float(stall_timeout)
    floor = SETUP_FLOOR if heartbeat.phase in _SETUP_PHASES else DEFAULT_FLOOR
    return max(floor, DEFAULT_MULTIPLE * heartbeat.slowest_level)


def start_watchdog(rank: int, size: int, stall_timeout: float | None = None) -> bool:
    """Watch this rank (once per process; a later call only changes the bound). Returns whether a
    watchdog runs: none for a job of one rank or ``stall_timeout`` 0."""
    _state["timeout"] = stall_timeout
    if size <= 1 or stall_timeout == 0:
        stop_watchdog()
        return False
    if _state["thread"] is not None and _state["thread"].is_alive():
        return True
    stop = threading.Event()
    _state.update(rank=rank, size=size)
    thread = threading.Thread(target=_watch, args=(rank, size, os.getppid(), stop), name="breadth-watchdog",
                              daemon=True)
    _state.update(thread=thread, stop=stop)
    thread.start()
    if not _state.get("atexit"):
        atexit.register(_finalizing)          # after mpi4py's own handler is registered: runs before it
        _state["atexit"] = True
    return True


def record_exit(code: int) -> None:
    """This rank is about to exit with status ``code``: say so in its status file (when a watchdog
    runs and ``$BREADTH_STATUS_DIR`` is set), before ``MPI_Finalize``."""
    HEARTBEAT.exit_code = int(code)
    directory = os.environ.get(STATUS_ENV)
    if directory and _state.get("thread") is not None:
        _write_status(directory, _state["rank"], _state["size"], socket.gethostname(), HEARTBEAT, None)


def stop_watchdog() -> None:
    thread, stop = _state["thread"], _state["stop"]
    if thread is not None:
        stop.set()
        thread.join(timeout=5)
    _state.update(thread=None, stop=None)


def _finalizing() -> None:
    """The interpreter exits: MPI_Finalize waits for every rank, so it is watched like a collective."""
    HEARTBEAT.phase = "finalize"
    HEARTBEAT.level = None
    HEARTBEAT.begin("MPI_Finalize (the end of the job)")


def _watch(rank: int, size: int, parent: int, stop: threading.Event) -> None:
    host = socket.gethostname()
    status_dir = os.environ.get(STATUS_ENV)
    last_status = None
    hb = HEARTBEAT
    delay = STAGGER * min(rank, 3)
    while not stop.wait(_poll(watchdog_bound(hb, _state["timeout"]))):
        if os.getppid() != parent:
            _say(f"breadth: rank {rank} of {size} (host {host}): the MPI launcher that started it has gone "
                 f"during {hb.where()}; ending this rank")
            os._exit(1)
        if status_dir:
            last_status = _write_status(status_dir, rank, size, host, hb, last_status)
        waiting, since = hb.waiting, hb.since
        if waiting is None:
            continue
        bound = watchdog_bound(hb, _state["timeout"])
        waited = time.monotonic() - since
        if waited <= bound + delay or hb.since != since:
            continue
        how = "--stall-timeout" if _state["timeout"] else "the automatic bound; --stall-timeout sets it"
        line = (f"breadth: rank {rank} of {size} (host {host}) stalled in {hb.where()}: waited {waited:.0f} s in "
                f"{waiting} for the other ranks (bound {bound:.0f} s, {how}); a rank has stopped, lost its "
                f"network or is far too slow; ending the job")
        _say(line)
        if status_dir:      # also where the launcher looks: Open MPI may drop a line printed as the job aborts
            _write_status(status_dir, rank, size, host, hb, None, message=line)
        hard_abort()
        return


def _poll(bound: float) -> float:
    return min(0.25, max(0.05, bound / 20))


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


ABORT_GRACE = 10.0    # seconds MPI_Abort gets to end this process before it exits on its own


def hard_abort(mpicomm=None, code: int = 1) -> None:
    """MPI_Abort the job (on ``mpicomm``, default ``COMM_WORLD``); if that does not end this
    process within ``ABORT_GRACE`` seconds, or returns, exit anyway with ``code`` (mpiexec
    then ends the job, as for any rank that exits without finalizing). Does not return."""
    timer = threading.Timer(ABORT_GRACE, os._exit, (code,))
    timer.daemon = True
    timer.start()
    try:
        if mpicomm is None:
            from mpi4py import MPI

            mpicomm = MPI.COMM_WORLD
        mpicomm.Abort(code)
    finally:
        os._exit(code)


def _write_status(directory, rank, size, host, hb: Heartbeat, last, message=None):
    """This rank's phase, level and wait (and the line it ended the job with, ``message``), as JSON in
    DIRECTORY/rankR.json (atomic rename; only on change)."""
    now = {"rank": rank, "size": size, "host": host, "pid": os.getpid(), "where": hb.where(),
           "waiting": hb.waiting}
    if message:
        now["message"] = message
    if hb.exit_code is not None:
        now["exit"] = hb.exit_code
    if now == last:
        return last
    path = os.path.join(directory, f"rank{rank}.json")
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(now, f)
        os.replace(tmp, path)
    except OSError:          # the directory exists only on the launcher's host: nothing to report from here
        return now
    return now
