"""Degree separation with delegates (Pan, Pearce, Owens, "Scalable Breadth-First Search on a GPU
Cluster", IPDPS'18, Sec. III-A and VI-B): the partition.

Vertices of out-degree > TH (the *delegates*) are replicated on every rank: every rank
keeps one bit per delegate in the delegate masks and its depth, numbered 0..d-1 in global
id order (``delegates[j]`` is delegate j's global id; 32-bit wherever it is stored in a
subgraph). All other vertices (the *normal* ones) are 1D exactly as ``owned.partition.Ranges``:
contiguous, 64-aligned ranges balanced by edge count.

Interface (``Partition``): the result state of a vertex -- the parent and depth a search
returns, gathered and validated -- is held by its range owner, delegates included (their
"primary copy"); ``owner``/``to_local``/``local_counts``/``kernel_map`` are therefore
Ranges' and every generic piece (routing, validation, gather, Graph500 edge counts) works
unchanged. The replicated delegate copies are search state: ``delegate_index(v)`` maps a
global id to its delegate number (-1 for a normal vertex).

Threshold rule (``auto_threshold``, the paper's guidance of Sec. VI-B: "keep d, the
number of delegates, under n/P", with TH as small as that allows, so that the nn edges --
the only ones whose discoveries cross ranks point to point -- stay a small share; the paper
aims under 10%): TH is the smallest power of two with d(TH) <= n / (P * AUTO_DIVISOR),
AUTO_DIVISOR = 1. The chosen TH, d and the nn/nd/dn/dd shares are reported (``describe``).
Smaller TH grows the delegate mask and the delegate-parent stage, larger TH the nn exchange
(``bench/dist_delegates.py`` sweeps TH; the performance docs give its current table).
Out-degrees are those of the deduplicated, self-loop-free graph.

Invariants: ``delegates`` is sorted, unique, and holds exactly the vertices of out-degree
> ``threshold``; every rank holds the same array.
"""
from __future__ import annotations

import numpy as np

from ...checks import check_threshold
from ..owned.partition import Ranges

AUTO_DIVISOR = 1
HIST_BINS = 65


def degree_histogram(out_degree) -> np.ndarray:
    """hist[b] = vertices with ceil(log2(degree)) == b (degree 0 and 1 in bin 0): enough to count
    the delegates of every power-of-two threshold (degree > 2**k  <=>  bin >= k + 1)."""
    deg = np.asarray(out_degree, dtype=np.int64)
    bins = np.frexp(np.maximum(deg - 1, 0).astype(np.float64))[1].astype(np.int64)   # bit_length(deg - 1)
    return np.bincount(bins, minlength=HIST_BINS).astype(np.int64)[:HIST_BINS]


def delegates_above(hist, k: int) -> int:
    """Delegates of threshold 2**k from a ``degree_histogram`` (summed over ranks)."""
    return int(np.asarray(hist)[k + 1:].sum())


def auto_threshold(hist, num_vertices: int, nprocs: int) -> int:
    """The smallest power of two TH with d(TH) <= n / (P * AUTO_DIVISOR) (see the module header)."""
    limit = max(1.0, num_vertices / (max(1, nprocs) * AUTO_DIVISOR))
    for k in range(HIST_BINS - 1):
        if delegates_above(hist, k) <= limit:
            return 1 << k
    return 1 << (HIST_BINS - 2)


class Delegates(Ranges):
    """Owned ranges for result state plus ``delegates`` (global ids of out-degree > ``threshold``)
    replicated on every rank (see the module header)."""

    kind = "delegates"

    def __init__(self, bounds, rank: int, delegates, threshold):
        super().__init__(bounds, rank)
        dels = np.unique(np.asarray(delegates, dtype=np.int64))
        if dels.size and (dels[0] < 0 or dels[-1] >= self.num_vertices):
            raise ValueError("delegate ids out of range")
        self.delegates = dels
        self.threshold = check_threshold(threshold)
        self.stats: dict = {}          # edge shares and memory, filled by the construction

    @property
    def num_delegates(self) -> int:
        return int(self.delegates.size)

    def delegate_index(self, v) -> np.ndarray:
        """Delegate number of each global id in ``v``; -1 for normal vertices."""
        v = np.asarray(v, dtype=np.int64)
        if not self.delegates.size:
            return np.full(v.shape, -1, dtype=np.int64)
        k = np.minimum(np.searchsorted(self.delegates, v), self.delegates.size - 1)
        return np.where(self.delegates[k] == v, k, -1)

    def describe(self) -> dict:
        out = super().describe()
        out.update({"partition": self.kind, "threshold": self.threshold, "delegates": self.num_delegates})
        out.update(self.stats)
        return out
