"""What every distributed search shares: options and their checks, the level loop, the result.

Level-synchronous direction-optimizing BFS (Buluç & Madduri, SC'11; Beamer et al.,
SC'12). ``DistSearch._run`` is the one level loop of every layout:

    seed (``_seed``) -- then per level: the seeds' scout count on the first level if the
    seed could not know it (``_seed_scout``, collective), the policy step, the local step
    (``_top_down`` / ``_bottom_up`` of a ``DirectionSearch``, or ``_local_step`` for a layout with several
    directions per level), the exchange with the level's statistics (``_exchange``:
    returns the new global frontier size and scout count, identical on all ranks), the
    record -- and after the loop ``_finish`` (parents and depths of this rank's vertices).

A layout supplies those hooks, its ``Exchange`` and, if it is not the owners' single
Allreduce per level, ``control_messages``. Layout-specific traffic is a hook's business:
a 2D scan's parents after the last level (``_finish`` opens one more tally with
``comm.next_level()``; reported as ``after_levels``, ``expected_after_levels``), the
delegates' mask sharing next to the normal exchange (their ``_exchange``), the ButterFly
rounds (``Butterfly.synchronise`` in its ``_exchange``). Per-search state the hooks share
(``parent``, ``depth``, ``atomic``, the layout's queues) lives on the search object.

The frame checks the arguments (``breadth.checks``, errors marked collective: every rank
raises them alike), times the search, opens the per-level communication log and packs the
statistics (``levelstats``). Direction optimization follows the single-node driver
decision for decision: ``policy()`` gives the shared ``kernels.policy.Policy`` stepper on
global values (frontier size, scout count, unexplored edges) known identically on all
ranks, so all ranks always step the same way and a distributed search takes the same
directions as ``breadth.bfs``.
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
from ..kernels.policy import ALPHA, BETA, DIRECTIONS, Policy
from ..result import BFSResult, LevelStats
from .levelstats import gather_levels
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
    parent = depth = None    # this rank's vertices' parents and depths during a search
    own = None               # local ids of the seeds this rank owns (owner-state layouts)

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

    # ------------------------------------------------------------------ the level loop
    def _run(self, roots: np.ndarray, max_depth: int) -> tuple[np.ndarray, np.ndarray, list[LevelStats]]:
        """The level loop: (parent, depth of this rank's vertices, one record per level)."""
        self.atomic = multithreaded()
        seeds = np.unique(roots)
        total, scout = self._seed(seeds)
        policy = self.policy()
        records = []
        level = 0
        while total > 0 and level != max_depth:
            self.comm.next_level()
            t0 = time.perf_counter()
            if scout is None:
                scout = self._seed_scout()
            frontier = total
            bottom_up = policy.direction(scout)
            examined = self._local_step(level, bottom_up, frontier)
            total, scout = self._exchange(level, bottom_up)
            if bottom_up:
                policy.after_bottom_up(total, frontier)
            records.append(new_record(level, bottom_up, frontier, total, examined, t0))
            level += 1
        parent, depth = self._finish(seeds, level)
        self.parent = self.depth = None           # the result owns them now
        return parent, depth, records

    @abstractmethod
    def _seed(self, seeds: np.ndarray) -> tuple[int, int | None]:
        """Start a search from the distinct ``seeds``: (global frontier size, scout count or None when
        only the seeds' owners know it -- then ``_seed_scout`` runs in the first level)."""

    def _seed_scout(self):
        """The seeds' out-degrees summed over ranks (each owner knows its own: ``self.own``)."""
        own = self.own
        local = int(self.lg.out_degree()[own].sum()) if own.size else 0
        return self.global_counts(local)[0]

    @abstractmethod
    def _local_step(self, level: int, bottom_up, frontier: int) -> int:
        """This rank's step of level ``level`` (``frontier`` vertices globally); the edges examined."""

    @abstractmethod
    def _exchange(self, level: int, bottom_up) -> tuple[int, object]:
        """Make the level's discoveries known where needed; (new global frontier size, its scout count)."""

    def _finish(self, seeds: np.ndarray, levels: int) -> tuple[np.ndarray, np.ndarray]:
        """After ``levels`` levels: (parent, depth) of this rank's vertices."""
        return self.parent, self.depth

    def global_counts(self, *local) -> list[int]:
        """The sums over ranks of the int64 counts ``local`` (one Allreduce, counted as control)."""
        return self.comm.allreduce(np.array(local, dtype=np.int64)).tolist()

    def control_messages(self, level: int, direction: int) -> int:
        """Control messages of one level, summed over ranks: the owners' one Allreduce of the level's
        counts, plus on the first level the seeds' scout count."""
        P = self.comm.size
        return P * (P - 1) * (2 if level == 0 else 1)

    def expected_messages(self, level: int, direction: int) -> tuple[int, int]:
        """(exchange, control) messages level ``level`` sends in ``direction``, summed over ranks."""
        return self.exchange.messages_per_level(direction), self.control_messages(level, direction)

    def expected_after_levels(self) -> tuple[int, int]:
        """(exchange, control) messages of the step after the last level, summed over ranks."""
        return self.exchange.messages_after_levels(), 0

    def seed_owned(self, seeds) -> int:
        """The start of a search over owned vertices from the distinct ``seeds``: ``parent`` and
        ``depth`` -1 except the seeds this rank owns (``own``: their own parents, depth 0), which
        fill ``queue[:qsize]``; ``pmap`` the kernels' owner map; ``sent`` (the vertices offered to other ranks) cleared. Returns
        the number of seeds."""
        part, nl = self.lg.partition, self.lg.num_local
        self.parent = parent = np.empty(nl, dtype=np.int64)
        self.depth = depth = np.empty(nl, dtype=np.int64)
        fill(parent, -1)
        fill(depth, -1)
        fill(self.sent, np.uint64(0))
        mine = seeds[part.owns(seeds)]
        self.own = own = part.to_local(mine)
        parent[own] = mine
        depth[own] = 0
        self.queue[:own.size] = own
        self.qsize = own.size
        self.pmap = part.kernel_map()
        return seeds.size

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


class DirectionSearch(DistSearch):
    """A layout whose level is one local step in the policy's direction for all its vertices: it
    supplies ``_top_down`` and ``_bottom_up`` (delegates, whose subgraphs step in their own
    directions, supplies ``_local_step`` instead)."""

    def _local_step(self, level: int, bottom_up, frontier: int) -> int:
        return self._bottom_up(level, frontier) if bottom_up else self._top_down(level, frontier)

    @abstractmethod
    def _top_down(self, level: int, frontier: int) -> int:
        """The local top-down step of level ``level``; the edges examined."""

    @abstractmethod
    def _bottom_up(self, level: int, frontier: int) -> int:
        """The local bottom-up step of level ``level``; the edges examined."""


def new_record(level, bottom_up, frontier, discovered, examined, t0) -> LevelStats:
    """This rank's record of a level that began at ``t0`` (perf_counter) and ends now."""
    return LevelStats(int(level), DIRECTIONS[int(bool(bottom_up))], int(frontier), int(examined), int(discovered),
                      time.perf_counter() - t0)


def multithreaded() -> bool:
    """Whether the kernels run on several threads (on one, plain stores replace their atomics)."""
    import numba

    return numba.get_num_threads() > 1
