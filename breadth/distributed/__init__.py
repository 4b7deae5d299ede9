"""Distributed BFS on MPI (mpi4py): the engine, its layouts (partition + exchange), the MPI runtime.

Importing this package does not import mpi4py (nor compile anything); MPI is loaded
when a ``Comm`` or ``DistEngine`` is created, so single-node breadth works without MPI.

Modules:

* ``runtime`` -- launch environment, threads per rank, the error policy (agree, abort, guarded);
* ``comm`` -- the counted communicator (``Comm``, with ``split`` for row/column communicators);
* ``partition`` -- the ``Partition`` interface and ``OneD``; ``exchange`` -- the ``Exchange`` interface;
* ``registry`` -- layouts: (partition, exchange) -> builder, search, validator, memory estimate;
* ``layout_1d`` -- the 1D layouts: ``build`` (distributed construction), ``exchange_alltoall`` +
  ``search_alltoall`` + ``steps_owned``, ``exchange_butterfly`` + ``search_butterfly`` + ``steps_replicated``;
* ``search_base`` (options, the search frame, ``DistBFSResult``), ``levelstats`` (per-level report),
  ``validate`` (distributed validator), ``engine`` (``DistEngine``), ``launch`` (``--ranks``).
"""
from .exchange import Exchange
from .partition import OneD, Partition

__all__ = ["Comm", "DistEngine", "Exchange", "OneD", "Partition"]


def __getattr__(name):
    if name == "Comm":
        from .comm import Comm

        return Comm
    if name == "DistEngine":
        from .engine import DistEngine

        return DistEngine
    raise AttributeError(name)
