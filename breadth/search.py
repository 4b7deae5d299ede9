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
        alpha: float = ALPHA, beta: float = BETA) -> BFSResult:
    """Breadth-first search from ``root`` (a vertex, or an array of seeds searched as one).

    algorithm: "do" direction-optimizing (default), "td" top-down, "bu" bottom-up.
    max_depth: stop after this many levels (vertices farther away stay at -1).
    alpha, beta: Beamer's switching parameters (top-down -> bottom-up when the frontier's
    edges exceed unexplored edges / alpha; back when the frontier is below n / beta).
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
    t0 = time.perf_counter()
    with parallel_chunksize(1):
        parent, depth, stats, times = do.search(g.indptr, g.indices, g.in_indptr, g.in_indices, roots,
                                                ALGORITHMS[algorithm], float(alpha), float(beta),
                                                int(max_depth))
    seconds = time.perf_counter() - t0
    return BFSResult.from_kernel(parent, depth, roots, algorithm, seconds, stats, times)
