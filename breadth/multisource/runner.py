"""Running many BFS instances as groups: sizing, scratch space, per-group results, assembly.

A run is a ``Traversal`` (graph, sources, groups, W, what to keep) executed
group by group: in this process, resumed from a checkpoint directory, or
shared among MPI ranks (``mpi.dispatch``). Each group is one joint traversal
(``ibfs.traverse``); what it returns is small (the per-level, per-instance
histogram of newly reached vertices, level statistics) unless depths are kept.

W (64-bit words per vertex, so up to 64*W sources per group) is the smallest
that holds all sources, capped at ``W_MAX`` and shrunk until the two status
arrays fit in half the available memory.

Depth matrices use the smallest unsigned dtype that holds every depth; the
dtype's maximum marks an unreachable pair (255 for uint8). A group that goes
deeper than the dtype allows is rerun after widening it.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import BreadthError, InputError
from ..graph.memory import available_bytes, check_fits
from ..graph.types import Graph
from ..kernels.frontier import fill, num_words
from . import ibfs
from .groupby import P_VALUES, Q_DEFAULT, make_groups, sharing_degree
from .status import reach_csr, unused_pattern

W_MAX = 8
DEPTH_DTYPES = (np.uint8, np.uint16, np.uint32, np.uint64)
MODES = {"do": ibfs.DIRECTION_OPTIMIZING, "td": ibfs.TOP_DOWN, "bu": ibfs.BOTTOM_UP}
ALPHA, BETA = 15.0, 18.0
FORMAT = 1


def unreachable(dtype) -> int:
    """The value marking an unreachable (source, vertex) pair in a depth matrix of ``dtype``."""
    return int(np.iinfo(dtype).max)


def status_bytes(n: int, words: int) -> int:
    """Working memory of one group: two status arrays, two queues, offsets, two bitmaps."""
    return 2 * 8 * n * words + 3 * 8 * (n + 1) + 2 * 8 * num_words(n)


def choose_words(num_sources: int, n: int, words=None, group_size=None, available=None) -> tuple[int, int]:
    """(W, group size): W from the source count and memory unless given; group size <= 64 W."""
    if words is not None and (int(words) != words or words < 1):
        raise InputError(f"words must be a positive integer, got {words!r}")
    if group_size is not None and (int(group_size) != group_size or group_size < 1):
        raise InputError(f"group size must be a positive integer, got {group_size!r}")
    if words is None:
        want = group_size if group_size is not None else num_sources
        words = min(W_MAX, max(1, -(-int(want) // 64)))
        if group_size is not None:
            words = max(words, -(-int(group_size) // 64))
        available = available_bytes() if available is None else available
        while words > 1 and status_bytes(n, words) > available // 2:
            words //= 2
    words = int(words)
    if group_size is None:
        group_size = 64 * words
    if group_size > 64 * words:
        raise InputError(f"group size {group_size} exceeds 64 * W = {64 * words} sources")
    check_fits(f"a group of {group_size} concurrent BFS (W={words})", status_bytes(n, words), available)
    return words, int(group_size)


def reversed_graph(graph: Graph) -> Graph:
    """The transpose of a directed graph (views, no copy); an undirected graph is its own."""
    if not graph.directed:
        return graph
    return Graph(graph.in_indptr, graph.in_indices, directed=True, in_indptr=graph.indptr,
                 in_indices=graph.indices, check=False)


def _hash_arrays(*arrays) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str((a.dtype.str, a.shape)).encode())
        flat = a.reshape(-1).view(np.uint8)
        step = 1 << 26
        for i in range(0, flat.size, step):
            h.update(flat[i:i + step])
    return h.hexdigest()


class Workspace:
    """Scratch arrays of one traversal, allocated once per process and reused by every group."""

    def __init__(self, n: int, words: int):
        self.n, self.words = n, words
        self.prev = np.empty(n * words, dtype=np.uint64)
        self.status = np.empty(n * words, dtype=np.uint64)
        self.changed = np.zeros(num_words(n), dtype=np.uint64)
        self.unfull = np.empty(num_words(n), dtype=np.uint64)
        self.queue = np.empty(max(n, 1), dtype=np.int64)
        self.next_queue = np.empty(max(n, 1), dtype=np.int64)
        self.offsets = np.empty(n + 1, dtype=np.int64)
        self.tail = np.zeros(1, dtype=np.int64)
        self.counts = np.zeros(64 * words, dtype=np.int64)


@dataclass
class GroupResult:
    """What one group's joint traversal produced (instance j = member j of the group)."""

    index: int
    hist: np.ndarray                 # (levels, g) int64: vertices reached at exactly each depth
    stats: np.ndarray                # (levels, len(LEVEL_FIELDS)) int64
    times: np.ndarray                # (levels,) seconds
    seconds: float
    depths: np.ndarray | None = None  # (n, g) vertex-major depths when kept per group
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


class Traversal:
    """A planned many-source BFS: the graph as traversed, sources, groups and W."""

    def __init__(self, graph: Graph, sources, *, max_depth=None, groupby="rules", group_size=None,
                 words=None, direction="out", keep_depths=False, keep_reach=False, algorithm="do",
                 alpha=ALPHA, beta=BETA, p_values=None, q=None, seed=0):
        if direction not in ("out", "in"):
            raise InputError(f"direction must be 'out' or 'in', got {direction!r}")
        if algorithm not in MODES:
            raise InputError(f"unknown algorithm {algorithm!r}; choose from {', '.join(MODES)}")
        if not (alpha > 0 and beta > 0):
            raise InputError(f"alpha and beta must be positive, got alpha={alpha}, beta={beta}")
        if max_depth is not None and (int(max_depth) != max_depth or max_depth < 0):
            raise InputError(f"max_depth must be a non-negative integer, got {max_depth!r}")
        self.graph = reversed_graph(graph) if direction == "in" else graph
        self.direction = direction
        self.sources = np.asarray(sources, dtype=np.int64)
        self.n = graph.num_vertices
        self.max_depth = -1 if max_depth is None else int(max_depth)
        self.words, self.group_size = choose_words(self.sources.size, self.n, words, group_size)
        self.groupby = groupby
        self.groups = make_groups(self.graph, self.sources, self.group_size, groupby,
                                  P_VALUES if p_values is None else p_values,
                                  Q_DEFAULT if q is None else q, seed)
        self.keep_depths = bool(keep_depths)
        self.keep_reach = bool(keep_reach)
        self.algorithm, self.alpha, self.beta = algorithm, float(alpha), float(beta)
        self.depth_dtype = DEPTH_DTYPES[0]   # widened when a group goes deeper
        self._ws = None
        self._graph_hash = None

    @property
    def num_groups(self) -> int:
        return len(self.groups)

    def fingerprint(self) -> dict:
        """Everything that determines the result, for checkpoint matching."""
        if self._graph_hash is None:
            g = self.graph
            self._graph_hash = _hash_arrays(g.indptr, g.indices)
        return {
            "format": FORMAT, "vertices": self.n, "arcs": int(self.graph.indptr[-1]),
            "directed": self.graph.directed, "direction": self.direction, "graph": self._graph_hash,
            "sources": _hash_arrays(self.sources), "groups": _hash_arrays(*self.groups),
            "num_groups": self.num_groups, "words": self.words, "group_size": self.group_size,
            "max_depth": self.max_depth, "keep_depths": self.keep_depths, "keep_reach": self.keep_reach,
        }

    def workspace(self) -> Workspace:
        if self._ws is None:
            self._ws = Workspace(self.n, self.words)
        return self._ws

    def run_group(self, gi: int, depth_out=None) -> GroupResult:
        """Traverse group ``gi``. With ``keep_depths``: write into ``depth_out`` (n x |S|,
        vertex-major, columns = source positions) when given, else into a per-group buffer.
        ``depth_out`` may come back widened (see ``DepthMatrix``)."""
        members = self.groups[gi]
        srcs = np.ascontiguousarray(self.sources[members])
        ws = self.workspace()
        pattern = unused_pattern(srcs.size, self.words)
        g = self.graph
        dtype = self.depth_dtype if depth_out is None else depth_out.dtype
        while True:
            if not self.keep_depths:
                target, rows = np.empty((0, 0), dtype=np.uint8), np.empty(0, dtype=np.int64)
            elif depth_out is not None:
                target, rows = depth_out.array, np.ascontiguousarray(members, dtype=np.int64)
            else:
                target = np.full((self.n, srcs.size), unreachable(dtype), dtype=dtype)
                rows = np.arange(srcs.size, dtype=np.int64)
            cap = unreachable(target.dtype) - 1 if self.keep_depths else 0
            t0 = time.perf_counter()
            hist, stats, times, overflow = ibfs.traverse(
                g.indptr, g.indices, g.in_indptr, g.in_indices, srcs, self.words, pattern,
                MODES[self.algorithm], self.alpha, self.beta, self.max_depth, ws.prev, ws.status,
                ws.changed, ws.unfull, ws.queue, ws.next_queue, ws.offsets, ws.tail, ws.counts,
                target, rows, self.keep_depths, cap)
            seconds = time.perf_counter() - t0
            if not overflow:
                break
            dtype = DEPTH_DTYPES[DEPTH_DTYPES.index(target.dtype.type) + 1]
            if depth_out is not None:
                depth_out.widen(dtype)
        res = GroupResult(gi, hist[:, :srcs.size].copy(), stats, times, seconds,
                          target if self.keep_depths and depth_out is None else None)
        if self.keep_reach:
            res.reach_indptr, res.reach_indices = reach_csr(ws.prev, self.words, srcs.size, self.n)
        return res


class DepthMatrix:
    """The |S| x n depth result, stored vertex-major (n x |S|) so a group writes each vertex's
    depths into one place; ``result`` is the |S| x n view. Widens its dtype on demand."""

    def __init__(self, n: int, num_sources: int, dtype):
        check_fits(f"a {num_sources} x {n} depth matrix", n * num_sources * np.dtype(dtype).itemsize)
        self.array = np.empty((n, num_sources), dtype=dtype)
        fill(self.array.reshape(-1), self.array.dtype.type(unreachable(dtype)))   # on every core

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
        """Copy a group's (n, g) depths into the columns of its sources."""
        if np.dtype(depths.dtype).itemsize > self.array.dtype.itemsize:
            self.widen(depths.dtype)
        if depths.dtype != self.array.dtype:
            wide = depths.astype(self.array.dtype)
            wide[depths == unreachable(depths.dtype)] = unreachable(self.array.dtype)
            depths = wide
        self.array[:, members] = depths

    @property
    def result(self) -> np.ndarray:
        return self.array.T


@dataclass
class MultiResult:
    """Per-source summaries of a many-source BFS (positions follow ``sources``).

    reached: vertices reached (the source included); distance_sum: sum of their
    depths; harmonic: sum of 1/depth over reached vertices other than the source;
    eccentricity: largest depth reached. depths: the |S| x n matrix when kept.
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

    @property
    def sharing_degrees(self) -> np.ndarray:
        return np.array([r.sharing_degree for r in self.group_results])

    def summary(self) -> dict:
        sd = self.sharing_degrees
        levels = [int(r.stats.shape[0]) for r in self.group_results]
        return {
            "sources": int(self.sources.size), "groups": len(self.groups), "words": self.words,
            "group_size": self.group_size, "seconds": self.seconds, "resumed_groups": self.resumed,
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


def assemble(trav: Traversal, results: list, seconds: float, resumed: int, depths=None) -> MultiResult:
    s = trav.sources.size
    reached = np.zeros(s, dtype=np.int64)
    dist = np.zeros(s, dtype=np.int64)
    harmonic = np.zeros(s, dtype=np.float64)
    ecc = np.zeros(s, dtype=np.int64)
    for r in results:
        members = trav.groups[r.index]
        reached[members], dist[members], harmonic[members], ecc[members] = reduce_hist(r.hist)
        if depths is not None and r.depths is not None:
            depths.place(members, r.depths)
    return MultiResult(trav.sources, reached, dist, harmonic, ecc, trav.groups, results, trav.words,
                       trav.group_size, seconds, resumed,
                       depths.result if depths is not None else None)


def execute(trav: Traversal, *, checkpoint=None, comm=None, progress=False, desc="groups") -> MultiResult | None:
    """Run every group of ``trav``; returns the assembled result (None on MPI ranks other than 0).

    checkpoint: a directory; finished groups are written there and a rerun with the
    same arguments skips them. comm: an mpi4py communicator to share groups among ranks.
    """
    from tqdm import tqdm

    from . import mpi

    t0 = time.perf_counter()
    size = 1 if comm is None else comm.Get_size()
    rank = 0 if comm is None else comm.Get_rank()
    results: list = [None] * trav.num_groups
    ck, depths, error, resumed = None, None, None, 0
    if rank == 0:
        try:
            if checkpoint is not None:
                from .checkpoint import Checkpoint

                ck = Checkpoint(checkpoint, trav.fingerprint())
                for gi in ck.done():
                    if gi < trav.num_groups:
                        results[gi] = ck.load(gi)
                        resumed += 1
            if trav.keep_depths:
                depths = DepthMatrix(trav.n, trav.sources.size, trav.depth_dtype)
        except BreadthError as exc:
            error = exc
    mpi.check_all(comm, error)   # rank 0's checkpoint or memory trouble stops every rank
    todo = [gi for gi in range(trav.num_groups) if results[gi] is None]
    direct = trav.keep_depths and size == 1 and ck is None
    bar = tqdm(total=trav.num_groups, initial=resumed, desc=desc, unit="group", file=None,
               disable=(not progress) or None) if rank == 0 else None

    def compute(gi):
        return trav.run_group(gi, depth_out=depths if direct else None)

    def collect(res):
        results[res.index] = res
        if ck is not None:
            ck.save(res)
        if bar is not None:
            bar.update(1)

    try:
        mpi.dispatch(comm, todo, compute, collect)
    finally:
        if bar is not None:
            bar.close()
    if rank != 0:
        return None
    return assemble(trav, results, time.perf_counter() - t0, resumed, depths)
