"""Argument checks shared by every public entry point (single-node, distributed, multi-source, GPU).

Each check either returns the argument in the form the kernels take or raises
``InputError`` with a message that names the API parameter (never a CLI flag:
the command line translates). Distributed callers wrap the error with
``collective_error`` when every rank raises it alike.
"""
from __future__ import annotations

import numpy as np

from .errors import InputError
from .graph.types import Graph
from .kernels.policy import ALGORITHMS


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


def as_vertex_ids(ids, num_vertices: int, what: str = "root", allow_empty: bool = False) -> np.ndarray:
    """Validate a vertex id (an int) or a 1-D array-like of ids as int64 ids in [0, num_vertices).

    ``what`` names the parameter in messages ("root", "source", ...).
    """
    arr = np.atleast_1d(np.asarray(ids))
    if arr.ndim != 1:
        raise InputError(f"{what} must be a vertex id or a 1-D array of ids, got shape {arr.shape}")
    if arr.size == 0:
        if allow_empty:
            return np.zeros(0, dtype=np.int64)
        raise InputError(f"the {what} set is empty")
    if not (np.issubdtype(arr.dtype, np.integer) or
            (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.floor(arr)))):
        raise InputError(f"{what} must be an integer vertex id, got {ids!r}")
    arr = arr.astype(np.int64)
    n = int(num_vertices)
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        span = f"0..{n - 1}" if n else "none"
        raise InputError(f"{what} {int(arr[bad][0])} does not exist (graph has {n} vertices: {span})")
    return arr


def as_roots(graph: Graph, root) -> np.ndarray:
    """A root (an int) or a seed set (array-like of ints) of ``graph`` as int64 ids."""
    return as_vertex_ids(root, graph.num_vertices, "root")


def check_algorithm(algorithm: str) -> int:
    """The policy mode of an algorithm name ("do", "td", "bu")."""
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    return ALGORITHMS[algorithm]


def check_alpha_beta(alpha, beta) -> tuple[float, float]:
    """Beamer's switching parameters: positive numbers."""
    try:
        a, b = float(alpha), float(beta)
    except (TypeError, ValueError):
        raise InputError(f"alpha and beta must be numbers, got alpha={alpha!r}, beta={beta!r}") from None
    if not (a > 0 and b > 0):
        raise InputError(f"alpha and beta must be positive, got alpha={alpha}, beta={beta}")
    return a, b


def check_max_depth(max_depth) -> int:
    """``None`` (no limit) or a non-negative integer; returns -1 for no limit."""
    if max_depth is None:
        return -1
    try:
        ok = int(max_depth) == max_depth and max_depth >= 0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InputError(f"max_depth must be a non-negative integer, got {max_depth!r}")
    return int(max_depth)


DEVICES = ("cpu", "cuda")


def check_device(device) -> str:
    """Where a search runs: "cpu" (numba kernels) or "cuda" (``breadth.gpu``, numba-cuda)."""
    if device not in DEVICES:
        raise InputError(f"unknown device {device!r}; choose from {', '.join(DEVICES)}")
    return device


def check_to_host(to_host, device: str = "cuda") -> bool:
    """Whether a search's parent/depth come back to host memory (``to_host=False``: GPU only)."""
    if not isinstance(to_host, (bool, np.bool_)):
        raise InputError(f"to_host must be True or False, got {to_host!r}")
    if not to_host and device != "cuda":
        raise InputError(f"to_host=False keeps results in GPU memory: it needs device='cuda', not {device!r}")
    return bool(to_host)


def check_positive_int(value, what: str) -> int:
    """A positive integer parameter (``what`` names it in the message)."""
    try:
        ok = int(value) == value and int(value) >= 1
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InputError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


def check_threshold(value):
    """A delegate degree threshold: "auto" or an integer >= 0 (vertices of out-degree > it are delegates)."""
    if isinstance(value, str) and value == "auto":
        return "auto"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError(f"threshold must be 'auto' or an integer >= 0, got {value!r}")
    return int(value)
