"""BFSResult: the one result type every engine returns (single-node, MPI, GPU), and ValidationReport."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from .kernels.frontier import copy_into
from .kernels.levels import LEVEL_FIELDS
from .kernels.policy import DIRECTIONS


@dataclass
class LevelStats:
    """What one BFS level did. Communication fields stay 0 for single-node engines.

    Attributes:
        level: the depth of the frontier this level expanded (0: the seeds).
        direction: "top-down" or "bottom-up".
        frontier: vertices in the frontier.
        edges_examined: edges scanned (top-down: the frontier's out-edges; bottom-up: the
            edges checked before each unvisited vertex found a parent).
        discovered: vertices first reached at depth ``level + 1``.
        seconds: the level's wall time.
        messages: messages sent, summed over ranks (distributed engines).
        bytes: bytes sent, summed over ranks (distributed engines).
        comm_seconds: time in communication, the maximum over ranks (distributed engines).

    Examples:
        >>> r = breadth.bfs(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]), 0)
        >>> [(lv.level, lv.frontier) for lv in r.levels]
        [(0, 1), (1, 1), (2, 1), (3, 1)]
        >>> r.levels[0].direction in ("top-down", "bottom-up")
        True
    """

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
        """The level's statistics as a JSON-ready dict.

        Returns:
            A dict field -> value.

        Examples:
            >>> r = breadth.bfs(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]), 0)
            >>> r.levels[0].as_dict()["frontier"]
            1
        """
        return dict(self.__dict__)


class LevelList(Sequence):
    """A kernel's level rows (columns ``LEVEL_FIELDS``) read as a sequence of LevelStats.

    The LevelStats objects are made on first access, not when the search returns: a
    deep graph has thousands of levels, and building them in Python costs milliseconds
    that a caller who never looks would pay inside every search.
    """

    __slots__ = ("_stats", "_seconds", "_items")

    def __init__(self, stats, seconds):
        self._stats = stats
        self._seconds = seconds
        self._items = None

    def _materialise(self) -> list:
        if self._items is None:
            items = []
            for row, t in zip(self._stats.tolist(), self._seconds.tolist()):
                fields = dict(zip(LEVEL_FIELDS, row))
                fields["direction"] = DIRECTIONS[fields["direction"]]
                items.append(LevelStats(seconds=t, **fields))
            self._items = items
        return self._items

    def __len__(self) -> int:
        return len(self._stats) if self._items is None else len(self._items)

    def __getitem__(self, i):
        return self._materialise()[i]

    def __iter__(self):
        return iter(self._materialise())

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, (list, LevelList)) else NotImplemented

    def __repr__(self) -> str:
        return repr(self._materialise())


@dataclass
class ValidationReport:
    """Outcome of a passed validation (any engine's validator returns one).

    Attributes:
        reached: vertices in the BFS tree (the roots included).
        max_depth: the depth of the tree.
        tree_edges: edges of the tree (reached vertices less the roots).
        seconds: the validation's wall time.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> report = breadth.validate(g, 0, breadth.bfs(g, 0).parent)
        >>> report.reached, report.tree_edges
        (4, 3)
    """

    reached: int
    max_depth: int
    tree_edges: int
    seconds: float


@dataclass
class BFSResult:
    """Parents and depths of one BFS (int64; -1 = unreachable; parent[seed] == seed).

    Attributes:
        parent: the BFS tree: each reached vertex's parent (a seed is its own parent; -1 unreached).
        depth: each vertex's distance from the nearest seed (-1 unreached).
        roots: the seeds (int64; one for a plain search).
        algorithm: "do" (direction-optimizing), "td" (top-down) or "bu" (bottom-up).
        seconds: the search's wall time, compilation excluded.
        levels: per-level statistics, one record per level (``.level``, ``.direction``,
            ``.frontier``, ``.edges_examined``, ``.seconds``).
        engine: what ran the search ("numba", "cuda", ...).
        extra: engine-specific entries added to ``summary()``.
        compile_seconds: time spent compiling or loading kernels before the search.

    Examples:
        >>> r = breadth.bfs(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]), 0)
        >>> r.depth, r.parent
        (array([0, 1, 2, 3]), array([0, 0, 1, 2]))
        >>> r.root, r.num_reached, r.max_depth
        (0, 4, 3)
        >>> [lv.frontier for lv in r.levels]
        [1, 1, 1, 1]
    """

    parent: np.ndarray
    depth: np.ndarray
    roots: np.ndarray
    algorithm: str
    seconds: float
    levels: Sequence[LevelStats] = field(default_factory=list)   # a list or a LevelList
    engine: str = "numba"
    extra: dict = field(default_factory=dict)
    compile_seconds: float = 0.0   # compiling or loading kernels before the search (not in seconds)

    @property
    def on_device(self) -> bool:
        """Whether parent/depth are GPU arrays (``bfs(..., device="cuda", to_host=False)``)."""
        return hasattr(self.parent, "copy_to_host")

    def to_host(self) -> "BFSResult":
        """This result with parent/depth in host memory (itself when they already are; copied once).

        Examples:
            >>> r = breadth.bfs(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]), 0)
            >>> r.to_host() is r
            True
        """
        if not self.on_device:
            return self
        if "_host_copy" not in self.__dict__:     # copied once; later calls return the same host result
            self.__dict__["_host_copy"] = replace(self, parent=self.parent.copy_to_host(),
                                                  depth=self.depth.copy_to_host())
        return self.__dict__["_host_copy"]

    @property
    def root(self) -> int:
        """The search key (the first seed for a multi-seed search)."""
        return int(self.roots[0])

    @property
    def num_reached(self) -> int:
        """Vertices the search reached (roots included)."""
        return int(np.count_nonzero(self.to_host().parent >= 0))

    @property
    def max_depth(self) -> int:
        """Depth of the deepest reached vertex (-1 for an empty graph)."""
        depth = self.to_host().depth
        return int(depth.max()) if depth.size else -1

    def summary(self) -> dict:
        """A JSON-ready summary (no per-vertex arrays).

        Returns:
            A dict: roots, algorithm, engine, seconds, compile_seconds, reached, max_depth and
                the levels (``as_dict`` of each), with the engine's ``extra`` entries.

        Examples:
            >>> s = breadth.bfs(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]), 0).summary()
            >>> s["roots"], s["reached"], s["max_depth"], len(s["levels"])
            ([0], 4, 3, 4)
        """
        return {
            "roots": [int(r) for r in self.roots],
            "algorithm": self.algorithm,
            "engine": self.engine,
            "seconds": self.seconds,
            "compile_seconds": self.compile_seconds,
            "reached": self.num_reached,
            "max_depth": self.max_depth,
            "levels": [lv.as_dict() for lv in self.levels],
            **self.extra,
        }

    @classmethod
    def from_kernel(cls, parent, depth, roots, algorithm, seconds, stats, times, engine="numba"):
        """From a kernel's level rows (columns ``LEVEL_FIELDS``) and per-level seconds
        (``levels`` is a LevelList: the LevelStats are made when first read)."""
        return cls(parent, depth, roots, algorithm, seconds, LevelList(stats, times), engine)


def widened(a: np.ndarray) -> np.ndarray:
    """``a`` as int64 (a new array, filled in parallel, unless it already is)."""
    if a.dtype == np.int64:
        return a
    out = np.empty(a.shape, dtype=np.int64)
    copy_into(a, out)
    return out


def _widening(name: str) -> property:
    """A property that stores ``name``'s array as given and reads it widened to int64 (once: kept)."""
    key = "_" + name

    def get(self) -> np.ndarray:
        a = self.__dict__[key] = widened(self.__dict__[key])
        return a

    def put(self, value) -> None:
        self.__dict__[key] = np.asarray(value)

    return property(get, put, doc=f"{name} as int64, widened on first access")


class NarrowBFSResult(BFSResult):
    """A BFSResult whose search wrote int32 parent/depth (``breadth.bfs`` without a workspace).

    ``parent`` and ``depth`` read as int64 like every result's: each is widened on its first
    access (a parallel copy into a new int64 array, which replaces the int32 one), so the
    search itself moves half the bytes per visited vertex and a caller that never reads an
    array never pays for its widening.
    """

    parent = _widening("parent")
    depth = _widening("depth")
