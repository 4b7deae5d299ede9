"""The result types of a many-source BFS: one group's output, the depth matrix, the per-source summary.

A group's joint traversal returns a ``GroupResult``: the per-level,
per-instance histogram of newly reached vertices, the level statistics and
times, and (when kept) the group's depths or reach sets. ``reduce_hist`` folds
a histogram into per-source reach counts, distance sums, harmonic sums and
eccentricities, which ``MultiResult`` holds for every source.

Depth matrices use the smallest unsigned dtype that holds every depth; the
dtype's maximum (``unreachable(dtype)``: 255 for uint8) marks an unreachable
pair. ``DepthMatrix`` holds the |S| x n result (C-contiguous, its rows on 64-byte
boundaries) and widens its dtype when a group went deeper than the current one allows.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph.memory import check_fits
from .groupby import sharing_degree
from .recycle import pooled_empty

DEPTH_DTYPES = (np.uint8, np.uint16, np.uint32, np.uint64)


def unreachable(dtype) -> int:
    """The value marking an unreachable (source, vertex) pair in a depth matrix of ``dtype``.

    Args:
        dtype: the depth matrix's unsigned integer dtype.

    Returns:
        The dtype's maximum (255 for uint8).

    Examples:
        >>> from breadth.multisource import unreachable
        >>> depths = breadth.multi_bfs(breadth.Graph.from_edges([0, 2], [1, 3]), [0])
        >>> depths, unreachable(depths.dtype)
        (array([[  0,   1, 255, 255]], dtype=uint8), 255)
    """
    return int(np.iinfo(dtype).max)


def wider(dtype):
    """The next depth dtype after ``dtype`` (uint8 -> uint16 -> uint32 -> uint64)."""
    return DEPTH_DTYPES[DEPTH_DTYPES.index(np.dtype(dtype).type) + 1]


@dataclass
class GroupResult:
    """What one group's joint traversal produced (instance j = member j of the group)."""

    index: int
    hist: np.ndarray                 # (levels, g) int64: vertices reached at exactly each depth
    stats: np.ndarray                # (levels, len(LEVEL_FIELDS)) int64
    times: np.ndarray                # (levels,) seconds
    seconds: float
    depths: np.ndarray | None = None  # (n, g): column j = member j's depths, when kept per group
    reach_indptr: np.ndarray | None = None   # reach sets (CSR rows = members) when kept
    reach_indices: np.ndarray | None = None

    @property
    def sharing_degree(self) -> float:
        return sharing_degree(self.stats)

    def arrays(self) -> dict:
        out = {"hist": self.hist, "stats": self.stats, "times": self.times,
               "meta": np.array([self.index, self.seconds], dtype=np.float64)}
        for name in ("depths", "reach_indptr", "reach_indices"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_arrays(cls, a) -> "GroupResult":
        meta = a["meta"]
        return cls(int(meta[0]), a["hist"], a["stats"], a["times"], float(meta[1]),
                   *(a.get(k) for k in ("depths", "reach_indptr", "reach_indices")))


def aligned_empty(shape, dtype, align: int = 64) -> np.ndarray:
    """An uninitialised C-contiguous array whose data starts on an ``align``-byte boundary."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + align, dtype=np.uint8)
    start = -raw.ctypes.data % align
    return raw[start:start + nbytes].view(dtype).reshape(shape)


class DepthMatrix:
    """The |S| x n depth result: row i holds the depths from source i (C-contiguous, as a
    search one source at a time would stack them). Each group writes its members' rows
    (``depths.decode``, or ``place`` for a group's own (n, g) block). Not initialised:
    every cell is written by its group. Widens its dtype on demand. Its memory is the pool's
    (``recycle``): a dropped earlier result's on the same graph ``owner``, pages already
    faulted in, when one is there."""

    def __init__(self, n: int, num_sources: int, dtype, owner):
        check_fits(f"a {num_sources} x {n} depth matrix", n * num_sources * np.dtype(dtype).itemsize)
        self.array = pooled_empty((num_sources, n), dtype, owner)

    @property
    def dtype(self):
        return self.array.dtype

    def widen(self, dtype) -> None:
        old = self.array
        check_fits("widening the depth matrix", old.size * np.dtype(dtype).itemsize)
        new = old.astype(dtype)
        new[old == unreachable(old.dtype)] = unreachable(dtype)
        self.array = new

    def place(self, members, depths) -> None:
        """Copy a group's (n, g) depths (column j = member j) into its members' rows."""
        if np.dtype(depths.dtype).itemsize > self.array.dtype.itemsize:
            self.widen(depths.dtype)
        if depths.dtype != self.array.dtype:
            wide = depths.astype(self.array.dtype)
            wide[depths == unreachable(depths.dtype)] = unreachable(self.array.dtype)
            depths = wide
        self.array[members] = depths.T

    @property
    def result(self) -> np.ndarray:
        return self.array


@dataclass
class MultiResult:
    """Per-source summaries of a many-source BFS (positions follow ``sources``).

    Attributes:
        sources: the source vertices, as given.
        reached: vertices reached (the source included).
        distance_sum: sum of their depths.
        harmonic: sum of 1/depth over reached vertices other than the source.
        eccentricity: largest depth reached.
        groups: the groups run, as arrays of positions into ``sources``.
        group_results: what each group's traversal produced (level statistics, times).
        words: W, the 64-bit status words per vertex.
        group_size: sources per group.
        seconds: the run's wall time.
        resumed: groups taken from a checkpoint.
        depths: the |S| x n matrix when kept.
        extra: engine-specific entries added to ``summary()``.
        compile_seconds: compiling or loading kernels during the run (not in ``seconds``).

    Examples:
        >>> from breadth.multisource import msbfs
        >>> r = msbfs(breadth.kronecker(6, seed=1), range(8), group_size=8)
        >>> len(r.groups), r.words, r.summary()["sources"]
        (1, 1, 8)
        >>> r.sharing_degrees
        array([4.2])
    """

    sources: np.ndarray
    reached: np.ndarray
    distance_sum: np.ndarray
    harmonic: np.ndarray
    eccentricity: np.ndarray
    groups: list
    group_results: list
    words: int
    group_size: int
    seconds: float
    resumed: int = 0
    depths: np.ndarray | None = None
    extra: dict = field(default_factory=dict)
    compile_seconds: float = 0.0     # compiling or loading kernels during the run (not in seconds)

    @property
    def sharing_degrees(self) -> np.ndarray:
        """Each group's sharing degree (iBFS equation 1), in group order."""
        return np.array([r.sharing_degree for r in self.group_results])

    def summary(self) -> dict:
        """Sources, groups, W, sharing degrees and levels of the run, JSON-ready.

        Returns:
            A JSON-ready dict: sources, groups, words, group_size, seconds, compile_seconds,
                resumed_groups, the sharing degrees (mean, min, max, per group), per-group seconds
                and levels, and ``extra``.
        """
        sd = self.sharing_degrees
        levels = [int(r.stats.shape[0]) for r in self.group_results]
        return {
            "sources": int(self.sources.size), "groups": len(self.groups), "words": self.words,
            "group_size": self.group_size, "seconds": self.seconds,
            "compile_seconds": self.compile_seconds, "resumed_groups": self.resumed,
            "sharing_degree": {"mean": float(sd.mean()) if sd.size else 0.0,
                               "min": float(sd.min()) if sd.size else 0.0,
                               "max": float(sd.max()) if sd.size else 0.0},
            "group_sharing_degree": [float(x) for x in sd],
            "group_seconds": [float(r.seconds) for r in self.group_results],
            "group_levels": levels,
            **self.extra,
        }


def reduce_hist(hist: np.ndarray):
    """(reached, distance sum, harmonic sum, eccentricity) per instance from its level histogram."""
    levels = np.arange(hist.shape[0], dtype=np.int64)
    reached = hist.sum(axis=0)
    dist = levels @ hist
    inv = np.zeros(hist.shape[0])
    inv[1:] = 1.0 / levels[1:]
    harmonic = inv @ hist
    nonzero = hist > 0
    ecc = hist.shape[0] - 1 - np.argmax(nonzero[::-1], axis=0)
    return reached, dist, harmonic, ecc.astype(np.int64)
