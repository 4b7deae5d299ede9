"""The ``Exchange`` interface: how one BFS level's discoveries reach the ranks that need them.

A distributed search is a partition (who holds which vertices, ``owned.partition.Partition``),
local steps (the single-node kernels with their own per-edge visits) and an exchange
between levels. Every exchange implements this interface:

* ``name`` -- what ``--exchange`` calls it; ``describe()`` its parameters for reports;
* ``nbytes`` -- the buffers it holds for the life of the search state (memory reports);
* ``messages_per_level(direction)`` -- the messages one level of that direction
  (``policy.TD`` / ``policy.BU``) sends in the ``exchange`` category, summed over
  ranks, exactly as ``Comm`` counts them: the exchange's schedule, which the tests
  check level by level against the counted traffic;
* ``operations`` -- the names of the steps the exchange labels with ``Comm.operation``
  (empty: none; then no per-operation report is gathered), and
  ``operation_messages(direction)`` -- the messages of each of them in one level;
* ``messages_after_levels()`` -- the messages of a step after the last level (0: none).

The operations themselves differ by what the exchange moves (pairs routed to owners,
frontier bitmaps gathered, a replicated queue synchronised, a row contracted ...) and
are used by the search written for that exchange (see ``registry``), which is why they
are not part of this interface. Counting rule: every operation goes through the
search's ``Comm`` with category ``"exchange"``.

Implementations: ``owned.alltoall.AllToAll``, ``one_d.butterfly_exchange.Butterfly``,
``two_d.fold_exchange.Fold``, ``two_d.scan_exchange.Scan``, ``delegates.exchange.DelegateExchange``.
"""
from __future__ import annotations

from abc import ABC, abstractmethod


class Exchange(ABC):
    """A frontier exchange over ``comm`` (a counted ``Comm``).

    Args:
        comm: the counted communicator the exchange sends over.

    Examples:
        >>> from breadth.distributed import Exchange
        >>> sorted(Exchange.__abstractmethods__)
        ['messages_per_level', 'nbytes']
    """

    name = "abstract"
    operations: tuple[str, ...] = ()

    def __init__(self, comm):
        self.comm = comm

    @property
    @abstractmethod
    def nbytes(self) -> int:
        """Bytes of the buffers this exchange keeps."""

    @abstractmethod
    def messages_per_level(self, direction: int) -> int:
        """Exchange messages of one level, summed over ranks (the schedule ``Comm`` must count).

        Args:
            direction: ``policy.TD`` or ``policy.BU``.

        Returns:
            The message count.
        """

    def operation_messages(self, direction: int) -> dict[str, int]:
        """Per labelled operation (``operations``), its exchange messages in one level, summed over ranks.

        Args:
            direction: ``policy.TD`` or ``policy.BU``.

        Returns:
            A dict operation name -> message count (empty: no labelled operations).
        """
        return {}

    def messages_after_levels(self) -> int:
        """Exchange messages of the step after the last level, summed over ranks.

        Returns:
            The message count (0: no such step).
        """
        return 0

    def describe(self) -> dict:
        """The exchange and its parameters, for reports.

        Returns:
            A dict: ``exchange`` (its name), ``fanout`` (None when it has none) and its own entries.
        """
        return {"exchange": self.name, "fanout": None}
