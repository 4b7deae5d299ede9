"""The delegates layout's exchange (Pan, Pearce, Owens, "Scalable Breadth-First Search on a GPU
Cluster", IPDPS'18, Sec. V "communication"): the nn ids go to their owners with one counted
``Alltoallv``, the delegate mask is OR-reduced (or its new bits all-gathered), and the parent
requests after the last level ride the same ids path.

``MASK_MODES`` are the ways the delegate mask is shared (see ``search``'s header).
"""
from __future__ import annotations

import numpy as np

from ...errors import InputError
from ...kernels.frontier import num_words
from ..owned.alltoall import AllToAll

MASK_MODES = ("allreduce", "iallreduce", "overlap")
DEFAULT_MASK = "allreduce"


def check_mask(value) -> str:
    """The delegate-mask sharing: one of ``MASK_MODES``."""
    if value not in MASK_MODES:
        raise InputError(f"mask must be one of {', '.join(MASK_MODES)}, got {value!r}")
    return value



class DelegateExchange(AllToAll):
    """nn ids to their owners (``send_ids``), the delegate-mask sharing and the parent requests."""

    name = "alltoall"

    def __init__(self, comm, partition, dtype, mask=DEFAULT_MASK):
        super().__init__(comm, partition, dtype)
        self.mask_words = num_words(partition.num_delegates)
        self.mask = mask

    def send_ids(self, ids, header=None, between=None):
        """Send each global id in ``ids`` to its owner (``header``: one int64 per destination riding
        in the count Alltoall; ``between``: see ``Comm.alltoallv_header``). Returns (received ids,
        sending rank of each, received headers or None)."""
        P, bounds = self.comm.size, self.partition.bounds
        ids = np.sort(ids)
        per_rank = np.diff(np.searchsorted(ids, bounds)).astype(np.int64)
        send = ids.astype(self.dtype)
        if header is None:
            recv, rcounts = self.comm.alltoallv(send, per_rank, category="exchange")
            got = None
        else:
            recv, rcounts, got = self.comm.alltoallv_header(send, per_rank, np.full((P, 1), header), "exchange",
                                                            between)
            got = got[:, 0]
        return recv, np.repeat(np.arange(P, dtype=np.int64), rcounts), got

    def reduce_mask(self, mask) -> np.ndarray:
        """The OR of every rank's ``mask`` (one Allreduce, category exchange)."""
        return self.comm.allreduce(mask, op="bor", category="exchange")

    def describe(self) -> dict:
        return {"exchange": self.name, "fanout": None, "delegate_mask": self.mask}
