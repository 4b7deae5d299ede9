"""The communication steps the cost models price: an operation (``Op``) is one step of a level as
a layout performs it -- a kind ("p2p", "alltoall", "allgather", "allreduce"), the group it runs in
(a range of ranks wherever the group is a progression: the world, a grid row or column, a
butterfly partner set), the latency steps it takes (``rounds``), the bytes the busiest rank sends,
the ids it packs or merges, the candidate pairs it routes to their owners (packed at the sender,
settled at the owner: ``Machine.engine_route``), and the job's messages and bytes as ``Comm``
counts them. Its time on a
machine is ``network.Machine.op_seconds``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

KINDS = ("p2p", "alltoall", "allgather", "allreduce")


def rounds_of(kind: str, q: int) -> int:
    """Latency steps of a collective on q ranks (pairwise all-to-all, recursive doubling otherwise)."""
    if q <= 1:
        return 0
    if kind == "alltoall":
        return q - 1
    if kind in ("allgather", "allreduce"):
        return max(1, math.ceil(math.log2(q)))
    return 1


@dataclass(frozen=True)
class Op:
    """One communication step of a level (see the module header)."""

    name: str
    kind: str
    group: tuple
    rounds: int
    bytes: float              # bytes the busiest rank of the group sends in this step
    items: float = 0.0        # ids the busiest rank packs or merges (local work, like edges)
    messages: float = 0.0     # messages of this step in the whole job (every group), as ``Comm`` counts
    volume: float = 0.0       # bytes of this step in the whole job
    pairs: float = 0.0        # (vertex, parent) pairs the busiest rank routes to their owners and settles

    @property
    def is_round(self) -> bool:
        """A round of an exchange that works in rounds (ButterFly's "round i" steps)."""
        return self.name.startswith("round")


def message_bytes(op: Op) -> float:
    """Bytes of one message of ``op`` (to one peer): a collective's per-peer block, a point-to-point
    step's bytes per round and partner."""
    peers = max(1, len(op.group) - 1)
    if op.kind == "p2p":
        return op.bytes / max(1, op.rounds) / peers
    return op.bytes / peers


def id_bytes(n: float) -> int:
    """Bytes of a vertex id in messages (int32 while every id fits, as ``owned.build.vertex_dtype``)."""
    return 4 if n < 2 ** 31 else 8


def world(P: int) -> range:
    """Every rank (a ``range``: groups are ranges wherever they are progressions, so that
    ``Machine`` counts them per host in closed form)."""
    return range(int(P))


def control_op(P: int, nbytes: int = 16) -> Op:
    """The small Allreduce most layouts run each level (frontier size, scout count)."""
    q = int(P)
    return Op("control", "allreduce", world(q), rounds_of("allreduce", q), nbytes, 0.0, q * (q - 1),
              q * (q - 1) * nbytes)
