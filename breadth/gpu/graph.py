"""DeviceGraph: a breadth.Graph uploaded to the GPU once, reused by every search on it.

The CSR goes up as stored on the host: int64 offsets and int32 neighbour ids
while the graph has fewer than 2^31 vertices (int64 beyond), so the kernels
read the same compact arrays as the CPU ones. A directed graph also uploads its
in-edges (what bottom-up scans); an undirected graph's in-edges are its
out-edges, uploaded once. Before anything is allocated, the graph plus the
memory of one search (``search_bytes``) is checked against the GPU's free
memory, and a clear ``MemoryEstimateError`` names both.
"""
from __future__ import annotations

import numpy as np

from ..checks import as_graph
from ..graph.types import Graph
from . import device
from .primitives import ROW


def graph_bytes(graph: Graph) -> int:
    """Device bytes of the uploaded CSR (in-edges too when directed)."""
    return int(graph.nbytes)


def search_bytes(num_vertices: int, vid_itemsize: int) -> int:
    """Device bytes of one single-source search: parent, depth, three queues, five bitmaps, counters."""
    n = int(num_vertices)
    words = (n + 31) // 32
    return 16 * n + 3 * vid_itemsize * max(n, 1) + 5 * 4 * max(words, 1) + 2 * ROW * 8


def upload_csr(g) -> tuple:
    """Device copies of ``g``'s (indptr, indices, in_indptr, in_indices); an undirected graph's
    in-arrays are its out-arrays (one copy)."""
    indptr, indices = device.to_device(g.indptr), device.to_device(g.indices)
    if not g.directed:
        return indptr, indices, indptr, indices
    return indptr, indices, device.to_device(g.in_indptr), device.to_device(g.in_indices)


class DeviceGraph:
    """A graph on the GPU. ``DeviceGraph(graph)`` uploads it (a breadth.Graph or scipy sparse matrix).

    Upload once and search many times: ``breadth.bfs(dg, root, device="cuda")`` (and the
    concurrent BFS functions with ``device="cuda"``) reuse it. ``graph`` keeps the host copy
    (degrees for the host's bookkeeping, validation).

    Args:
        graph: a ``breadth.Graph`` or a scipy sparse matrix.
        free_bytes: overrides the GPU's free memory in the estimate (tests; a budget).

    Raises:
        InputError: no GPU (and no simulator), or numba-cuda is not installed.
        MemoryEstimateError: the graph and one search's arrays would not fit on the GPU.

    Examples:
        >>> from breadth.gpu import DeviceGraph
        >>> dg = DeviceGraph(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]))
        >>> dg.num_vertices, dg.num_arcs, dg.directed
        (4, 6, False)
        >>> breadth.bfs(dg, 0, device="cuda").depth
        array([0, 1, 2, 3])
    """

    def __init__(self, graph, free_bytes: float | None = None):
        device.require_cuda()
        g = as_graph(graph)
        self.graph = g
        self.num_vertices = g.num_vertices
        self.num_arcs = g.num_arcs
        self.directed = g.directed
        self.vid_dtype = g.indices.dtype
        need = graph_bytes(g) + search_bytes(g.num_vertices, self.vid_dtype.itemsize)
        device.check_device_fits(f"a graph of {g.num_vertices} vertices and {g.num_arcs} arcs with one search",
                                 need, free_bytes)
        self.indptr, self.indices, self.in_indptr, self.in_indices = upload_csr(g)
        self._search = None
        self._groups = {}

    @property
    def nbytes(self) -> int:
        return graph_bytes(self.graph)

    def out_degree(self, vertices) -> np.ndarray:
        """Out-degrees of host vertex ids, from the host copy (no device traffic)."""
        v = np.asarray(vertices, dtype=np.int64)
        return self.graph.indptr[v + 1] - self.graph.indptr[v]

    def search_space(self):
        """The device memory of single-source searches, allocated on first use and reused."""
        if self._search is None:
            from .search import SearchSpace

            self._search = SearchSpace(self)
        return self._search

    def group_space(self, words: int):
        """The device memory of iBFS groups of ``words`` status words, allocated on first use and reused."""
        if words not in self._groups:
            from .ibfs import GroupSpace

            self._groups[words] = GroupSpace(self, words)
        return self._groups[words]

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"DeviceGraph({kind}, {self.num_vertices} vertices, {self.num_arcs} arcs on {device.device_name()})"


def as_device_graph(graph) -> DeviceGraph:
    """A DeviceGraph as is; anything ``as_graph`` accepts is uploaded (once per call)."""
    if isinstance(graph, DeviceGraph):
        return graph
    return DeviceGraph(graph)
