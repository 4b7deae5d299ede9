"""No rank outlives its launch: the launcher adopts the ranks an ended mpiexec left behind, and ends them.

A rank normally ends with its job: mpiexec kills it on an abort, or its own watchdog ends it when its
launcher has gone (``watchdog``). A rank that is stopped (SIGSTOP, a debugger, a frozen host's
process) can do neither, and if mpiexec itself had to be killed it is left running with no parent.
So the ``--ranks`` launcher marks itself a *child subreaper* (Linux ``PR_SET_CHILD_SUBREAPER``) for the
duration of the launch: the processes mpiexec leaves behind are re-parented to the launcher instead
of to init. Once mpiexec has ended, ``end_leftovers`` kills (SIGKILL, which also ends a stopped
process) every child of the launcher that carries this launch's status directory in its
environment or that a rank's status file names (a rank that already exited is a zombie with no
environment left), and reaps it, within a bound. Other children of the launcher are left alone.

On systems without ``prctl`` (not Linux) the launcher still ends the leftovers it can see as its
children, which is then none: the watchdog remains the only guard there.
"""
from __future__ import annotations

import os
import signal
import time

PR_SET_CHILD_SUBREAPER = 36
REAP_WAIT = 5.0


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def adopt_orphans(on: bool = True) -> bool:
    """Make this process the subreaper of its descendants (or stop being one); True if it worked."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1 if on else 0)


def _children(pid: int) -> list[int]:
    out = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()       # after "pid (comm) ": state, ppid, ...
        if len(fields) > 1 and int(fields[1]) == pid:
            out.append(int(name))
    return out


def _carries(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return marker in fh.read().split(b"\0")
    except OSError:
        return False


def leftovers(env_name: str, env_value: str, known=()) -> list[int]:
    """This process's children that are the launch's ranks: their environment has ``env_name=env_value``
    or their pid is in ``known`` (the pids the ranks on this host reported)."""
    marker = f"{env_name}={env_value}".encode()
    known = set(known)
    return [p for p in _children(os.getpid()) if p in known or _carries(p, marker)]


def end_leftovers(env_name: str, env_value: str, known=(), wait: float = REAP_WAIT) -> list[int]:
    """SIGKILL and reap this launch's leftover ranks (see the module docstring); returns their pids."""
    pids = leftovers(env_name, env_value, known)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    deadline = time.monotonic() + wait
    pending = set(pids)
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                pending.discard(pid)
        if pending:
            time.sleep(0.02)
    return pids
