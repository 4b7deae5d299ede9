"""Sharing groups among MPI ranks: the many-GPU scheme of iBFS (section 8.3) on CPU ranks.

Groups are independent, so ranks need no communication while traversing:
every rank holds the whole graph, rank 0 is a dispatcher that hands out group
ids one at a time to whichever worker asks (dynamic assignment, so groups of
uneven cost balance) and gathers their results (checkpointing them as they
arrive); ranks 1.. compute. With a single rank the groups run in order.

Protocol (pickled messages, tag WORK): a worker sends ``None`` when it starts
and its ``GroupResult`` after each group; each message is answered with the
next group id, or ``None`` to stop. The dispatcher waits with ``Iprobe`` and a
short sleep instead of a spinning blocking receive, leaving its core to the
workers.

A failure on any rank must not leave the others waiting forever: errors
inside the run call ``MPI_Abort`` on the world, and ``install_abort_hook``
makes any uncaught exception do the same.
"""
from __future__ import annotations

import os
import sys
import time
import traceback
from collections import deque

from ..errors import BreadthError, InputError

WORK = 17
_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")  # set by Open MPI's and MPICH's launchers


def launched_size() -> int:
    """Ranks in the job this process was started in (1 when not under mpiexec); no MPI import."""
    for var in _SIZE_VARS:
        val = os.environ.get(var)
        if val and val.isdigit():
            return int(val)
    return 1


def world():
    """MPI.COMM_WORLD when started by mpiexec with more than one rank, else None."""
    if launched_size() <= 1:
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        raise InputError("started under mpiexec but mpi4py is not installed "
                         "(pip install 'breadth[mpi]')") from None
    comm = MPI.COMM_WORLD
    return comm if comm.Get_size() > 1 else None


def worker_threads(comm) -> int:
    """numba threads for a rank: its host's cores shared among the host's computing ranks
    (rank 0 only dispatches, so it does not count). Collective over ``comm``."""
    import numba
    from mpi4py import MPI

    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    local = node.Get_size()
    has_root = node.allreduce(1 if comm.Get_rank() == 0 else 0)
    node.Free()
    try:
        mine = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        mine = os.cpu_count() or 1
    share = (os.cpu_count() or 1) // max(1, local - has_root)
    return max(1, min(mine, share, numba.config.NUMBA_NUM_THREADS))


def abort(comm, code: int = 1) -> None:
    """Print the active exception and abort every rank of ``comm``'s job."""
    traceback.print_exc()
    sys.stderr.flush()
    sys.stdout.flush()
    comm.Abort(code)


def install_abort_hook(comm) -> None:
    """Make an uncaught exception on this rank abort the whole job instead of hanging it."""
    if comm is None:
        return
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        comm.Abort(1)

    sys.excepthook = hook


def check_all(comm, error: BreadthError | None) -> None:
    """Collective: raise on every rank the first error any rank met (so all stop together)."""
    if comm is None:
        if error is not None:
            raise error
        return
    msgs = comm.allgather(None if error is None else str(error))
    for m in msgs:
        if m is not None:
            if error is not None:
                raise error
            raise InputError(m)


def dispatch(comm, todo, compute, collect) -> None:
    """Run ``compute(gi)`` for every gi in ``todo``; ``collect(result)`` runs on rank 0."""
    if comm is None or comm.Get_size() == 1:
        for gi in todo:
            collect(compute(gi))
        return
    try:
        if comm.Get_rank() == 0:
            _dispatcher(comm, deque(todo), collect)
        else:
            _worker(comm, compute)
    except BaseException:  # noqa: BLE001 - any failure must take the job down, not hang it
        abort(comm)


def _dispatcher(comm, pending, collect) -> None:
    from mpi4py import MPI

    status = MPI.Status()
    live = comm.Get_size() - 1
    while live:
        while not comm.Iprobe(source=MPI.ANY_SOURCE, tag=WORK, status=status):
            time.sleep(0.001)
        src = status.Get_source()
        msg = comm.recv(source=src, tag=WORK)
        if msg is not None:
            collect(msg)
        if pending:
            comm.send(pending.popleft(), dest=src, tag=WORK)
        else:
            comm.send(None, dest=src, tag=WORK)
            live -= 1


def _worker(comm, compute) -> None:
    comm.send(None, dest=0, tag=WORK)
    while True:
        gi = comm.recv(source=0, tag=WORK)
        if gi is None:
            return
        comm.send(compute(gi), dest=0, tag=WORK)
