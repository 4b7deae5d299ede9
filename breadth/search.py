"""The public single-node BFS entry point: ``breadth.bfs``."""
from __future__ import annotations

import time

import numba
import numpy as np

from .checks import (as_graph, as_roots, check_algorithm, check_alpha_beta, check_device, check_max_depth,
                     check_to_host)
from .errors import InputError
from .jit import prepare
from .kernels import direction_optimizing as do
from .kernels.bundles import KernelGraph, SearchBuffers
from .kernels.levels import seconds_per_tick
from .kernels.policy import ALPHA, BETA
from .result import BFSResult, NarrowBFSResult


SPARE_MAX_VERTICES = 1 << 24   # graphs up to this size keep the scratch of their last plain search
NARROW_MAX_VERTICES = (1 << 31) - 1   # plain searches on graphs up to this size write int32 parent/depth
_spare: dict = {}              # n -> a BFSWorkspace whose scratch the next plain search on n vertices reuses


class BFSWorkspace:
    """Reusable memory of single-node searches on graphs with ``n`` vertices.

    ``bfs(..., workspace=ws)`` writes the result into ``ws.parent``/``ws.depth`` and
    returns them without copying, so a loop of searches (the Graph500 benchmark) pays
    for fresh pages once instead of every time -- the reference code likewise reuses
    one predecessor array. A result obtained this way is overwritten by the next
    search with the same workspace: copy what you keep. Without a workspace each
    ``bfs`` call allocates its own parent/depth (int32 while ids fit, widened to int64 on
    first access), which belong to the result, and reuses the scratch of the previous
    plain call on a graph of up to ``SPARE_MAX_VERTICES`` vertices.

    Args:
        n: the vertex count of the graphs it will search.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> ws = breadth.BFSWorkspace(g.num_vertices)
        >>> r = breadth.bfs(g, 3, workspace=ws)
        >>> r.parent is ws.parent, ws.depth
        (True, array([3, 2, 1, 0]))
    """

    def __init__(self, n: int, *, _narrow: bool = False):
        words = (n + 63) // 64
        self.n = n
        self.narrow = _narrow          # only fresh_result makes narrow ones: int32 parent32/depth32
        self.parent = self.depth = self.parent32 = self.depth32 = None
        if _narrow:
            self.parent32 = np.empty(n, dtype=np.int32)
            self.depth32 = np.empty(n, dtype=np.int32)
        else:
            self.parent = np.empty(n, dtype=np.int64)
            self.depth = np.empty(n, dtype=np.int64)
        self.queue = np.empty(n, dtype=np.int64)
        self.next_queue = np.empty(n, dtype=np.int64)
        self.offsets = np.empty(n + 1, dtype=np.int64)
        self.front = np.empty(words, dtype=np.uint64)
        self.next_front = np.empty(words, dtype=np.uint64)
        self.visited = np.empty(words, dtype=np.uint64)
        self.tail = np.empty(1, dtype=np.int64)
        # byte claims of long runs of thin levels (kernels.thin_levels): ids must fit 31 bits
        self.seen = np.empty(words * 64 if n < 1 << 31 else 0, dtype=np.uint8)

    @classmethod
    def fresh_result(cls, n: int) -> "BFSWorkspace":
        """The workspace of a search without one: new int32 parent/depth, scratch that is reused.

        The search writes int32 ``parent32``/``depth32`` (half the bytes per visited vertex;
        ids fit, as at most ``NARROW_MAX_VERTICES`` vertices take this path), which become the
        result's own (``result.NarrowBFSResult`` widens them to int64 on first access). The
        scratch (two queues, the edge offsets: 24 bytes per vertex, a claim byte, the bitmaps) of the
        last such search on a graph of the same size is taken from ``_spare`` when it is there
        (``release`` puts it back), so a loop of plain ``bfs`` calls does not fault in fresh
        scratch pages on every search. A graph above ``SPARE_MAX_VERTICES`` does not hold its
        scratch after the search; concurrent searches each take their own (one is kept).
        """
        ws = _spare.pop(n, None)
        if ws is None:
            return cls(n, _narrow=True)
        ws.parent32 = np.empty(n, dtype=np.int32)
        ws.depth32 = np.empty(n, dtype=np.int32)
        return ws

    def release(self):
        """(parent32, depth32) of a narrow workspace's search, handed over; keeps its scratch for reuse."""
        parent, depth = self.parent32, self.depth32
        self.parent32 = self.depth32 = None
        if self.n <= SPARE_MAX_VERTICES:
            _spare.clear()
            _spare[self.n] = self
        return parent, depth

    def buffers(self) -> SearchBuffers:
        """The arrays the search kernel writes, as its ``buffers`` bundle."""
        if self.narrow:
            return SearchBuffers(self.parent32, self.depth32, self.queue, self.next_queue, self.offsets, self.front,
                                 self.next_front, self.visited, self.tail, self.seen)
        return SearchBuffers(self.parent, self.depth, self.queue, self.next_queue, self.offsets, self.front,
                             self.next_front, self.visited, self.tail, self.seen)


def bfs(graph, root, algorithm: str = "do", max_depth: int | None = None,
        alpha: float = ALPHA, beta: float = BETA, workspace: BFSWorkspace | None = None,
        by_label: bool = False, device: str = "cpu", to_host: bool = True) -> BFSResult:
    """Breadth-first search from ``root`` (a vertex, or an array of seeds searched as one).

    Args:
        graph: a ``breadth.Graph`` or a scipy sparse matrix (entry (i, j) = edge i -> j).
        root: a vertex id, or a list, range or numpy array of them: one search seeded from the set.
        algorithm: "do" direction-optimizing (default), "td" top-down, "bu" bottom-up.
        max_depth: stop after this many levels (vertices farther away stay at -1).
        alpha: Beamer's switch to bottom-up when the frontier's edges exceed unexplored
            edges / alpha.
        beta: Beamer's switch back to top-down when the frontier is below n / beta.
        workspace: a BFSWorkspace to reuse across searches (its parent/depth are the result's).
        by_label: ``root`` is given in the graph's labels (``graph.vertex_ids``: original ids
            of a relabelled file, networkx nodes), translated by ``graph.index_of``: a list,
            range or numpy array is a seed set, anything else (a tuple too) one label. The
            result stays in dense ids; ``graph.label_of`` maps parents and roots back. Without
            labels, labels are the ids.
        device: "cpu" (default) or "cuda": the GPU kernels of ``breadth.gpu`` (numba-cuda;
            ``graph`` may then be a ``breadth.gpu.DeviceGraph``, uploaded once and reused; the
            device keeps its own memory, so ``workspace`` does not apply). Without a GPU
            "cuda" raises InputError.
        to_host: True (default): parent and depth in host memory. False (device="cuda"
            only): they stay on the GPU as numba device arrays (``__cuda_array_interface__``),
            ``seconds`` stops with them complete in device memory, and ``result.to_host()``
            copies them back.

    Returns:
        A BFSResult: parent and depth per vertex (-1 where unreached) and per-level statistics.

    Raises:
        InputError: a root out of range, an unknown algorithm or device, a bad ``alpha``,
            ``beta`` or ``max_depth``, or a workspace for another vertex count.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> r = breadth.bfs(g, root=0)
        >>> r.depth, r.parent
        (array([0, 1, 2, 3]), array([0, 0, 1, 2]))
        >>> breadth.bfs(g, [0, 3]).depth
        array([0, 1, 1, 0])
        >>> breadth.bfs(g, 0, max_depth=1).depth
        array([ 0,  1, -1, -1])
        >>> r = breadth.bfs(breadth.kronecker(6, seed=1), 0, algorithm="td")
        >>> r.num_reached, r.max_depth
        (..., ...)
    """
    to_host = check_to_host(to_host, check_device(device))
    if device == "cuda":
        if workspace is not None:
            raise InputError("workspace applies to device='cpu' searches (a DeviceGraph keeps its own memory)")
        from .gpu.api import bfs as gpu_bfs

        return gpu_bfs(graph, root, algorithm, max_depth, alpha, beta, by_label=by_label, to_host=to_host)
    g = as_graph(graph)
    mode = check_algorithm(algorithm)
    max_depth = check_max_depth(max_depth)
    alpha, beta = check_alpha_beta(alpha, beta)
    roots = as_roots(g, g.index_of(root) if by_label else root)
    n = g.num_vertices
    if workspace is None:
        workspace = BFSWorkspace.fresh_result(n) if n <= NARROW_MAX_VERTICES else BFSWorkspace(n)
    elif workspace.n != g.num_vertices:
        raise InputError(f"workspace is for {workspace.n} vertices, the graph has {g.num_vertices}")
    # a top-down search never scans in-edges: don't make a lazily converted graph build them
    in_indptr, in_indices = (g.indptr, g.indices) if algorithm == "td" else (g.in_indptr, g.in_indices)
    tick = seconds_per_tick()
    args = (KernelGraph(g.indptr, g.indices, in_indptr, in_indices), roots, mode, alpha, beta, max_depth,
            numba.get_num_threads(), workspace.buffers())
    # never part of the search's time; with an empty cache a second process compiles the thin run
    compile_seconds = prepare(do.search, *args, aside=lambda: do.compile_aside(args[0], args[-1]))
    t0 = time.perf_counter()
    # numba's default schedule (one even share of each parallel loop per thread), not dynamic
    # chunks: the edge-balanced top-down blocks and 1024-vertex bottom-up blocks are even
    # enough, and the thin-level region wants exactly one iteration per thread
    stats, ticks = do.search(*args)
    seconds = time.perf_counter() - t0
    if workspace.narrow:
        parent, depth = workspace.release()
        result = NarrowBFSResult.from_kernel(parent, depth, roots, algorithm, seconds, stats, ticks * tick)
    else:
        result = BFSResult.from_kernel(workspace.parent, workspace.depth, roots, algorithm, seconds, stats,
                                       ticks * tick)
    result.compile_seconds = compile_seconds
    return result
