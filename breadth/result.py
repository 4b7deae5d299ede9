"""BFSResult: the one result type every engine returns (single-node, MPI, GPU), and ValidationReport."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .kernels.levels import LEVEL_FIELDS
from .kernels.policy import DIRECTIONS


@dataclass
class LevelStats:
    """What one BFS level did. Communication fields stay 0 for single-node engines."""

    level: int
    direction: str            # "top-down" or "bottom-up"
    frontier: int             # vertices in the frontier this level expanded
    edges_examined: int       # edges scanned (top-down: frontier out-edges; bottom-up: edges checked)
    discovered: int           # vertices first reached at depth level + 1
    seconds: float
    messages: int = 0         # messages sent, summed over ranks
    bytes: int = 0            # bytes sent, summed over ranks
    comm_seconds: float = 0.0  # time in communication, max over ranks

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class ValidationReport:
    """Outcome of a passed validation (any engine's validator returns one)."""

    reached: int
    max_depth: int
    tree_edges: int
    seconds: float


@dataclass
class BFSResult:
    """Parents and depths of one BFS (int64; -1 = unreachable; parent[seed] == seed)."""

    parent: np.ndarray
    depth: np.ndarray
    roots: np.ndarray
    algorithm: str
    seconds: float
    levels: list[LevelStats] = field(default_factory=list)
    engine: str = "numba"
    extra: dict = field(default_factory=dict)

    @property
    def root(self) -> int:
        """The search key (the first seed for a multi-seed search)."""
        return int(self.roots[0])

    @property
    def num_reached(self) -> int:
        return int(np.count_nonzero(self.parent >= 0))

    @property
    def max_depth(self) -> int:
        return int(self.depth.max()) if self.depth.size else -1

    def summary(self) -> dict:
        """A JSON-ready summary (no per-vertex arrays)."""
        return {
            "roots": [int(r) for r in self.roots],
            "algorithm": self.algorithm,
            "engine": self.engine,
            "seconds": self.seconds,
            "reached": self.num_reached,
            "max_depth": self.max_depth,
            "levels": [lv.as_dict() for lv in self.levels],
            **self.extra,
        }

    @classmethod
    def from_kernel(cls, parent, depth, roots, algorithm, seconds, stats, times, engine="numba"):
        """From a kernel's level rows (columns ``LEVEL_FIELDS``) and per-level seconds."""
        levels = []
        for row, t in zip(stats, times):
            fields = {name: int(row[k]) for k, name in enumerate(LEVEL_FIELDS)}
            fields["direction"] = DIRECTIONS[fields["direction"]]
            levels.append(LevelStats(seconds=float(t), **fields))
        return cls(parent, depth, roots, algorithm, seconds, levels, engine)
