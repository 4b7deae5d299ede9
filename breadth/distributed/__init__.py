"""Distributed BFS on MPI (mpi4py): the engine, 1D partitioning, all-to-all and ButterFly exchanges.

Importing this package does not import mpi4py; it is loaded when a ``Comm`` or
``DistEngine`` is created, so single-node breadth works without MPI installed.

Modules: comm (counted communicator), partition (Partition, OneD), build
(distributed construction), exchange_alltoall, exchange_butterfly, steps (local
numba kernels), bfs1d (the search), validate (distributed validator), engine
(DistEngine), launch (``--ranks``: re-exec under mpiexec), failure (abort on a
rank's failure).
"""
from .partition import OneD, Partition

__all__ = ["Comm", "DistEngine", "OneD", "Partition"]


def __getattr__(name):
    if name == "Comm":
        from .comm import Comm

        return Comm
    if name == "DistEngine":
        from .engine import DistEngine

        return DistEngine
    raise AttributeError(name)
