"""Graph500 statistics, exactly as the reference's ``get_statistics`` (src/main.c) computes them.

Quartiles average two order statistics (0-based, integer division):
Q1 = (x[(n-1)//4] + x[n//4]) / 2, median = (x[(n-1)//2] + x[n//2]) / 2,
Q3 = (x[n-1-(n-1)//4] + x[n-1-n//4]) / 2; stddev uses n - 1.
TEPS statistics come from s_i = t_i / nedge_i: harmonic mean = 1 / mean(s),
min/quartiles/max = 1 / (max/Q3/median/Q1/min of s), and the harmonic standard
deviation is stddev(s) / (mean(s)^2 * sqrt(n - 1)) (Norris 1940).
"""
from __future__ import annotations

import math

import numpy as np


def statistics(values) -> dict:
    """The reference code's statistics of ``values``: min, quartiles, median, max, mean and stddev.

    Args:
        values: the samples (e.g. search times).

    Returns:
        A dict with ``min``, ``firstquartile``, ``median``, ``thirdquartile``, ``max``,
            ``mean`` and ``stddev`` (sample standard deviation); NaN for each when empty.

    Examples:
        >>> from breadth.graph500 import statistics
        >>> statistics([1, 2, 3, 4])["median"], statistics([1, 2, 3, 4])["firstquartile"]
        (2.5, 1.5)
    """
    x = np.sort(np.asarray(values, dtype=np.float64))
    n = x.size
    if n == 0:
        return {k: float("nan") for k in ("min", "firstquartile", "median", "thirdquartile", "max",
                                           "mean", "stddev")}
    mean = float(x.mean())
    std = float(math.sqrt(((x - mean) ** 2).sum() / (n - 1))) if n > 1 else 0.0
    return {
        "min": float(x[0]),
        "firstquartile": float((x[(n - 1) // 4] + x[n // 4]) / 2),
        "median": float((x[(n - 1) // 2] + x[n // 2]) / 2),
        "thirdquartile": float((x[n - 1 - (n - 1) // 4] + x[n - 1 - n // 4]) / 2),
        "max": float(x[-1]),
        "mean": mean,
        "stddev": std,
    }


def teps_statistics(times, nedges) -> dict:
    """TEPS statistics of searches: the reference's harmonic mean and its stddev, and the quartiles.

    Args:
        times: each search's seconds.
        nedges: each search's TEPS edge count.

    Returns:
        A dict with ``min``, ``firstquartile``, ``median``, ``thirdquartile``, ``max``,
            ``harmonic_mean`` and ``harmonic_stddev`` (edges per second).

    Examples:
        >>> from breadth.graph500 import teps_statistics
        >>> teps = teps_statistics([0.5, 1.0], [100, 100])
        >>> teps["min"], teps["max"], round(teps["harmonic_mean"], 3)
        (100.0, 200.0, 133.333)
    """
    s = np.asarray(times, dtype=np.float64) / np.asarray(nedges, dtype=np.float64)
    st = statistics(s)
    n = s.size
    hstd = st["stddev"] / (st["mean"] ** 2 * math.sqrt(n - 1)) if n > 1 else 0.0
    return {
        "min": 1 / st["max"],
        "firstquartile": 1 / st["thirdquartile"],
        "median": 1 / st["median"],
        "thirdquartile": 1 / st["firstquartile"],
        "max": 1 / st["min"],
        "harmonic_mean": 1 / st["mean"],
        "harmonic_stddev": hstd,
    }
