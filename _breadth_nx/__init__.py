"""networkx's view of the breadth backend: ``get_info`` for the ``networkx.backend_info`` entry point.

networkx calls ``get_info`` on every ``import networkx``, so this package is tiny
and imports neither breadth nor numba; the backend itself (``breadth.nx``) is
loaded only when a call is dispatched to it. ``FUNCTIONS`` must list exactly the
functions ``breadth.nx.interface`` implements (tests/nx checks it).
"""

_ORDER = "Same order as networkx: FIFO over the adjacency in insertion order."
_ALL_SOURCES = "All sources at once with breadth's concurrent BFS (iBFS, bitwise status arrays)."
_NOT = "Falls back to networkx (NotImplementedError) for {}."

FUNCTIONS = {
    "bfs_edges": f"{_ORDER} {_NOT.format('sort_neighbors')}",
    "bfs_tree": f"{_ORDER} {_NOT.format('sort_neighbors')}",
    "bfs_predecessors": f"{_ORDER} {_NOT.format('sort_neighbors')}",
    "bfs_successors": f"{_ORDER} {_NOT.format('sort_neighbors')}",
    "bfs_layers": _ORDER,
    "descendants_at_distance": "One depth-limited BFS (breadth.bfs).",
    "single_source_shortest_path_length": f"{_ORDER} (dict in discovery order)",
    "single_target_shortest_path_length": f"{_ORDER} (dict in discovery order; in-edges of a digraph)",
    "all_pairs_shortest_path_length": (f"{_ALL_SOURCES} Each inner dict lists its nodes by distance, "
                                       "then in graph order (networkx: discovery order)."),
    "shortest_path_length": f"Unweighted only. {_NOT.format('weight=')}",
    "has_path": "One BFS that stops at the target.",
    "descendants": "One BFS (breadth.bfs).",
    "ancestors": "One BFS over the in-edges (breadth.bfs).",
    "closeness_centrality": f"{_ALL_SOURCES} {_NOT.format('distance=')}",
    "harmonic_centrality": f"{_ALL_SOURCES} {_NOT.format('distance=')}",
    "eccentricity": f"{_ALL_SOURCES} {_NOT.format('sp= and weight=')}",
    "diameter": f"{_ALL_SOURCES} {_NOT.format('e= and weight=')}",
    "radius": f"{_ALL_SOURCES} {_NOT.format('e= and weight=')}",
    "center": f"{_ALL_SOURCES} {_NOT.format('e= and weight=')}",
    "periphery": f"{_ALL_SOURCES} {_NOT.format('e= and weight=')}",
    "is_connected": "One BFS (breadth.bfs).",
    "connected_components": "One numba labelling pass; components in networkx's order.",
    "number_connected_components": "One numba labelling pass.",
    "node_connected_component": "One BFS (breadth.bfs).",
    "weakly_connected_components": "One numba labelling pass over out- and in-edges; networkx's order.",
}

DEFAULT_CONFIG = {
    # automatic dispatch (nx.config.backend_priority) converts a graph for a single-source
    # function only from this many nodes on; all-sources functions always run in breadth
    "min_nodes": 1000,
}


def get_info() -> dict:
    """The backend description networkx reads (names, docs, default configuration)."""
    return {
        "backend_name": "breadth",
        "project": "breadth",
        "package": "breadth",
        "short_summary": "BFS family on breadth's numba kernels (single-source, all-sources, components).",
        "description": "Runs networkx's unweighted BFS-based functions on a CSR copy of the graph with "
                       "breadth's numba BFS and concurrent BFS; results are plain Python objects.",
        "functions": {name: {"additional_docs": doc} for name, doc in FUNCTIONS.items()},
        "default_config": dict(DEFAULT_CONFIG),
    }
