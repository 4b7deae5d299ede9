"""The functions the backend implements, and how often each ran (proof that breadth's code ran).

``implements`` registers a function under its networkx name and counts its calls in
``CALLS``; ``CONVERSIONS`` counts graphs converted from networkx. Generator functions
stay generators (the wrapper returns what the function returns), so their errors
are raised on first iteration, as networkx raises them. Each function's docstring is
completed from ``PARAMETERS`` (networkx's parameters, each described once) and starts with
``DISPATCH`` (``breadth.docstrings.shared_args``).
"""
from __future__ import annotations

import functools
from collections import Counter

from ..docstrings import compose

FUNCTIONS: dict = {}
CALLS: Counter = Counter()
CONVERSIONS: Counter = Counter()

DISPATCH = """Called by networkx's dispatcher with networkx's signature (``backend="breadth"``, or
``nx.config.backend_priority``); results and errors are networkx's."""
# networkx's parameters as breadth reads them; a function's own Args entry overrides one
PARAMETERS = {
    "G": "the networkx graph (networkx converts it to a ``BreadthGraph`` once per unchanged graph).",
    "source": "the start node.",
    "target": "the end node.",
    "reverse": "on a digraph, follow edges backwards.",
    "depth_limit": "the largest depth searched (None: no limit).",
    "cutoff": "the largest distance reported (None: no limit).",
    "sort_neighbors": "must be None for breadth (networkx runs a call with a callable itself).",
    "weight": "must be None for breadth (weighted lengths: networkx runs the call).",
    "distance": "must be None for breadth (edge distances: networkx runs the call).",
    "e": "must be None for breadth (precomputed eccentricities: networkx runs the call).",
    "usebounds": "accepted for networkx's signature; breadth computes every eccentricity exactly.",
}


def implements(func):
    """Register ``func`` as the backend's version of the networkx function of the same name.

    Args:
        func: the function, named as networkx's; its docstring is completed (see the header).

    Returns:
        The registered wrapper, which counts its calls in ``CALLS``.

    Examples:
        >>> from breadth.nx.registry import FUNCTIONS
        >>> FUNCTIONS["bfs_edges"].__name__
        'bfs_edges'
    """
    name = func.__name__
    func.__doc__ = compose(func, PARAMETERS, DISPATCH)

    @functools.wraps(func)
    def counted(*args, **kwargs):
        CALLS[name] += 1
        return func(*args, **kwargs)

    FUNCTIONS[name] = counted
    return counted
