"""The ``networkx.backends`` entry point ``breadth``: what networkx's dispatcher calls.

networkx looks up each dispatched function by name on this module, asks
``can_run`` (arguments breadth cannot honour: decline, so networkx falls back or
says why) and, in automatic mode (``nx.config.backend_priority``), ``should_run``
(is converting worth it), converts with ``convert_from_nx`` (cached by networkx on
``G.__networkx_cache__``) and hands results back through ``convert_to_nx``.
networkx passes arguments as the caller wrote them, positional ones included, so
both checks bind them to the function's signature first.
"""
from __future__ import annotations

import atexit
import inspect
import json
import os

from ..errors import BreadthError
from .centrality import closeness_centrality, harmonic_centrality
from .components import (connected_components, is_connected, node_connected_component,
                         number_connected_components, weakly_connected_components)
from .distance import center, diameter, eccentricity, periphery, radius
from .graph import BreadthGraph, is_real
from .paths import (all_pairs_shortest_path_length, has_path, shortest_path_length,
                    single_source_shortest_path_length, single_target_shortest_path_length)
from .registry import CALLS, CONVERSIONS, FUNCTIONS
from .traversal import (ancestors, bfs_edges, bfs_layers, bfs_predecessors, bfs_successors, bfs_tree,
                        descendants, descendants_at_distance)

__all__ = sorted(FUNCTIONS) + ["convert_from_nx", "convert_to_nx", "can_run", "should_run", "on_start_tests"]

# parameters that must be None for breadth to run the call (networkx runs it otherwise)
_MUST_BE_NONE = {
    **dict.fromkeys(("bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors"),
                    {"sort_neighbors": "a sort_neighbors callable"}),
    "shortest_path_length": {"weight": "weighted path lengths"},
    "closeness_centrality": {"distance": "edge distances"},
    "harmonic_centrality": {"distance": "edge distances"},
    "eccentricity": {"sp": "precomputed lengths (sp=)", "weight": "weighted path lengths"},
    **dict.fromkeys(("diameter", "radius", "center", "periphery"),
                    {"e": "precomputed eccentricities (e=)", "weight": "weighted path lengths"}),
}
# parameters breadth reads as a level limit: None or a real number
_LEVELS = {
    **dict.fromkeys(("bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors"), "depth_limit"),
    **dict.fromkeys(("single_source_shortest_path_length", "single_target_shortest_path_length",
                     "all_pairs_shortest_path_length"), "cutoff"),
    "descendants_at_distance": "distance",
}
# functions that search from every node: worth converting even a small graph
_ALL_SOURCES = {"all_pairs_shortest_path_length", "harmonic_centrality", "eccentricity", "diameter",
                "radius", "center", "periphery"}
_SIGNATURES = {name: inspect.signature(func) for name, func in FUNCTIONS.items()}


def _bind(name, args, kwargs):
    try:
        return _SIGNATURES[name].bind(*args, **kwargs).arguments
    except TypeError:
        return None                       # let the call raise networkx's own TypeError


def can_run(name, args, kwargs):
    """True if breadth can run ``name`` with these arguments, else a string saying why not.

    networkx asks before dispatching; with a string it falls back to another backend or
    reports the reason.

    Args:
        name: the networkx function's name.
        args: its positional arguments, as the caller wrote them.
        kwargs: its keyword arguments.

    Returns:
        True, or the reason breadth declines (a function it does not implement, a weight, a
            callable ``sort_neighbors``, a non-numeric level limit).

    Examples:
        >>> import networkx as nx
        >>> from breadth.nx.interface import can_run
        >>> G = nx.path_graph(4)
        >>> can_run("bfs_edges", (G, 0), {})
        True
        >>> can_run("shortest_path_length", (G, 0), {"weight": "w"})
        "breadth does not support weighted path lengths (weight='w')"
    """
    if name not in FUNCTIONS:
        return f"breadth does not implement {name}"
    bound = _bind(name, args, kwargs)
    if bound is None:
        return True
    for param, what in _MUST_BE_NONE.get(name, {}).items():
        if bound.get(param) is not None:
            return f"breadth does not support {what} ({param}={bound[param]!r})"
    param = _LEVELS.get(name)
    if param is not None and not is_real(bound.get(param)):
        return f"{param} must be a real number for breadth, got {type(bound[param]).__name__}"
    return True


def should_run(name, args, kwargs):
    """In automatic dispatch: convert only graphs big enough to gain (see ``min_nodes``).

    Args:
        name: the networkx function's name.
        args: its positional arguments.
        kwargs: its keyword arguments.

    Returns:
        True to run in breadth, or a string saying why networkx should run it itself (a
            graph smaller than ``nx.config.backends.breadth.min_nodes``, default 1000, not yet
            converted, for a search from one source).

    Examples:
        >>> import networkx as nx
        >>> from breadth.nx.interface import should_run
        >>> should_run("diameter", (nx.path_graph(4),), {})
        True
        >>> should_run("bfs_edges", (nx.path_graph(4), 0), {})
        'the graph has 4 nodes, fewer than nx.config.backends.breadth.min_nodes=1000: ...'
    """
    import networkx as nx

    bound = _bind(name, args, kwargs) or {}
    G = bound.get("G", args[0] if args else None)
    if G is None or isinstance(G, BreadthGraph) or name in _ALL_SOURCES:
        return True
    if (name == "closeness_centrality" and bound.get("u") is None) or \
            (name == "shortest_path_length" and bound.get("source") is None and bound.get("target") is None):
        return True
    cache = getattr(G, "__networkx_cache__", None) or {}
    if any(cache.get("backends", {}).get("breadth", {}).values()):
        return True                        # already converted: running is cheap
    min_nodes = getattr(nx.config.backends, "breadth", {}).get("min_nodes", 1000)
    if len(G) < min_nodes:
        return (f"the graph has {len(G)} nodes, fewer than nx.config.backends.breadth.min_nodes="
                f"{min_nodes}: converting it costs more than a search in networkx")
    return True


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None):
    """A networkx graph as a ``BreadthGraph`` (breadth needs no attributes: unweighted functions only).

    networkx calls this before running a function with ``backend="breadth"`` and caches the
    result on ``G.__networkx_cache__``, so an unchanged graph is converted once.

    Args:
        G: the networkx graph (a ``BreadthGraph`` is returned as it is).
        edge_attrs: ignored (breadth's functions are unweighted).
        node_attrs: ignored.
        preserve_edge_attrs: ignored.
        preserve_node_attrs: ignored.
        preserve_graph_attrs: ignored.
        name: the function being dispatched (unused).
        graph_name: the argument's name in that function (unused).

    Returns:
        The ``BreadthGraph``: a ``breadth.Graph`` and the node list (vertex i is ``nodes[i]``).

    Raises:
        NotImplementedError: breadth cannot convert the graph (e.g. it would not fit in
            memory), so networkx runs the call itself.

    Examples:
        >>> import networkx as nx
        >>> from breadth.nx.interface import convert_from_nx
        >>> bg = convert_from_nx(nx.path_graph(["a", "b", "c"]))
        >>> bg.graph, bg.nodes
        (Graph(undirected, 3 vertices, 2 edges), ['a', 'b', 'c'])
    """
    if isinstance(G, BreadthGraph):
        return G
    CONVERSIONS["networkx"] += 1
    try:
        return BreadthGraph.from_networkx(G)
    except BreadthError as exc:            # e.g. too big for memory: let networkx run it
        raise NotImplementedError(f"breadth cannot convert this graph: {exc}") from exc


def convert_to_nx(obj, *, name=None):
    """Results are plain Python objects already; a ``BreadthGraph`` becomes a networkx graph.

    Args:
        obj: a function's result.
        name: the function being dispatched (unused).

    Returns:
        ``obj``, or a networkx graph for a ``BreadthGraph``.

    Examples:
        >>> import networkx as nx
        >>> from breadth.nx.interface import convert_from_nx, convert_to_nx
        >>> convert_to_nx(convert_from_nx(nx.path_graph(3)))
        <networkx.classes.graph.Graph object at ...>
        >>> convert_to_nx({0: 1})
        {0: 1}
    """
    if isinstance(obj, BreadthGraph):
        return obj.to_networkx()
    return obj


def _write_calls(path: str) -> None:
    with open(path, "w") as f:
        json.dump({"calls": dict(CALLS), "conversions": dict(CONVERSIONS)}, f)


def on_start_tests(items):
    """networkx's test suite calls this when run with NETWORKX_TEST_BACKEND=breadth.

    With ``BREADTH_NX_CALLS=file`` the per-function call counts are written there at exit, as
    proof that breadth's code ran (``tests/nx/run_networkx_suite.py`` reads them).

    Args:
        items: the collected pytest items (not changed).

    Examples:
        >>> from breadth.nx.interface import on_start_tests
        >>> on_start_tests([])
    """
    path = os.environ.get("BREADTH_NX_CALLS")
    if path:
        atexit.register(_write_calls, path)
