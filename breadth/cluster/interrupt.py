"""Signals while a cluster is in use: the first ends the run with its cleanup, a second kills at once.

While a ``Cluster`` is guarded (an owned cluster from ``up`` to ``down``, any cluster while
``exec`` waits for a command), SIGINT, SIGTERM and SIGHUP get one handler in the main thread:

- the first signal raises (``KeyboardInterrupt`` for SIGINT, ``SystemExit(128 + N)`` for the
  others), so that ``finally`` blocks and fixtures stop the hosts' processes and remove the
  namespaces. A signal that arrives while the cluster is already cleaning up (``cleaning``) is
  held until that bounded cleanup ends, and raised then, so that it cannot cut a teardown short;
- every further signal first SIGKILLs every process the guarded clusters started (all the
  processes in their namespaces, and the sessions ``popen`` started), so that what remains of the
  cleanup (deleting the namespaces) has nothing left to wait for; outside a cleanup it raises too.

SIGINT is taken over even when this process inherited it ignored (a background job of a
non-interactive shell, e.g. a CI script; Python then never installs its KeyboardInterrupt handler):
an interrupted run must not leave its cluster behind. A SIGTERM or SIGHUP that already has a
handler, or an ignored SIGHUP (``nohup``), is left alone. The handlers in place before are restored
once no cluster is guarded.
"""
from __future__ import annotations

import contextlib
import signal
import threading

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_guarded: list = []       # guarded clusters (one entry per guard; a cluster may be guarded twice)
_saved: dict = {}         # signal -> the handler ours replaced
_state = {"count": 0, "cleaning": 0, "pending": None, "raised": False}


def _takes_over(sig, old) -> bool:
    if sig == signal.SIGINT:
        return old in (signal.default_int_handler, signal.SIG_IGN, signal.SIG_DFL, None)
    return old in (signal.SIG_DFL, None)


def guard(cluster) -> None:
    """Count ``cluster`` among those a signal stops (see the module doc)."""
    _guarded.append(cluster)
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in SIGNALS:
        old = signal.getsignal(sig)
        if old is not _handler and _takes_over(sig, old):
            _saved[sig] = old
            signal.signal(sig, _handler)


def unguard(cluster) -> None:
    """Undo one ``guard(cluster)``; the last one restores the handlers from before."""
    if cluster in _guarded:
        _guarded.remove(cluster)
    if _guarded or threading.current_thread() is not threading.main_thread():
        return
    for sig, old in _saved.items():
        if signal.getsignal(sig) is _handler:
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
    _saved.clear()
    _state.update(count=0, pending=None, raised=False)


@contextlib.contextmanager
def guarded(cluster):
    guard(cluster)
    try:
        yield
    finally:
        unguard(cluster)


@contextlib.contextmanager
def cleaning():
    """A bounded cleanup that a first signal must not interrupt: the signal is raised when it ends."""
    _state["cleaning"] += 1
    try:
        yield
    finally:
        _state["cleaning"] -= 1
    pending = _state["pending"]
    if pending is not None and not _state["cleaning"]:
        _state["pending"] = None
        _raise(pending)


def kill_everything() -> None:
    """SIGKILL every process the guarded clusters started."""
    for cluster in list(_guarded):
        try:
            cluster.kill_now()
        except Exception:  # noqa: BLE001 - a signal handler must not fail; down() reports what is left
            pass


def _raise(signum) -> None:
    _state["raised"] = True
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


def _handler(signum, frame) -> None:
    _state["count"] += 1
    if _state["count"] > 1:
        kill_everything()
    if _state["cleaning"]:
        if not _state["raised"]:
            _state["pending"] = signum      # raised when the cleanup ends
        return
    _raise(signum)
