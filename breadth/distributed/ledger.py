"""Where ``Comm`` counts: the ``Tally`` of messages, bytes and seconds, and the ``Ledger``.

A ``Ledger`` holds what a communicator and its sub-communicators (``Comm.split``) count
into together: per-phase totals per category (``CATEGORIES``: ``exchange``, the frontier
exchange, and ``control``, the collectives that steer a search), the per-level log of the
search in progress and the per-operation log. The counting rules themselves are in
``breadth.distributed.comm``'s header; this module holds only the records.
"""
from __future__ import annotations

from dataclasses import dataclass

CATEGORIES = ("exchange", "control")


@dataclass
class Tally:
    messages: int = 0
    bytes: int = 0
    seconds: float = 0.0

    def add(self, messages, nbytes, seconds):
        self.messages += int(messages)
        self.bytes += int(nbytes)
        self.seconds += float(seconds)

    def as_dict(self) -> dict:
        return {"messages": self.messages, "bytes": self.bytes, "seconds": self.seconds}


class Ledger:
    """Where a communicator and its sub-communicators count: per-phase totals, the level log."""

    def __init__(self):
        self.totals: dict[str, dict[str, Tally]] = {}
        self.level_log: list[dict[str, Tally]] | None = None
        self.op_log: list[dict[str, Tally]] = []
        self.operation: str | None = None
        self.phase = "setup"
