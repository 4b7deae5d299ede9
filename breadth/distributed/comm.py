"""The communicator every distributed algorithm in breadth uses: mpi4py with counters.

``Comm`` wraps an mpi4py communicator and times and counts every operation it performs, per BFS
level and per phase (construction, search, validation). What is counted, exactly (the rule the
tests and reports rely on):

* a point-to-point send to another rank is **one message** carrying its payload bytes -- an
  empty send included, since the receiver still waits for it;
* a collective counts, for this rank, **one message per peer that its data logically reaches**,
  carrying that data: ``Alltoall(v)`` P-1 messages with the per-destination blocks (empty blocks
  included: every pair exchanges); ``Allgather(v)`` P-1 messages of this rank's block;
  ``Allreduce`` P-1 messages of the whole buffer; ``Bcast`` P-1 messages from the root. This is
  the information flow of the "all-to-all" pattern the ButterFly paper compares against,
  independent of the algorithm MPI runs underneath;
* messages to oneself and barriers carry nothing and are not counted (a barrier's time is);
  seconds are wall time inside the MPI calls (waiting included).

Counts are kept per *category*: ``exchange`` (the frontier exchange, what the paper's message
formula counts) and ``control`` (small collectives that steer the search: frontier sizes, scout
counts); per level of the search in progress (``Comm.level_log``) and per phase (``Comm.totals``).

``Comm.split`` makes sub-communicators (the rows and columns of a 2D processor grid) counted in
the same tallies, phases and levels as their parent, by the same rules (a collective on q ranks
counts q - 1 messages; ``sendrecv`` one message unless the destination is this rank). Inside
``with comm.operation("fold"):`` every message is also counted under that name for the current
level (``Comm.operation_log``), so an exchange made of several steps (transpose, expand, fold,
rotate ...) reports each step's messages and bytes separately.

Every MPI operation updates the stall watchdog's heartbeat (``faults.watchdog.HEARTBEAT``: the
operation, phase, level). mpi4py is imported lazily (``runtime.get_mpi``).
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..errors import BreadthError
from .comm_ops import Operations
from .faults.watchdog import HEARTBEAT
from .ledger import CATEGORIES, Ledger, Tally
from .runtime import agree, collective_error, get_mpi

__all__ = ["Comm", "Tally", "CATEGORIES", "collective_error", "get_mpi"]


class Comm(Operations):
    """An mpi4py communicator that counts messages, bytes and seconds (see the module header).

    Args:
        mpicomm: the mpi4py communicator to wrap (None: ``MPI.COMM_WORLD``).

    Examples:
        >>> from breadth.distributed import Comm
        >>> comm = Comm()
        >>> comm.rank, comm.size
        (0, 1)
        >>> comm.allreduce(np.array([3, 4]))
        array([3, 4])
    """

    def __init__(self, mpicomm=None, *, _ledger: Ledger | None = None):
        MPI = get_mpi()
        self.MPI = MPI
        self.mpi = MPI.COMM_WORLD if mpicomm is None else mpicomm
        self.rank = self.mpi.Get_rank()
        self.size = self.mpi.Get_size()
        self.errors = self.mpi.Dup()          # used only to agree on failures (runtime.guarded)
        self._ledger = Ledger() if _ledger is None else _ledger
        self._local_size = None

    def split(self, color: int, key: int | None = None) -> "Comm":
        """The sub-communicator of the ranks passing the same ``color`` (collective).

        Args:
            color: the group this rank joins.
            key: its order in the group (None: its rank here).

        Returns:
            A ``Comm`` counted in this communicator's tallies.
        """
        sub = self.mpi.Split(int(color), self.rank if key is None else int(key))
        return Comm(sub, _ledger=self._ledger)

    def free(self):
        """Release a communicator made by ``split`` (the world is never freed)."""
        if self.mpi != self.MPI.COMM_WORLD:
            self.errors.Free()
            self.mpi.Free()

    # ------------------------------------------------------------------ bookkeeping
    @property
    def totals(self) -> dict[str, dict[str, Tally]]:
        """Per-phase tallies of this rank: ``totals[phase][category]``."""
        return self._ledger.totals

    @property
    def level_log(self) -> list[dict[str, Tally]] | None:
        """Per-level tallies of the search in progress (None outside ``begin_levels``/``end_levels``)."""
        return self._ledger.level_log

    @property
    def operation_log(self) -> list[dict[str, Tally]]:
        """Per level of the current (or last) search, the tallies of labelled operations by name."""
        return self._ledger.op_log

    @contextmanager
    def operation(self, name: str):
        """Count the messages inside also under operation ``name`` (per level, see ``operation_log``).

        Args:
            name: the operation ("fold", "expand", ...).
        """
        ledger = self._ledger
        old = ledger.operation
        ledger.operation = name
        try:
            yield
        finally:
            ledger.operation = old

    @contextmanager
    def phase(self, name: str):
        """Attribute the operations inside to phase ``name``.

        Args:
            name: the phase ("construct", "search", "validate").
        """
        ledger = self._ledger
        old = ledger.phase
        ledger.phase = HEARTBEAT.phase = name
        try:
            yield
        finally:
            ledger.phase = HEARTBEAT.phase = old

    def begin_levels(self):
        """Start the per-level tallies of a search (``level_log``).
        """
        HEARTBEAT.begin_search()
        self._ledger.level_log = []
        self._ledger.op_log = []

    def next_level(self):
        """Start the tallies of the next level.
        """
        HEARTBEAT.next_level()
        self._ledger.level_log.append({c: Tally() for c in CATEGORIES})
        self._ledger.op_log.append({})

    def end_levels(self) -> list[dict[str, Tally]]:
        """End the per-level tallies of a search.

        Returns:
            The per-level tallies, ``[level][category]``.
        """
        HEARTBEAT.end_search()
        log, self._ledger.level_log = self._ledger.level_log, None
        return log

    def _account(self, category, messages, nbytes, seconds):
        HEARTBEAT.waiting = None
        ledger = self._ledger
        per_phase = ledger.totals.setdefault(ledger.phase, {c: Tally() for c in CATEGORIES})
        per_phase[category].add(messages, nbytes, seconds)
        if ledger.level_log:
            ledger.level_log[-1][category].add(messages, nbytes, seconds)
            if ledger.operation is not None:
                ledger.op_log[-1].setdefault(ledger.operation, Tally()).add(messages, nbytes, seconds)

    def reduced_phase_totals(self, name: str) -> dict:
        """Phase totals summed over ranks (collective, not counted).

        Args:
            name: the phase.

        Returns:
            ``{category: {"messages", "bytes", "seconds"}}``: sums over ranks, seconds the maximum.
        """
        mine = self.totals.get(name, {c: Tally() for c in CATEGORIES})
        local = np.array([[mine[c].messages, mine[c].bytes, mine[c].seconds] for c in CATEGORIES], dtype=np.float64)
        every = np.empty((self.size,) + local.shape, dtype=np.float64)
        HEARTBEAT.begin("Allgather (phase totals)")
        self.mpi.Allgather(local, every)
        HEARTBEAT.end()
        return {c: {"messages": int(every[:, i, 0].sum()), "bytes": int(every[:, i, 1].sum()),
                    "seconds": float(every[:, i, 2].max())} for i, c in enumerate(CATEGORIES)}

    @property
    def local_size(self) -> int:
        """Ranks sharing this rank's host (they share its memory)."""
        if self._local_size is None:
            node = self.mpi.Split_type(self.MPI.COMM_TYPE_SHARED)
            self._local_size = node.Get_size()
            node.Free()
        return self._local_size

    # ------------------------------------------------------------------ agreement
    def agree(self, error: BreadthError | None):
        """``runtime.agree`` over this communicator (not counted).

        If any rank passes an error, every rank raises the lowest failing rank's error, of its class,
        marked collective.

        Args:
            error: this rank's error, or None.
        """
        agree(self, error)
