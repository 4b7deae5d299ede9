"""breadth as a networkx backend: ``nx.closeness_centrality(G, backend="breadth")``.

networkx (3.2 and later) dispatches its functions to installed backends: with
``backend="breadth"``, or for every call with ``NETWORKX_BACKEND_PRIORITY=breadth``,
the BFS family runs on breadth's kernels. ``interface`` is the entry point networkx
loads; ``graph`` the converted graph type (a ``breadth.Graph`` plus the node
list); ``kernels`` the two sequential numba traversals that reproduce networkx's
order; ``traversal``, ``paths``, ``centrality``, ``distance`` and ``components``
the functions, with networkx's signatures, results and errors. The backend's
networkx-facing description (``get_info``) lives in the top-level package
``_breadth_nx``, which imports neither breadth nor numba.
"""
