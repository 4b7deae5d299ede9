"""Failure handling for distributed runs: one failing rank ends the whole job, never a hang.

* An exception escaping on any rank (including one caught by the CLI wrapper
  ``guarded``) prints ``breadth: rank R of P failed: <type>: <message>`` (with the
  traceback for unexpected errors) to stderr and calls ``MPI_Abort`` on
  COMM_WORLD, which makes mpiexec kill every rank within seconds.
* A rank killed by a signal cannot report anything; mpiexec notices the dead
  process and ends the job itself (Open MPI: "prterun noticed that process rank
  R ... exited on signal 9"). tests/distributed checks both cases.
* Errors every rank raises identically (bad arguments, a graph too large, a
  failed validation) are not failures of a rank: only rank 0 prints the error
  and every rank returns the error's exit code (2; 3 for a validation). An error is known to be such when it is marked
  (``comm.collective_error``, ``Comm.agree``); otherwise ``guarded`` asks the
  other ranks with a non-blocking barrier on a communicator kept for errors only
  (so it cannot match a collective the others are blocked in): if every rank
  arrives within ``AGREE_SECONDS`` all of them failed alike, else this rank alone
  failed and the job is aborted.
"""
from __future__ import annotations

import sys
import traceback

from ..errors import BreadthError

_installed = False
AGREE_SECONDS = 10.0


def _report(rank, size, exc, tb=None):
    if not isinstance(exc, BreadthError) and not isinstance(exc, KeyboardInterrupt):
        traceback.print_exception(type(exc), exc, tb if tb is not None else exc.__traceback__, file=sys.stderr)
    cause = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    print(f"breadth: rank {rank} of {size} failed: {cause}", file=sys.stderr, flush=True)


def abort(comm, exc, tb=None, code=1):
    """Report ``exc`` as this rank's failure and abort the whole job (does not return)."""
    try:
        _report(comm.rank, comm.size, exc, tb)
    finally:
        sys.stdout.flush()
        comm.mpi.Abort(code)


def install(comm):
    """Make an uncaught exception on this rank abort the job (sys.excepthook); idempotent."""
    global _installed
    if _installed or comm.size == 1:
        return
    previous = sys.excepthook

    def hook(etype, value, tb):
        if issubclass(etype, SystemExit):
            return previous(etype, value, tb)
        abort(comm, value, tb)

    sys.excepthook = hook
    _installed = True


def guarded(comm, body, command=None):
    """Run ``body()`` on every rank; returns its exit code.

    A BreadthError every rank raised: rank 0 prints ``breadth COMMAND: error: ...`` and
    every rank returns its ``exit_code`` (2; 3 for a failed validation) after rank 0 has
    printed (mpiexec ends the job as soon as one rank exits with a non-zero status).
    Anything else aborts the job.
    """
    try:
        return body()
    except BreadthError as exc:
        if comm.size == 1:
            raise
        if getattr(exc, "collective", False) or _everyone_failed(comm):
            if comm.rank == 0:
                print(f"breadth {command}: error: {exc}" if command else f"breadth: error: {exc}",
                      file=sys.stderr, flush=True)
            comm.errors.Barrier()
            return getattr(exc, "exit_code", 2)
        abort(comm, exc)
    except SystemExit:
        raise
    except BaseException as exc:  # noqa: BLE001 - any failure of a rank must end the job
        if comm.size == 1:
            raise
        abort(comm, exc)


def _everyone_failed(comm, timeout=None) -> bool:
    """Did every rank reach this point (within ``timeout`` seconds)? Uses the error communicator."""
    import time

    req = comm.errors.Ibarrier()
    deadline = time.monotonic() + (AGREE_SECONDS if timeout is None else timeout)
    while not req.Test():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True
