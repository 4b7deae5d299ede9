"""The public single-node BFS entry point: ``breadth.bfs``."""
from __future__ import annotations

import time

import numpy as np

from .errors import InputError
from .graph.types import Graph
from .kernels import direction_optimizing as do
from .kernels.frontier import parallel_chunksize
from .result import BFSResult

ALGORITHMS = {"do": do.DIRECTION_OPTIMIZING, "td": do.TOP_DOWN, "bu": do.BOTTOM_UP}
ALPHA, BETA = 15.0, 18.0


class BFSWorkspace:
    """Reusable memory of single-node searches on graphs with ``n`` vertices.

    ``bfs(..., workspace=ws)`` writes the result into ``ws.parent``/``ws.depth`` and
    returns them without copying, so a loop of searches (the Graph500 benchmark) pays
    for fresh pages once instead of every time -- the reference code likewise reuses
    one predecessor array. A result obtained this way is overwritten by the next
    search with the same workspace: copy what you keep. Without a workspace each
    ``bfs`` call allocates its own and its arrays belong to the result.
    """

    def __init__(self, n: int):
        words = (n + 63) // 64
        self.n = n
        self.parent = np.empty(n, dtype=np.int64)
        self.depth = np.empty(n, dtype=np.int64)
        self.queue = np.empty(n, dtype=np.int64)
        self.next_queue = np.empty(n, dtype=np.int64)
        self.offsets = np.empty(n + 1, dtype=np.int64)
        self.front = np.empty(words, dtype=np.uint64)
        self.next_front = np.empty(words, dtype=np.uint64)
        self.visited = np.empty(words, dtype=np.uint64)
        self.tail = np.empty(1, dtype=np.int64)

    def buffers(self):
        return (self.parent, self.depth, self.queue, self.next_queue, self.offsets, self.front,
                self.next_front, self.visited, self.tail)


def as_graph(graph) -> Graph:
    """Accept a breadth.Graph or a scipy sparse adjacency matrix."""
    if isinstance(graph, Graph):
        return graph
    try:
        import scipy.sparse as sp
    except ImportError:  # pragma: no cover - scipy is a dependency
        sp = None
    if sp is not None and sp.issparse(graph):
        return Graph.from_scipy(graph)
    raise InputError(f"expected a breadth.Graph or a scipy sparse matrix, got {type(graph).__name__}")


def as_roots(graph: Graph, root) -> np.ndarray:
    """Validate a root (an int) or a seed set (array-like of ints) as int64 ids in range."""
    arr = np.atleast_1d(np.asarray(root))
    if arr.ndim != 1:
        raise InputError(f"root must be a vertex id or a 1-D array of ids, got shape {arr.shape}")
    if arr.size == 0:
        raise InputError("the seed set is empty")
    if not (np.issubdtype(arr.dtype, np.integer) or
            (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.floor(arr)))):
        raise InputError(f"root must be an integer vertex id, got {root!r}")
    arr = arr.astype(np.int64)
    n = graph.num_vertices
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        raise InputError(f"root {int(arr[bad][0])} does not exist (graph has {n} vertices: 0..{n - 1})")
    return arr


def bfs(graph, root, algorithm: str = "do", max_depth: int | None = None,
        alpha: float = ALPHA, beta: float = BETA, workspace: BFSWorkspace | None = None) -> BFSResult:
    """Breadth-first search from ``root`` (a vertex, or an array of seeds searched as one).

    algorithm: "do" direction-optimizing (default), "td" top-down, "bu" bottom-up.
    max_depth: stop after this many levels (vertices farther away stay at -1).
    alpha, beta: Beamer's switching parameters (top-down -> bottom-up when the frontier's
    edges exceed unexplored edges / alpha; back when the frontier is below n / beta).
    workspace: a BFSWorkspace to reuse across searches (its parent/depth are the result's).
    """
    g = as_graph(graph)
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    if max_depth is None:
        max_depth = -1
    elif int(max_depth) != max_depth or max_depth < 0:
        raise InputError(f"max_depth must be a non-negative integer, got {max_depth!r}")
    if not (alpha > 0 and beta > 0):
        raise InputError(f"alpha and beta must be positive, got alpha={alpha}, beta={beta}")
    roots = as_roots(g, root)
    if workspace is None:
        workspace = BFSWorkspace(g.num_vertices)
    elif workspace.n != g.num_vertices:
        raise InputError(f"workspace is for {workspace.n} vertices, the graph has {g.num_vertices}")
    t0 = time.perf_counter()
    with parallel_chunksize(1):
        stats, times = do.search(g.indptr, g.indices, g.in_indptr, g.in_indices, roots,
                                 ALGORITHMS[algorithm], float(alpha), float(beta), int(max_depth),
                                 *workspace.buffers())
    seconds = time.perf_counter() - t0
    return BFSResult.from_kernel(workspace.parent, workspace.depth, roots, algorithm, seconds, stats, times)
