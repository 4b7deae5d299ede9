"""The 1D partition (O. Green, "ButterFly BFS -- An Efficient Communication Pattern for Multi Node
Traversals", Sec. 4 "Graph Partitioning"): every rank owns one contiguous, 64-aligned,
edge-balanced range of vertex ids and their whole adjacency -- the owned rows
(``owned.partition.Ranges``) and nothing besides.

Invariants: those of ``Ranges`` (``bounds`` non-decreasing from 0 to n, inner bounds multiples
of 64 or n; rank r owns [bounds[r], bounds[r+1])).
"""
from __future__ import annotations

from ..owned.partition import Ranges


class OneD(Ranges):
    """The owned ranges alone: the partition of the 1D layouts ("1d").

    Args:
        bounds: as ``Ranges``: rank r owns ids ``bounds[r]:bounds[r + 1]``.
        rank: this rank.

    Examples:
        >>> from breadth.distributed import OneD
        >>> p = OneD([0, 64, 100], rank=1)
        >>> p.kind, p.owner(np.array([3, 70]))
        ('1d', array([0, 1]))
    """

    kind = "1d"
