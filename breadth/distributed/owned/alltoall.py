"""All-to-all frontier exchange on owned rows (the classic 1D pattern the ButterFly paper replaces;
Buluç & Madduri, SC'11, 1D algorithm). The 1D all-to-all layout runs it, the delegates
exchange extends it.

Top-down levels: every rank routes the (vertex, parent) pairs it discovered for
vertices it does not own to their owners -- grouped by owner with the routing
kernels of ``owned.build`` and moved with one ``Alltoallv`` (after an ``Alltoall``
of the counts) -- and each owner settles the pairs for its still-unvisited
vertices. Per level every rank sends 2(P - 1) messages (counts and data, empty
ones included), P(P - 1) each summed over ranks: the O(P^2) of the paper.

Bottom-up levels need the whole frontier on every rank: each rank contributes
its owned words of the frontier bitmap (ranges are 64-aligned) and one
``Allgatherv`` concatenates them (P - 1 messages per rank, V/8 bytes in all).

State: owners keep parent and depth of their vertices only; a rank's memory is
O(V/P + E/P) plus two V-bit bitmaps (the gathered frontier and the ``sent`` set).
"""
from __future__ import annotations

from ...kernels.policy import TD
from ..exchange import Exchange
from .build import pack_arcs


def alltoall_state_bytes(n, isz, arcs) -> float:
    """The exchange's state beside the rows (``memory.owned_rank_bytes``): the two V-bit bitmaps and
    the candidate pairs (16 bytes per routed arc at most)."""
    return n / 4 + 16 * arcs


class AllToAll(Exchange):
    """Routes discovered pairs to owners; gathers frontier bitmaps."""

    name = "alltoall"

    def __init__(self, comm, partition, dtype):
        super().__init__(comm)
        self.partition = partition
        self.dtype = dtype
        self.word_counts = partition.word_counts()

    @property
    def nbytes(self) -> int:
        return 0          # no buffers of its own: the search holds the frontier bitmaps

    def messages_per_level(self, direction: int) -> int:
        """Top-down: the count Alltoall and the data Alltoallv, 2 P (P - 1); bottom-up: one Allgatherv."""
        P = self.comm.size
        return (2 if direction == TD else 1) * P * (P - 1)

    def route(self, cand_v, cand_p, count):
        """Send pairs (cand_v[i], cand_p[i]), i < count, to owner(cand_v[i]).

        Returns (received pairs interleaved as [v0, p0, v1, p1, ...], number of pairs).
        """
        send, per_rank = pack_arcs(cand_v[:count], cand_p[:count], self.partition, False, self.dtype)
        recv, _ = self.comm.alltoallv(send, 2 * per_rank, category="exchange")
        return recv, recv.size // 2

    def gather_frontier(self, local_words, front):
        """front := concatenation of every rank's frontier words (one Allgatherv)."""
        self.comm.allgatherv(local_words, counts=self.word_counts, out=front, category="exchange")
        return front
