"""The functions the backend implements, and how often each ran (proof that breadth's code ran).

``implements`` registers a function under its networkx name and counts its calls in
``CALLS``; ``CONVERSIONS`` counts graphs converted from networkx. Generator functions
stay generators (the wrapper returns what the function returns), so their errors
are raised on first iteration, as networkx raises them.
"""
from __future__ import annotations

import functools
from collections import Counter

FUNCTIONS: dict = {}
CALLS: Counter = Counter()
CONVERSIONS: Counter = Counter()


def implements(func):
    """Register ``func`` as the backend's version of the networkx function of the same name."""
    name = func.__name__

    @functools.wraps(func)
    def counted(*args, **kwargs):
        CALLS[name] += 1
        return func(*args, **kwargs)

    FUNCTIONS[name] = counted
    return counted
