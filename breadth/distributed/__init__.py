"""Distributed BFS on MPI (mpi4py): the engine, what every layout shares, and one package per layout family.

Importing this package does not import mpi4py (nor compile anything); MPI is loaded
when a ``Comm`` or ``DistEngine`` is created, so single-node breadth works without MPI.

Shared by every layout (this folder):

* ``engine`` -- ``DistEngine`` (Graph500 kernels 0-2 and validation, any layout); ``launch`` -- ``--ranks``;
* ``runtime`` -- launch environment, threads per rank, the error policy (agree, abort, guarded);
* ``comm`` -- the counted communicator (``Comm``, with ``split`` for row/column communicators);
* ``layout`` -- what a layout is (``Layout``, ``Param``); ``registry`` -- the registered layouts;
* ``search_base`` -- options, the search frame (``DistSearch``), ``DistBFSResult``;
  ``levelstats`` -- the per-level report, identical across layouts;
* ``exchange`` -- the ``Exchange`` interface; ``planner`` -- ``--partition auto`` and ``breadth plan``;
* ``faults`` -- bounded failure: the stall watchdog on every rank, the launcher's one-line failure message.

The base under every family: ``owned`` -- the ``Partition`` interface and the owned ranges, the rows a
rank owns and their construction, the owned steps and their all-to-all exchange, validation, memory.

Layout families (each package's header names its paper and sections; each holds its partition,
search, cost model and ``LAYOUTS``):

* ``one_d`` -- 1D ranges with the all-to-all or the ButterFly exchange (Green);
* ``two_d`` -- a 2D processor grid with expand/fold (Beamer, Buluc et al.) or the bitmap scan (Fu et al.);
* ``delegates`` -- degree separation with replicated delegates (Pan, Pearce, Owens).
"""
from .exchange import Exchange
from .one_d.partition import OneD
from .owned.partition import Partition

__all__ = ["Comm", "DistEngine", "Exchange", "OneD", "Partition"]


def __getattr__(name):
    if name == "Comm":
        from .comm import Comm

        return Comm
    if name == "DistEngine":
        from .engine import DistEngine

        return DistEngine
    raise AttributeError(name)
