"""The backend's graph type: a ``breadth.Graph`` plus networkx's node list (vertex i is ``nodes[i]``).

``BreadthGraph.from_networkx`` converts through ``breadth.Graph.from_networkx`` (the one
conversion routine, ``breadth.graph.convert.networkx_csr``): nodes in ``list(G)``
order, neighbours in adjacency insertion order, in-edges read on first use.
networkx caches the converted graph on ``G.__networkx_cache__`` and clears that
cache when the graph changes through its methods, so an unchanged graph is
converted once.

Node lookups follow networkx's own semantics (a dict keyed by the node objects:
``1.0`` finds node ``1``, an unhashable object raises ``TypeError``, ``x in G`` is
False for it); results are built from the node objects themselves.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..graph.labels import object_array
from ..graph.types import Graph


class BreadthGraph:
    """A networkx graph converted for breadth (what ``convert_from_nx`` returns).

    Args:
        graph: the ``breadth.Graph`` (vertex i is ``nodes[i]``).
        nodes: networkx's node list, in ``list(G)`` order.
        multigraph: whether it came from a MultiGraph or MultiDiGraph.

    Examples:
        >>> import networkx as nx
        >>> from breadth.nx.graph import BreadthGraph
        >>> bg = BreadthGraph.from_networkx(nx.DiGraph([("x", "y")]))
        >>> bg.graph, len(bg), bg.is_directed()
        (Graph(directed, 2 vertices, 1 edges), 2, True)
    """

    __networkx_backend__ = "breadth"

    def __init__(self, graph: Graph, nodes: list, multigraph: bool = False):
        self.graph = graph
        self.nodes = nodes
        self.multigraph = bool(multigraph)
        self.identity = graph.vertex_ids is None       # nodes are exactly 0..n-1
        self._index = None
        self._node_array = None
        self._reversed = None
        self.__networkx_cache__ = {}

    @classmethod
    def from_networkx(cls, G) -> "BreadthGraph":
        """Convert a networkx graph (what ``convert_from_nx`` does).

        Args:
            G: the networkx graph.

        Returns:
            The ``BreadthGraph``.
        """
        return cls(Graph.from_networkx(G), list(G), G.is_multigraph())

    # ---------------------------------------------------------------- the little of networkx's API callers use
    def is_directed(self) -> bool:
        """True for a converted DiGraph.

        Returns:
            Whether the converted graph is directed.
        """
        return self.graph.directed

    def is_multigraph(self) -> bool:
        """True for a converted MultiGraph or MultiDiGraph.

        Returns:
            Whether it was converted from a multigraph.
        """
        return self.multigraph

    def __len__(self) -> int:
        return len(self.nodes)

    def number_of_nodes(self) -> int:
        """Number of nodes, as networkx's.

        Returns:
            The node count.
        """
        return len(self.nodes)

    def order(self) -> int:
        """Number of nodes, as networkx's.

        Returns:
            The node count.
        """
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:
            return False

    def __repr__(self) -> str:
        return f"BreadthGraph({self.graph!r})"

    def to_networkx(self):
        """A networkx Graph/DiGraph with the same nodes (in order) and edges (adjacency order).

        Returns:
            A ``networkx.Graph`` or ``networkx.DiGraph``.
        """
        import networkx as nx

        G = nx.DiGraph() if self.graph.directed else nx.Graph()
        G.add_nodes_from(self.nodes)
        g = self.graph
        src = np.repeat(np.arange(g.num_vertices, dtype=np.int64), np.diff(g.indptr))
        G.add_edges_from(zip(self.labels(src), self.labels(g.indices)))
        return G

    # ---------------------------------------------------------------- nodes <-> vertex ids
    @property
    def index(self) -> dict:
        """node -> vertex id, built on first use."""
        if self._index is None:
            self._index = dict(zip(self.nodes, range(len(self.nodes))))
        return self._index

    def id(self, node) -> int:
        """The vertex id of a node (KeyError if absent, TypeError if unhashable: like ``G._adj[node]``)."""
        if self.identity and type(node) is int and 0 <= node < len(self.nodes):
            return node
        return self.index[node]

    def labels(self, ids) -> list:
        """The node objects of an array of vertex ids, as a list."""
        ids = np.asarray(ids)
        if self.identity:
            return ids.tolist()
        if self._node_array is None:
            self._node_array = object_array(self.nodes, len(self.nodes))
        return self._node_array[ids].tolist()

    @property
    def reversed(self) -> Graph:
        """The transpose (out-edges = in-edges) as a breadth graph; the graph itself if undirected."""
        g = self.graph
        if not g.directed:
            return g
        if self._reversed is None:
            self._reversed = Graph(g.in_indptr, g.in_indices, directed=True, in_indptr=g.indptr,
                                   in_indices=g.indices, check=False)
        return self._reversed

    def search_algorithm(self, graph: Graph) -> str:
        """breadth.bfs's algorithm for one search: direction-optimizing when the in-edges exist
        (always for undirected graphs), else top-down rather than reading them for one search."""
        return "do" if not graph.directed or graph._in_indptr is not None else "td"


def max_level(limit) -> int:
    """The deepest level networkx reaches for a ``cutoff``/``depth_limit`` (-1: no limit).

    networkx expands level L while ``limit > L``, so it reaches level ceil(limit);
    a NaN or negative limit stops at the sources.
    """
    if limit is None:
        return -1
    limit = float(limit)
    if math.isnan(limit) or limit <= 0:
        return 0
    if math.isinf(limit):
        return -1
    return int(math.ceil(limit))


def is_real(x) -> bool:
    """A number networkx can compare levels with (None counts: it means no limit)."""
    return x is None or isinstance(x, numbers.Real)


def nbunch_iter(G: BreadthGraph, nbunch):
    """``G.nbunch_iter(nbunch)`` of networkx, errors and messages included."""
    import networkx as nx

    if nbunch is None:
        return iter(G.nodes)
    if nbunch in G:
        return iter([nbunch])

    def bunch_iter(nlist, index):
        try:
            for n in nlist:
                if n in index:
                    yield n
        except TypeError as err:
            exc, message = err, err.args[0]
            if "iter" in message:
                exc = nx.NetworkXError("nbunch is not a node or a sequence of nodes.")
            if "object is not iterable" in message:
                exc = nx.NetworkXError(f"Node {nbunch} is not in the graph.")
            if "hashable" in message:
                exc = nx.NetworkXError(f"Node {n} in sequence nbunch is not a valid node.")
            raise exc

    return bunch_iter(nbunch, G.index)


def not_in_graph(G: BreadthGraph, node):
    """networkx's error for a node missing from ``G.neighbors``/``G.predecessors``."""
    import networkx as nx

    kind = "digraph" if G.is_directed() else "graph"
    return nx.NetworkXError(f"The node {node} is not in the {kind}.")
