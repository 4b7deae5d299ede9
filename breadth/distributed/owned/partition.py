"""Vertex partitions of a distributed graph: who holds a vertex's state, local <-> global ids.

``Partition`` is the interface every distributed layout implements; ``Ranges`` here is the
base of every family's partition (``one_d.partition.OneD``, ``delegates.partition.Delegates``,
``two_d.grid.Grid2D``). Callers -- the searches, the
validator, the engine, the exchanges -- use only this interface, never a layout's own
attributes:

* Python side: ``owner(v)``, ``owns(v)``, ``to_local(v)``, ``to_global(local)`` on
  global ids (int64 everywhere), ``num_local`` and ``local_counts()`` (vertices each
  rank holds), ``word_counts()`` (each rank's words of a global frontier bitmap),
  ``allgather(comm, values)`` / ``gather(comm, values, root)`` (a per-vertex array,
  on every rank / on one, from every rank's local values);
* numba side: ``kernel_map()`` returns a small NamedTuple of arrays and scalars that
  jitted kernels pass to the generic functions ``owner_of(pmap, v)``,
  ``local_of(pmap, v)`` (the local id of v on this rank, -1 if this rank holds no
  state for v) and ``global_of(pmap, local)``. Each layout registers its own
  implementations of the three for its map type with ``numba.extending.overload``
  (inlined, so an ownership test costs what the layout's arithmetic costs), so the
  same kernel serves every layout: a layout where some vertices are replicated on
  every rank answers ``local_of`` >= 0 for them everywhere, one that splits rows and
  columns answers from its own ranges. Inside the top-down block walk the map
  travels in the visit's ``ctx``, which the walk borrows (``kernels.atomics.borrowed``),
  so arrays in a map cost no reference counting per edge.

Local ids number the vertices whose state this rank holds, 0..num_local-1.

``Ranges`` is the owned-rows partition of the ButterFly paper (Green, Sec. 4 "Graph
Partitioning"), which every family starts from: every rank owns one contiguous range of
vertex ids and their whole adjacency, the ranges chosen so that every rank holds about the same
number of edges. Ranges start on multiples of 64, so a rank's slice of a
frontier bitmap is whole 64-bit words (the bottom-up all-gather concatenates
words). A rank may own no vertex at all (a tiny graph, or one hub carrying most
edges); every algorithm must accept empty ranges. Its kernel map is
``RangeMap(bounds, lo, hi)``.

Invariants (Ranges): ``bounds`` is non-decreasing, ``bounds[0] == 0``, ``bounds[P] == n``,
every inner bound is a multiple of 64 or n; rank r owns [bounds[r], bounds[r+1]).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

import numpy as np
from numba import prange, types
from numba.extending import overload

from ...docstrings import shared_args
from ...errors import InputError
from ...jit import njit

BLOCK = 64   # partition granularity in vertices (one bitmap word)
# the parameters the interface's methods share (``breadth.docstrings.shared_args``)
_ARGS = {
    "v": "global vertex ids (an int or an int64 array).",
    "comm": "the counted ``Comm`` of the layout's ranks.",
    "values": "this rank's per-local-vertex array.",
}


class Partition(ABC):
    """Interface of a vertex partition over ``nprocs`` ranks, seen from ``rank`` (see the module header).

    Each layout names its class (``Layout.partition_type``): ``Ranges`` and its subclasses.

    Examples:
        >>> from breadth.distributed import OneD, Partition
        >>> isinstance(OneD([0, 64, 100], rank=1), Partition)
        True
    """

    num_vertices: int
    nprocs: int
    rank: int
    kind = "abstract"

    @abstractmethod
    @shared_args(_ARGS)
    def owner(self, v) -> np.ndarray:
        """Rank owning each global id in ``v`` (the rank messages about the vertex go to).

        Returns:
            An int64 array of ranks.
        """

    @abstractmethod
    @shared_args(_ARGS)
    def to_local(self, v) -> np.ndarray:
        """Local ids of global ids ``v`` whose state this rank holds.

        Returns:
            An int64 array of local ids.
        """

    @abstractmethod
    def to_global(self, local) -> np.ndarray:
        """Global ids of this rank's local ids.

        Args:
            local: local ids (an int or an array).

        Returns:
            An int64 array of global ids.
        """

    @property
    @abstractmethod
    def num_local(self) -> int:
        """Vertices whose state this rank holds."""

    @abstractmethod
    def local_counts(self) -> np.ndarray:
        """``num_local`` of every rank.

        Returns:
            An int64 array, in rank order.
        """

    @abstractmethod
    def word_counts(self) -> np.ndarray:
        """Per rank, the 64-bit words of a global frontier bitmap its own vertices occupy: concatenating
        every rank's words of its local frontier (bit = local id) in rank order gives the global bitmap.

        Returns:
            An int64 array, in rank order.
        """

    @abstractmethod
    def kernel_map(self) -> tuple:
        """The map numba kernels pass to ``owner_of`` / ``local_of`` / ``global_of``.

        Returns:
            The layout's NamedTuple of arrays and scalars (``RangeMap`` for ``Ranges``).
        """

    @shared_args(_ARGS)
    def owns(self, v) -> np.ndarray:
        """Whether this rank owns each global id in ``v``.

        Returns:
            A bool array.
        """
        return self.owner(v) == self.rank

    @shared_args(_ARGS)
    def allgather(self, comm, values) -> np.ndarray:
        """A per-vertex array on every rank from every rank's per-local-vertex ``values``.

        One ``Allgatherv`` in rank order, counted by ``comm``; a layout whose local ids are not
        rank-ordered ranges of global ids overrides this.

        Returns:
            The array indexed by global id.
        """
        return comm.allgatherv(np.ascontiguousarray(values), counts=self.local_counts())

    @shared_args(_ARGS)
    def gather(self, comm, values, root: int = 0):
        """``allgather`` to rank ``root`` only (reporting, not counted).

        Args:
            root: the rank that receives.

        Returns:
            The array indexed by global id on ``root``, None elsewhere.
        """
        return comm.gatherv(np.ascontiguousarray(values), root)

    def describe(self) -> dict:
        """The partition for reports.

        Returns:
            A dict: ``partition`` (its kind), ``ranks`` and the layout's own entries.
        """
        return {"partition": self.kind, "ranks": self.nprocs}


# ---------------------------------------------------------------------- ownership in kernels
def owner_of(pmap, v):
    """Rank owning global id ``v`` (njit; implemented per map type)."""
    raise NotImplementedError("owner_of is called from jitted code")


def local_of(pmap, v):
    """Local id of global id ``v`` on this rank, -1 if this rank holds no state for it (njit)."""
    raise NotImplementedError("local_of is called from jitted code")


def global_of(pmap, local):
    """Global id of this rank's local id (njit)."""
    raise NotImplementedError("global_of is called from jitted code")


class RangeMap(NamedTuple):
    """Kernel map of a partition into contiguous ranges: rank r owns [bounds[r], bounds[r+1]) = [lo, hi) here."""

    bounds: np.ndarray
    lo: int
    hi: int


def _is_map(pmap, cls) -> bool:
    return isinstance(pmap, types.BaseNamedTuple) and pmap.instance_class is cls


@overload(owner_of, inline="always")
def _range_owner_of(pmap, v):
    if _is_map(pmap, RangeMap):
        return lambda pmap, v: np.searchsorted(pmap.bounds, v, side="right") - 1


@overload(local_of, inline="always")
def _range_local_of(pmap, v):
    if _is_map(pmap, RangeMap):
        def impl(pmap, v):
            loc = np.int64(v) - pmap.lo
            if loc < 0 or loc >= pmap.hi - pmap.lo:
                loc = np.int64(-1)
            return loc
        return impl


@overload(global_of, inline="always")
def _range_global_of(pmap, local):
    if _is_map(pmap, RangeMap):
        return lambda pmap, local: np.int64(local) + pmap.lo


@njit(parallel=True, cache=True)
def _block_weights(src, dst, nblocks, weights):
    """weights[c, b] += non-self-loop tuple endpoints in vertex block b (chunk c of the tuples)."""
    nchunks = weights.shape[0]
    m = src.size
    for c in prange(nchunks):
        row = weights[c]
        for e in range(m * c // nchunks, m * (c + 1) // nchunks):
            s = src[e]
            d = dst[e]
            if s != d:
                row[s // 64] += 1
                row[d // 64] += 1


def block_weights(src, dst, num_vertices) -> np.ndarray:
    """Per 64-vertex block, the arcs its vertices will hold (before deduplication)."""
    import numba

    nblocks = (num_vertices + BLOCK - 1) // BLOCK
    nchunks = max(1, min(numba.get_num_threads(), src.size // max(nblocks, 1) + 1))
    w = np.zeros((nchunks, nblocks), dtype=np.int64)
    _block_weights(src, dst, nblocks, w)
    return w.sum(axis=0)


def balanced_bounds(weights, num_vertices: int, nprocs: int) -> np.ndarray:
    """Contiguous, 64-aligned ranges with about equal weight each.

    ``weights[b]``: arcs of vertex block b. Each vertex also weighs one arc, so that
    edgeless stretches of ids are spread too (and an edgeless graph splits by vertices).
    Cut r is the block boundary whose prefix weight is closest to r/P of the total.
    """
    n = int(num_vertices)
    nblocks = (n + BLOCK - 1) // BLOCK
    w = np.asarray(weights, dtype=np.int64)
    if w.shape != (nblocks,):
        raise InputError(f"expected {nblocks} block weights, got {w.shape}")
    sizes = np.full(nblocks, BLOCK, dtype=np.int64)
    if nblocks:
        sizes[-1] = n - BLOCK * (nblocks - 1)
    prefix = np.zeros(nblocks + 1, dtype=np.int64)
    np.cumsum(w + sizes, out=prefix[1:])
    total = prefix[-1]
    bounds = np.zeros(nprocs + 1, dtype=np.int64)
    for r in range(1, nprocs):
        target = total * r / nprocs
        b = int(np.searchsorted(prefix, target, side="left"))      # 0..nblocks
        if b > 0 and abs(prefix[b - 1] - target) <= abs(prefix[b] - target):
            b -= 1
        bounds[r] = min(n, max(bounds[r - 1], b * BLOCK))
    bounds[nprocs] = n
    return bounds


class Ranges(Partition):
    """Contiguous vertex ranges, 64-aligned, balanced by edge count: the owned rows every layout builds on.

    Args:
        bounds: the ranges' limits: rank r owns ids ``bounds[r]:bounds[r + 1]`` (inner limits
            multiples of 64, or n).
        rank: this rank.

    Raises:
        InputError: bounds that are not a valid partition, or a rank outside it.

    Examples:
        >>> from breadth.distributed.owned.partition import Ranges
        >>> p = Ranges([0, 64, 100], rank=1)
        >>> p.owner(np.array([3, 70])), p.to_local(np.array([70])), p.num_local
        (array([0, 1]), array([6]), 36)
        >>> Ranges.even(100, 2, 0).bounds
        array([  0,  64, 100])
    """

    kind = "ranges"

    def __init__(self, bounds, rank: int):
        bounds = np.ascontiguousarray(bounds, dtype=np.int64)
        P = bounds.size - 1
        inner = bounds[1:-1]
        if (P < 1 or bounds[0] != 0 or np.any(np.diff(bounds) < 0)
                or np.any((inner % BLOCK != 0) & (inner != bounds[-1]))):
            raise InputError(f"invalid partition bounds {bounds.tolist()}")
        if not 0 <= rank < P:
            raise InputError(f"rank {rank} outside a {P}-rank partition")
        self.bounds = bounds
        self.nprocs = P
        self.rank = int(rank)
        self.num_vertices = int(bounds[-1])
        self.lo = int(bounds[rank])
        self.hi = int(bounds[rank + 1])

    @classmethod
    def from_weights(cls, weights, num_vertices, nprocs, rank) -> "Ranges":
        """Ranges of about equal weight (``balanced_bounds``).

        Args:
            weights: per 64-vertex block, the arcs its vertices hold (``block_weights``).
            num_vertices: n.
            nprocs: the ranks.
            rank: this rank.

        Returns:
            The partition seen from ``rank``.
        """
        return cls(balanced_bounds(weights, num_vertices, nprocs), rank)

    @classmethod
    def even(cls, num_vertices, nprocs, rank) -> "Ranges":
        """Equal vertex counts (64-aligned), ignoring edges.

        Args:
            num_vertices: n.
            nprocs: the ranks.
            rank: this rank.

        Returns:
            The partition seen from ``rank``.
        """
        nblocks = (num_vertices + BLOCK - 1) // BLOCK
        return cls.from_weights(np.zeros(nblocks, dtype=np.int64), num_vertices, nprocs, rank)

    def owner(self, v) -> np.ndarray:
        return np.searchsorted(self.bounds, np.asarray(v, dtype=np.int64), side="right") - 1

    def to_local(self, v) -> np.ndarray:
        return np.asarray(v, dtype=np.int64) - self.lo

    def to_global(self, local) -> np.ndarray:
        return np.asarray(local, dtype=np.int64) + self.lo

    @property
    def num_local(self) -> int:
        return self.hi - self.lo

    def local_counts(self) -> np.ndarray:
        return np.diff(self.bounds)

    def word_counts(self) -> np.ndarray:
        """Bitmap words each rank's range covers (ranges are 64-aligned, so words never straddle).

        Returns:
            An int64 array, in rank order.
        """
        first = self.bounds[:-1] // BLOCK
        last = (self.bounds[1:] + BLOCK - 1) // BLOCK
        return np.where(self.bounds[1:] > self.bounds[:-1], last - first, 0).astype(np.int64)

    def kernel_map(self) -> RangeMap:
        return RangeMap(self.bounds, self.lo, self.hi)

    def describe(self) -> dict:
        return {"partition": self.kind, "ranks": self.nprocs, "bounds": self.bounds.tolist()}
