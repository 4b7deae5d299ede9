"""Whole-graph analyses: connected components and a double-sweep lower bound on the diameter.

``connected_components(graph)`` labels the (weakly, on a directed graph)
connected components with ``scipy.sparse.csgraph.connected_components`` (C
code, one pass over the edges).

``estimate_diameter(graph, samples, seed)`` is the double sweep of Magnien,
Latapy and Habib ("Fast computation of empirically tight bounds for the
diameter of massive graphs", ACM JEA 13, 2009, section 3): a BFS from a random
vertex of the largest component, then a BFS from the farthest vertex it found;
the largest depth seen over ``samples`` such sweeps is a lower bound on the
diameter of that component. It is exact on trees and usually tight on real
graphs; each sweep costs two ``breadth.bfs`` runs. On a directed graph the
searches follow out-edges, so the bound is on the largest finite distance
(``max_u`` of u's eccentricity within what u reaches), and the component is
the largest weakly connected one.

Invariants: ``lower_bound`` is the depth of a BFS tree, hence a distance that
occurs in the graph: the first endpoint reaches the second in exactly
``lower_bound`` hops, so it never exceeds the diameter.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .checks import as_graph
from .errors import InputError
from .search import bfs


@dataclass(frozen=True)
class Components:
    """Connected components: ``labels[v]`` is v's component (0..count-1), ``sizes[c]`` its vertex count.

    Attributes:
        count: the number of components.
        labels: each vertex's component label (int64).
        sizes: each component's vertex count.

    Examples:
        >>> c = breadth.connected_components(breadth.Graph.from_edges([0, 2, 3], [1, 3, 4]))
        >>> c.count, c.sizes, c.largest
        (2, array([2, 3]), 1)
        >>> c.members(1)
        array([2, 3, 4])
    """

    count: int
    labels: np.ndarray
    sizes: np.ndarray

    @property
    def largest(self) -> int:
        """The label of the largest component (the smallest label among equals); -1 when there is none."""
        return int(np.argmax(self.sizes)) if self.count else -1

    def members(self, label: int) -> np.ndarray:
        """The vertices of component ``label``, ascending.

        Args:
            label: a component label (0..count-1).

        Returns:
            An int64 array of vertex ids.

        Examples:
            >>> breadth.connected_components(breadth.Graph.from_edges([0, 2], [1, 3])).members(1)
            array([2, 3])
        """
        return np.flatnonzero(self.labels == label)

    def summary(self) -> dict:
        """count, largest (size), largest_fraction, singletons and largest_label.

        Returns:
            A JSON-ready dict (``largest_label`` only when there is a component).

        Examples:
            >>> breadth.connected_components(breadth.Graph.from_edges([0, 2], [1, 3])).summary()
            {'count': 2, 'largest': 2, 'largest_fraction': 0.5, 'singletons': 0, 'largest_label': 0}
        """
        if not self.count:
            return {"count": 0, "largest": 0, "largest_fraction": 0.0, "singletons": 0}
        largest = int(self.sizes.max())
        return {"count": int(self.count), "largest": largest, "largest_fraction": largest / self.labels.size,
                "singletons": int(np.count_nonzero(self.sizes == 1)), "largest_label": self.largest}


@dataclass(frozen=True)
class DiameterEstimate:
    """A lower bound on the diameter of a component; None when no sweep ran (no vertices, no samples).

    Attributes:
        lower_bound: the largest distance the sweeps found, or None.
        bfs_runs: the searches run.
        endpoints: ``[u, v]`` with d(u, v) == ``lower_bound``.
        method: how the bound was found ("double sweep").

    Examples:
        >>> est = breadth.estimate_diameter(breadth.kronecker(6, seed=1), samples=2)
        >>> est.lower_bound >= 1, est.bfs_runs
        (True, 4)
    """

    lower_bound: int | None
    bfs_runs: int
    endpoints: list = field(default_factory=list)   # [u, v] with d(u, v) == lower_bound
    method: str = "double sweep"

    def summary(self) -> dict:
        """The lower bound, the endpoints and the number of BFS runs, JSON-ready.

        Returns:
            A dict; only ``lower_bound`` (None) and ``bfs_runs`` when no sweep ran.

        Examples:
            >>> breadth.estimate_diameter(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])).summary()
            {'lower_bound': 3, 'bfs_runs': 8, 'endpoints': [0, 3], 'method': 'double sweep'}
        """
        if self.lower_bound is None:
            return {"lower_bound": None, "bfs_runs": 0}
        return {"lower_bound": self.lower_bound, "bfs_runs": self.bfs_runs, "endpoints": list(self.endpoints),
                "method": self.method}


def connected_components(graph) -> Components:
    """The connected components of ``graph`` (weakly connected ones if it is directed).

    Args:
        graph: a ``breadth.Graph`` or a scipy sparse matrix.

    Returns:
        A ``Components``: the count, each vertex's label and each component's size.

    Examples:
        >>> c = breadth.connected_components(breadth.Graph.from_edges([0, 2], [1, 3]))
        >>> c.count, c.labels
        (2, array([0, 0, 1, 1]))
    """
    g = as_graph(graph)
    n = g.num_vertices
    if n == 0:
        return Components(0, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    from scipy.sparse.csgraph import connected_components as scipy_components

    count, labels = scipy_components(g.to_scipy(), directed=True, connection="weak")
    labels = labels.astype(np.int64, copy=False)
    return Components(int(count), labels, np.bincount(labels, minlength=count).astype(np.int64))


def estimate_diameter(graph, samples: int = 4, seed: int = 1, components: Components | None = None
                      ) -> DiameterEstimate:
    """Double-sweep lower bound on the diameter of the largest component (see the module docstring).

    Args:
        graph: the graph (on a directed graph the searches follow out-edges).
        samples: sweeps (two BFS each); 0 runs none.
        seed: chooses the start vertices.
        components: ``connected_components(graph)`` when already computed.

    Returns:
        A ``DiameterEstimate``: the bound, the pair of vertices at that distance, the BFS runs.

    Raises:
        InputError: ``samples`` not a non-negative integer.

    Examples:
        >>> est = breadth.estimate_diameter(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]))
        >>> est.lower_bound, est.endpoints
        (3, [0, 3])
    """
    g = as_graph(graph)
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 0:
        raise InputError(f"samples must be a non-negative integer, got {samples!r}")
    comps = connected_components(g) if components is None else components
    if samples == 0 or comps.count == 0:
        return DiameterEstimate(None, 0)
    members = comps.members(comps.largest)
    rng = np.random.default_rng(seed)
    best, runs, ends = 0, 0, []
    for _ in range(int(samples)):
        start = int(rng.choice(members))
        first = bfs(g, start)
        far = int(np.argmax(first.depth))
        second = bfs(g, far)
        runs += 2
        depth = max(first.max_depth, second.max_depth)
        if depth >= best:
            best = depth
            ends = [start, far] if first.max_depth > second.max_depth else [far, int(np.argmax(second.depth))]
    return DiameterEstimate(int(best), runs, ends)
