"""Planning a many-source BFS: checking the arguments, sizing W, grouping the sources.

A ``Traversal`` is the plan of one run: the graph as traversed (its transpose
for ``direction="in"``), the sources, their groups (``groupby``), W and what
to keep. Executing it is ``runner.execute``'s job; its ``fingerprint`` is what
a checkpoint must match to be resumed.

W (64-bit words per vertex, so up to 64*W sources per group) is the smallest
that holds all sources, capped at ``W_MAX`` and shrunk until the two status
arrays fit in half the available memory.
"""
from __future__ import annotations

import hashlib

import numpy as np

from ..checks import (check_algorithm, check_alpha_beta, check_device, check_max_depth, check_positive_int,
                      check_to_host)
from ..errors import InputError
from ..graph.memory import available_bytes, check_fits
from ..graph.types import Graph
from ..kernels.frontier import num_words
from ..kernels.policy import ALPHA, BETA
from .groupby import P_VALUES, Q_DEFAULT, make_groups
from .results import DEPTH_DTYPES

W_MAX = 8
FORMAT = 1          # version of the checkpoint fingerprint


def status_bytes(n: int, words: int) -> int:
    """Working memory of one group: two status arrays, two queues, offsets, three bitmaps."""
    return 2 * 8 * n * words + 3 * 8 * (n + 1) + 3 * 8 * num_words(n)


def choose_words(num_sources: int, n: int, words=None, group_size=None, available=None) -> tuple[int, int]:
    """(W, group size): W from the source count and memory unless given; group size <= 64 W.

    Args:
        num_sources: the number of sources.
        n: the graph's vertex count.
        words: W if the caller chose it.
        group_size: the group size if the caller chose it.
        available: the bytes a group may use (default: the memory available).

    Returns:
        ``(words, group_size)``.

    Raises:
        InputError: a non-positive ``words`` or ``group_size``, or a group larger than 64 W.

    Examples:
        >>> from breadth.multisource import choose_words
        >>> choose_words(100, 64)
        (2, 128)
        >>> choose_words(10, 64, words=1)
        (1, 64)
    """
    if words is not None:
        check_positive_int(words, "words")
    if group_size is not None:
        check_positive_int(group_size, "group size")
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


class Traversal:
    """A planned many-source BFS: the graph as traversed, sources, groups and W.

    ``mode`` is the direction policy's mode (``kernels.policy.ALGORITHMS[algorithm]``);
    ``depth_dtype`` the dtype a group's depths start in (widened per group when needed);
    ``device`` "cpu" or "cuda" (groups run by ``breadth.gpu.multisource``; not part of the
    fingerprint: a checkpoint written on one device resumes on the other).
    """

    def __init__(self, graph: Graph, sources, *, max_depth=None, groupby="rules", group_size=None,
                 words=None, direction="out", keep_depths=False, keep_reach=False, algorithm="do",
                 alpha=ALPHA, beta=BETA, p_values=None, q=None, seed=0, device="cpu", to_host=True):
        if direction not in ("out", "in"):
            raise InputError(f"direction must be 'out' or 'in', got {direction!r}")
        self.device = check_device(device)      # where groups run; results do not depend on it
        self.to_host = check_to_host(to_host, self.device)      # False: the depth matrix stays on the GPU
        if not self.to_host and not keep_depths:
            raise InputError("to_host=False keeps the depth matrix in GPU memory: it needs keep_depths=True")
        self.mode = check_algorithm(algorithm)
        self.alpha, self.beta = check_alpha_beta(alpha, beta)
        self.max_depth = check_max_depth(max_depth)
        self.algorithm = algorithm
        self.graph = reversed_graph(graph) if direction == "in" else graph
        self.direction = direction
        self.sources = np.asarray(sources, dtype=np.int64)
        self.n = graph.num_vertices
        self.words, self.group_size = choose_words(self.sources.size, self.n, words, group_size)
        self.groupby = groupby
        self.groups = make_groups(self.graph, self.sources, self.group_size, groupby,
                                  P_VALUES if p_values is None else p_values,
                                  Q_DEFAULT if q is None else q, seed)
        self.keep_depths = bool(keep_depths)
        self.keep_reach = bool(keep_reach)
        self.depth_dtype = DEPTH_DTYPES[0]
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
