"""Executing a planned many-source BFS (``plan.Traversal``) group by group.

``execute`` runs every group of a traversal: in this process, resumed from a
checkpoint directory (``checkpoint``), or shared among MPI ranks
(``mpi.dispatch``), and assembles the per-source result (``results``). Each
group is one joint traversal (``ibfs.traverse``) in scratch arrays allocated
once per process (``Workspace``) and kept with the graph for the next run
(``take_workspace``); what it returns is small (the per-level,
per-instance histogram of newly reached vertices, level statistics) unless
depths or reach sets are kept. The depth planes have room for the next wider
depth dtype, so a group deeper than its dtype holds only widens its output; one
deeper than that too is rerun with wider planes.
"""
from __future__ import annotations

import time
import weakref

import numpy as np

from ..errors import BreadthError, InputError, MemoryEstimateError
from ..kernels.frontier import num_words
from ..kernels.levels import seconds_per_tick
from . import ibfs, recycle
from .recycle import KEEP_SHARE
from ..graph.memory import available_bytes, check_fits
from ..jit import Stopwatch, prepare
from .checkpoint import Checkpoint
from .depths import decode, plane_count, planes_used, streamable
from .plan import Traversal
from .results import (DepthMatrix, GroupResult, MultiResult, aligned_empty, reduce_hist, unreachable,
                      wider)
from .status import new_tallies, reach_csr, unused_pattern


MAX_CAP = 2**62          # the deepest depth a traversal records (its level counter is an int64)
_KEPT = weakref.WeakKeyDictionary()      # graph -> the Workspace of its last run (take_workspace)


class Workspace:
    """Scratch arrays of one traversal, allocated once per process and reused by every group."""

    def __init__(self, n: int, words: int):
        self.n, self.words = n, words
        self.prev = np.empty(n * words, dtype=np.uint64)
        self.status = np.empty(n * words, dtype=np.uint64)
        self.changed = np.zeros(num_words(n), dtype=np.uint64)
        self.next_changed = np.zeros(num_words(n), dtype=np.uint64)
        self.unfull = np.empty(num_words(n), dtype=np.uint64)
        self.queue = np.empty(max(n, 1), dtype=np.int64)
        self.next_queue = np.empty(max(n, 1), dtype=np.int64)
        self.offsets = np.empty(n + 1, dtype=np.int64)
        self.tail = np.zeros(1, dtype=np.int64)
        self.tallies = new_tallies(words)
        self.dplanes = np.empty((0, 0), dtype=np.uint64)
        self.planes_touched = 0      # the most planes a group has used

    def depth_planes(self, planes: int) -> np.ndarray:
        """The depth planes for depths of ``planes`` bits (``depths``), all zero: allocated zeroed
        (pages the traversal never writes are never touched), and ``depths.decode`` zeroes the
        planes a group used as it reads them."""
        if self.dplanes.shape[0] < planes:
            check_fits(f"{planes} depth planes", planes * self.n * self.words * 8)
            self.dplanes = np.zeros((planes, self.n * self.words), dtype=np.uint64)
            self.planes_touched = 0
        return self.dplanes

    def resident(self) -> int:
        """Bytes of the arrays, counting only the depth planes a traversal has written (the
        others' pages were allocated zeroed and never touched)."""
        rows = self.dplanes.shape[0]
        planes = self.dplanes.nbytes // rows * self.planes_touched if rows else 0
        return sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray)) - self.dplanes.nbytes + planes


def take_workspace(graph, n: int, words: int) -> Workspace:
    """The scratch of ``graph``'s last run when it fits (n, words), else a new one. A run
    takes it out of the cache (two runs at once never share one) and ``keep_workspace``
    puts it back when it ends cleanly: between runs every array is in the state a group
    leaves it for the next (zeroed bitmaps and depth planes), so a later run skips
    allocating and faulting in its pages."""
    ws = _KEPT.pop(graph, None)
    if ws is None or ws.n != n or ws.words != words:
        ws = Workspace(n, words)
    return ws


def keep_workspace(graph, ws: Workspace) -> None:
    """Keep ``ws`` with ``graph`` (freed with it, or by ``release_workspaces``) when it takes
    at most KEEP_SHARE of the memory still available."""
    if ws.resident() <= KEEP_SHARE * available_bytes():
        _KEPT[graph] = ws


def release_workspaces() -> None:
    """Free the scratch kept with graphs and the pooled result memory.

    Many-source runs keep a graph's scratch (``take_workspace``) and the memory of dropped
    results (``recycle``) for the next run on the same graph; this hands it all back.

    Examples:
        >>> from breadth.multisource import release_workspaces
        >>> _ = breadth.closeness(breadth.Graph.from_edges([0, 1], [1, 2]))
        >>> release_workspaces()
    """
    _KEPT.clear()
    recycle.release()


def _record_dtype(ws: Workspace, dtype):
    """The depth dtype the planes are sized for: the next wider one when its planes fit in
    memory (their pages are touched only by a group that deep, so a deeper group than
    ``dtype`` holds widens the output without a second traversal), else ``dtype``."""
    if np.dtype(dtype).itemsize >= 4:          # depths past 2**32 - 2: not on graphs that fit
        return dtype
    w = wider(dtype)
    try:
        ws.depth_planes(plane_count(unreachable(w) - 1))
    except MemoryEstimateError:
        return dtype
    return w


def run_group(trav: Traversal, gi: int, ws: Workspace, depth_out: DepthMatrix | None = None) -> GroupResult:
    """Traverse group ``gi`` of ``trav`` in ``ws``. With ``keep_depths``: the traversal records
    depth planes (``depths``), decoded at the end into the members' rows of ``depth_out``
    (|S| x n) when given, else into a per-group buffer (the result's (n, g) ``depths``), in
    the smallest dtype that holds the group's depths (``depth_out`` may come back widened,
    see ``DepthMatrix``). Only a group deeper than the planes hold (``_record_dtype``) is
    traversed again, with wider planes."""
    members = trav.groups[gi]
    srcs = np.ascontiguousarray(trav.sources[members])
    pattern = unused_pattern(srcs.size, trav.words)
    g = trav.graph
    dtype = trav.depth_dtype if depth_out is None else depth_out.dtype
    while True:
        record = _record_dtype(ws, dtype) if trav.keep_depths else dtype
        cap = min(unreachable(record) - 1, MAX_CAP) if trav.keep_depths else 0
        dplanes = ws.depth_planes(plane_count(cap)) if trav.keep_depths else ws.dplanes
        args = (g.indptr, g.indices, g.in_indptr, g.in_indices, srcs, trav.words, pattern,
                trav.mode, trav.alpha, trav.beta, trav.max_depth, ws.prev, ws.status,
                ws.changed, ws.next_changed, ws.unfull, ws.queue, ws.next_queue, ws.offsets, ws.tail, ws.tallies,
                dplanes, trav.keep_depths, cap)
        prepare(ibfs.traverse, *args)       # compiling is not the group's time (execute reports it)
        t0 = time.perf_counter()
        hist, stats, times, overflow, final = ibfs.traverse(*args)
        seconds = time.perf_counter() - t0
        if not overflow:
            break
        dplanes[:] = 0           # the aborted traversal's depths: planes must start zero
        ws.planes_touched = dplanes.shape[0]
        dtype = wider(record)
    target = None
    if trav.keep_depths:
        deepest = int(np.flatnonzero(hist.any(axis=1)).max())
        while deepest > unreachable(dtype) - 1:
            dtype = wider(dtype)
        if depth_out is not None:
            if depth_out.dtype != np.dtype(dtype):
                depth_out.widen(dtype)
            target, rows = depth_out.array, np.ascontiguousarray(members, dtype=np.int64)
        else:            # every cell of it is written by depths.decode
            target = aligned_empty((srcs.size, trav.n), dtype)
            rows = np.arange(srcs.size, dtype=np.int64)
        ws.planes_touched = max(ws.planes_touched, planes_used(deepest))
        decode(final, dplanes, planes_used(deepest), trav.words, target, rows, unreachable(target.dtype),
               streamable(target), g.indptr, g.indices, srcs)
    res = GroupResult(gi, hist[:, :srcs.size].copy(), stats, times * seconds_per_tick(), seconds,
                      target.T if target is not None and depth_out is None else None)
    if trav.keep_reach:
        res.reach_indptr, res.reach_indices = reach_csr(final, trav.words, srcs.size, trav.n)
    return res


def assemble(trav: Traversal, results: list, seconds: float, resumed: int, depths=None) -> MultiResult:
    """The per-source result from every group's result (and the depth matrix when kept)."""
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
    from ..progress import bar as progress_bar
    from . import mpi

    clock = Stopwatch.start()     # the run's time, less compiling (reported apart)
    size = 1 if comm is None else comm.Get_size()
    rank = 0 if comm is None else comm.Get_rank()
    results: list = [None] * trav.num_groups
    ck, depths, error, resumed, staged = None, None, None, 0, None
    if rank == 0:
        try:
            if checkpoint is not None:
                ck = Checkpoint(checkpoint, trav.fingerprint())
                for gi in ck.done():
                    if gi < trav.num_groups:
                        results[gi] = ck.load(gi)
                        resumed += 1
            if trav.keep_depths and not trav.to_host:
                if size > 1 or checkpoint is not None:
                    raise InputError("to_host=False keeps the depth matrix on this process's GPU: it cannot "
                                     "be combined with comm (several ranks) or checkpoint")
                from ..gpu.depth_matrix import DeviceDepthMatrix

                depths = DeviceDepthMatrix(trav.n, trav.sources.size, trav.depth_dtype)
            elif trav.keep_depths:
                depths = DepthMatrix(trav.n, trav.sources.size, trav.depth_dtype, trav.graph)
                if trav.device == "cuda" and size == 1 and checkpoint is None:
                    from ..gpu.multisource import staged_depths

                    staged = staged_depths(trav)      # assembled on the GPU (if it fits), copied into depths
        except BreadthError as exc:
            error = exc
    mpi.check_all(comm, error)   # rank 0's checkpoint or memory trouble stops every rank
    todo = [gi for gi in range(trav.num_groups) if results[gi] is None]
    direct = trav.keep_depths and size == 1 and ck is None
    bar = progress_bar(trav.num_groups, desc, progress, unit="group", initial=resumed) if rank == 0 else None
    workspace = []          # allocated (or, on the GPU, uploaded) by the first group this process computes
    if trav.device == "cuda":
        from ..gpu import multisource as gpu_groups

        gpu_groups.use_local_gpu(comm)       # collective when comm is given: every rank calls it

    def compute(gi):
        if trav.device == "cuda":
            if not workspace:
                workspace.append(gpu_groups.DeviceGraph(trav.graph))
            out = depths if staged is None else staged
            return gpu_groups.run_group(trav, gi, workspace[0], depth_out=out if direct else None)
        if not workspace:
            workspace.append(take_workspace(trav.graph, trav.n, trav.words))
        return run_group(trav, gi, workspace[0], depth_out=depths if direct else None)

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
    if workspace and trav.device != "cuda":      # not after an exception: its planes may be dirty
        keep_workspace(trav.graph, workspace[0])
    if rank != 0:
        return None
    if staged is not None:
        if depths.dtype != staged.dtype:          # the matrix widened on the device
            depths = DepthMatrix(trav.n, trav.sources.size, staged.dtype, trav.graph)
        staged.copy_to(depths.array)
    result = assemble(trav, results, clock.lap(), resumed, depths)
    result.compile_seconds = clock.compile_seconds
    return result
