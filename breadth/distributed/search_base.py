"""What every distributed search shares: options and their checks, the per-search frame, the result.

Level-synchronous direction-optimizing BFS (Buluç & Madduri, SC'11; Beamer et al.,
SC'12): each level every rank runs a local step on its share of the graph, then the
search's ``Exchange`` makes the level's discoveries known where they are needed. A
layout's search subclasses ``DistSearch`` and implements ``_run`` (the level loop) and
``control_messages`` (its own small collectives per level); the frame here checks the
arguments (``breadth.checks``, errors marked collective: every rank raises them alike),
times the search, opens the per-level communication log and packs the statistics
(``levelstats``). A search whose exchange communicates once after its last level (the
2D scan hands parents to their owners) opens one more tally with ``comm.next_level()``
after its loop; that traffic is reported as ``after_levels`` (``expected_after_levels``).

Direction optimization follows the single-node driver decision for decision: the
shared ``kernels.policy.Policy`` stepper on global values (frontier size, scout count,
unexplored edges) known identically on all ranks, so all ranks always step the same
way and a distributed search takes the same directions as ``breadth.bfs``.
"""
from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np

from ..checks import as_vertex_ids, check_algorithm, check_alpha_beta, check_max_depth, check_positive_int
from ..errors import BreadthError, InputError
from ..jit import Stopwatch
from ..kernels.frontier import fill, parallel_chunksize
from ..kernels.policy import ALPHA, BETA, Policy
from ..result import BFSResult
from .levelstats import LevelRecord, gather_levels
from .runtime import collective_error

ENCODINGS = ("auto", "queue")


@dataclass(frozen=True)
class SearchOptions:
    """Options of a distributed search; ``params`` holds layout-specific ones by name.

    ``fanout`` and ``encoding`` are the butterfly exchange's (partners per round; "auto"
    lets dense sets travel as bitmaps, "queue" always sends vertex ids).
    """

    algorithm: str = "do"
    alpha: float = ALPHA
    beta: float = BETA
    fanout: int = 1
    encoding: str = "auto"
    params: dict = field(default_factory=dict)

    def checked(self) -> "SearchOptions":
        """These options with alpha/beta as floats; InputError (not yet collective) if any is invalid."""
        check_algorithm(self.algorithm)
        alpha, beta = check_alpha_beta(self.alpha, self.beta)
        fanout = check_positive_int(self.fanout, "fanout")
        if self.encoding not in ENCODINGS:
            raise InputError(f"unknown butterfly encoding {self.encoding!r}; choose from {', '.join(ENCODINGS)}")
        return SearchOptions(self.algorithm, alpha, beta, fanout, self.encoding, dict(self.params))


@dataclass
class DistBFSResult(BFSResult):
    """A distributed BFS result: ``parent``/``depth`` hold this rank's vertices (local ids).

    ``num_reached`` and ``max_depth`` are global; ``partition`` maps local ids to global ones.
    ``DistEngine.gather(result)`` assembles the global arrays on rank 0.
    """

    partition: object = None
    reached_total: int = 0
    max_depth_total: int = -1

    @property
    def num_reached(self) -> int:
        return self.reached_total

    @property
    def max_depth(self) -> int:
        return self.max_depth_total


def collective(fn, *args):
    """``fn(*args)`` with any BreadthError marked collective (for checks every rank makes alike)."""
    try:
        return fn(*args)
    except BreadthError as exc:
        raise collective_error(exc) from None


class DistSearch(ABC):
    """Per-graph search state of one layout: buffers allocated once, reused by every search.

    Construction is collective (counted in the caller's phase, e.g. "construct").
    """

    exchange = None          # the layout's Exchange, set by the subclass

    def __init__(self, comm, lg, options: SearchOptions | None = None):
        self.comm = comm
        self.lg = lg
        self.options = collective((options or SearchOptions()).checked)
        self.mode = check_algorithm(self.options.algorithm)
        self.num_arcs = int(comm.allreduce(np.array([lg.local_arcs], dtype=np.int64))[0])

    @property
    def algorithm(self) -> str:
        return self.options.algorithm

    @property
    def engine_name(self) -> str:
        return f"mpi-{self.lg.partition.kind}-{self.exchange.name}"

    @property
    @abstractmethod
    def nbytes(self) -> int:
        """Bytes of the search state (buffers, replicated arrays, the exchange's)."""

    @abstractmethod
    def _run(self, roots: np.ndarray, max_depth: int) -> tuple[np.ndarray, np.ndarray, list[LevelRecord]]:
        """The level loop: (parent, depth of this rank's vertices, one record per level)."""

    @abstractmethod
    def control_messages(self, level: int, direction: int) -> int:
        """Control messages (frontier sizes, scout counts) of one level, summed over ranks."""

    def expected_messages(self, level: int, direction: int) -> tuple[int, int]:
        """(exchange, control) messages level ``level`` sends in ``direction``, summed over ranks."""
        return self.exchange.messages_per_level(direction), self.control_messages(level, direction)

    def expected_after_levels(self) -> tuple[int, int]:
        """(exchange, control) messages of the step after the last level, summed over ranks."""
        return self.exchange.messages_after_levels(), 0

    def seed_owned(self, roots):
        """The start of a search over owned vertices: parent and depth -1 except the seeds this
        rank owns (their own parents, depth 0), which fill ``self.queue``; ``self.sent`` (the
        vertices offered to other ranks) cleared. Returns (parent, depth, own, distinct seeds)."""
        part, nl = self.lg.partition, self.lg.num_local
        parent = np.empty(nl, dtype=np.int64)
        depth = np.empty(nl, dtype=np.int64)
        fill(parent, -1)
        fill(depth, -1)
        fill(self.sent, np.uint64(0))
        seeds = np.unique(roots)
        mine = seeds[part.owns(seeds)]
        own = part.to_local(mine)
        parent[own] = mine
        depth[own] = 0
        self.queue[:own.size] = own
        return parent, depth, own, seeds.size

    def policy(self) -> Policy:
        """A fresh direction stepper on this graph's global counts."""
        return Policy(self.mode, self.options.alpha, self.options.beta, self.lg.num_vertices, self.num_arcs)

    def search(self, roots, max_depth=None) -> DistBFSResult:
        """One BFS from ``roots`` (a vertex or seeds searched as one); collective."""
        roots = collective(as_vertex_ids, roots, self.lg.num_vertices, "root")
        max_depth = collective(check_max_depth, max_depth)
        self.comm.begin_levels()
        with Stopwatch() as clock, self.comm.phase("search"), parallel_chunksize(1):   # less this rank's compiling
            parent, depth, records = self._run(roots, max_depth)
        seconds = clock.seconds
        log = self.comm.end_levels() or []
        ops = self.comm.operation_log if self.exchange.operations else None
        k = len(records)
        after = log[k] if len(log) > k else None           # a step after the last level (``after_levels``)
        levels, info = gather_levels(self.comm, records, log[:k], self.exchange.describe(),
                                     None if ops is None else ops[:k], after,
                                     ops[k] if ops is not None and after is not None else None)
        reached = int(np.unique(roots).size + sum(rec.discovered for rec in records))
        last = max((i + 1 for i, rec in enumerate(records) if rec.discovered > 0), default=0)
        result = DistBFSResult(parent, depth, roots, self.algorithm, seconds, levels, self.engine_name,
                               {"communication": info}, partition=self.lg.partition, reached_total=reached,
                               max_depth_total=last)
        result.compile_seconds = clock.compile_seconds
        return result


def new_record(direction, frontier, discovered, examined, t0) -> LevelRecord:
    """The record of a level that began at ``t0`` (perf_counter) and ends now."""
    return LevelRecord(int(direction), int(frontier), int(discovered), int(examined), time.perf_counter() - t0)


def multithreaded() -> bool:
    """Whether the kernels run on several threads (on one, plain stores replace their atomics)."""
    import numba

    return numba.get_num_threads() > 1
