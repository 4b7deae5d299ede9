"""Graph's conversions to and from networkx, python-igraph and scipy.sparse.

``GraphInterop`` is the base class of ``breadth.Graph`` that holds its converting
constructors (``from_scipy``, ``from_networkx``, ``from_igraph``) and exports
(``to_networkx``, ``to_igraph``, ``to_scipy``); each is a documented entry point
over the conversion functions of ``breadth.graph.convert``, which state the rules
(node order, labels, self-loops, lazily read in-edges). Kept apart from
``graph/types.py`` so that the CSR class holds only its arrays, checks and queries.
"""
from __future__ import annotations

from . import convert


class GraphInterop:
    """The conversions of ``breadth.Graph``: its base class, so each is called on ``Graph``.

    The constructors build a ``Graph`` from a scipy.sparse matrix, a networkx graph or a
    python-igraph graph; the ``to_*`` methods give one back. networkx and python-igraph
    are imported only when used.

    Examples:
        >>> import networkx as nx
        >>> g = breadth.Graph.from_networkx(nx.path_graph(3))
        >>> sorted(g.to_networkx().edges), g.to_scipy().nnz
        ([(0, 1), (1, 2)], 4)
    """

    __slots__ = ()

    @classmethod
    def from_scipy(cls, matrix, directed=None, index_dtype=None) -> "Graph":
        """From a square scipy sparse matrix/array: entry (i, j) is the edge i -> j.

        Args:
            matrix: a square scipy.sparse matrix or array (values are ignored).
            directed: None treats a structurally symmetric matrix as undirected and any other
                as directed (scipy.sparse.csgraph's default view of a matrix); True/False forces it.
            index_dtype: the neighbour ids' dtype.

        Returns:
            The ``Graph``.

        Raises:
            InputError: a matrix that is not square.

        Examples:
            >>> import scipy.sparse as sp
            >>> m = sp.csr_array(([1, 1], ([0, 1], [1, 2])), shape=(3, 3))
            >>> breadth.Graph.from_scipy(m)
            Graph(directed, 3 vertices, 2 edges)
        """
        src, dst, n, directed = convert.scipy_edges(matrix, directed)
        return cls.from_edges(src, dst, num_vertices=n, directed=directed, index_dtype=index_dtype)

    @classmethod
    def from_networkx(cls, G, nodelist=None, directed=None, index_dtype=None) -> "Graph":
        """From a networkx (Di/Multi)Graph: vertex i is ``list(G)[i]`` (or ``nodelist[i]``).

        The nodes are kept as ``vertex_ids`` unless they are exactly 0..n-1 in that order
        (int64 for non-negative integers, an object array for any other labels), so
        ``index_of``/``label_of`` translate. Neighbour lists keep networkx's adjacency
        order; self-loops are dropped; a directed graph reads its in-edges on first use.
        See ``breadth.graph.convert``.

        Args:
            G: the networkx graph.
            nodelist: the nodes in the order of their ids (default ``list(G)``).
            directed: default ``G.is_directed()``; False reads a DiGraph as undirected.
            index_dtype: the neighbour ids' dtype.

        Returns:
            The ``Graph``, with the nodes as labels.

        Raises:
            InputError: a ``nodelist`` that is not G's nodes.

        Examples:
            >>> import networkx as nx
            >>> g = breadth.Graph.from_networkx(nx.path_graph(["a", "b", "c"]))
            >>> g, g.vertex_ids
            (Graph(undirected, 3 vertices, 2 edges), array(['a', 'b', 'c'], dtype=object))
        """
        return cls(**convert.networkx_csr(G, nodelist=nodelist, directed=directed, index_dtype=index_dtype),
                   check=False)

    @classmethod
    def from_igraph(cls, g, directed=None, index_dtype=None) -> "Graph":
        """From a python-igraph graph (vertices 0..n-1).

        Args:
            g: the igraph graph.
            directed: default ``g.is_directed()``.
            index_dtype: the neighbour ids' dtype.

        Returns:
            The ``Graph``.

        Examples:
            >>> import igraph
            >>> breadth.Graph.from_igraph(igraph.Graph([(0, 1), (1, 2)]))
            Graph(undirected, 3 vertices, 2 edges)
        """
        src, dst, n, directed = convert.igraph_edges(g, directed)
        return cls.from_edges(src, dst, num_vertices=n, directed=directed, index_dtype=index_dtype)

    def to_networkx(self):
        """A networkx Graph/DiGraph with the same vertices (labels if any) and edges.

        Returns:
            A ``networkx.Graph``, or a ``networkx.DiGraph`` for a directed graph.

        Examples:
            >>> sorted(breadth.Graph.from_edges([0, 1], [1, 2]).to_networkx().edges)
            [(0, 1), (1, 2)]
        """
        return convert.to_networkx(self)

    def to_igraph(self):
        """A python-igraph Graph with the same vertices (dense ids; labels as the "id" attribute) and edges.

        Returns:
            An ``igraph.Graph``.

        Examples:
            >>> breadth.Graph.from_edges([0, 1], [1, 2]).to_igraph().vcount()
            3
        """
        return convert.to_igraph(self)

    def to_scipy(self):
        """The adjacency as a scipy.sparse.csr_array of int8 ones (both directions if undirected).

        Returns:
            An n x n ``scipy.sparse.csr_array``.

        Examples:
            >>> breadth.Graph.from_edges([0, 1], [1, 2]).to_scipy().toarray()
            array([[0, 1, 0],
                   [1, 0, 1],
                   [0, 1, 0]], dtype=int8)
        """
        return convert.to_scipy(self)
