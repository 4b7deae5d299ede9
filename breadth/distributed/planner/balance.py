"""Load imbalance within a level: the edges the busiest rank examines, not the average rank's.

A level ends when its slowest rank does (every layout's level closes with a collective), so its
local step costs the busiest rank's work. Beamer, Buluç et al. (B2D, Sec. VIII) name the cause:
the partition itself is balanced (no block holds more than 5% over the average), but the work of
a level is not -- it depends on which vertices the level's frontier holds and where they live.

The term: a level's work comes in pieces, one per vertex (a top-down frontier vertex examines its
d arcs; a bottom-up unvisited vertex scans s of its in-arcs). The partition puts each vertex on a
group of ``spread`` ranks at random (one rank for a 1D owner; the R ranks of its processor column
for a 2D top-down step, the C ranks of its row bottom-up), each taking an equal part. With total
work W whose pieces have size-biased mean k = sum(d^2) / sum(d), a rank's work has mean W / P and
variance W k (1 - g/P) / (g P) (a sum of many independent pieces); the busiest of P ranks sits
``max_normal(P)`` standard deviations above the mean (the expected maximum of P independent
normals; the ranks' shares sum to W, which the (1 - g/P) factor accounts for).

Invariants: the busiest rank's work is at least W / P and at most W; it equals W / P when P = 1,
when every piece is spread over all the ranks, and when there is no work.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=256)
def max_normal(P: int) -> float:
    """E[max of P independent standard normals]: 0 for P = 1, 1/sqrt(pi) for P = 2, about
    sqrt(2 ln P) for large P (by quadrature of P x phi(x) Phi(x)^(P-1))."""
    if P <= 1:
        return 0.0
    from scipy.special import log_ndtr

    x = np.linspace(-10.0, 12.0, 20001)
    log_pdf = -0.5 * x * x - 0.5 * math.log(2.0 * math.pi)
    dens = np.exp(math.log(P) + log_pdf + (P - 1) * log_ndtr(x))
    return float(np.sum(x * dens) * (x[1] - x[0]))


def busiest(total: float, biased: float, P: int, spread: float = 1.0) -> float:
    """The busiest rank's share of ``total`` work spread over P ranks, in pieces of size-biased
    mean ``biased``, each piece split evenly over a random group of ``spread`` ranks (module
    header)."""
    if P <= 1 or total <= 0.0:
        return max(total, 0.0)
    g = min(max(float(spread), 1.0), float(P))
    mean = total / P
    var = total * max(biased, 0.0) * (1.0 - g / P) / (g * P)
    return min(total, mean + max_normal(int(P)) * math.sqrt(max(var, 0.0)))


def frontier_degree(lv) -> float:
    """The size-biased degree of a top-down level's frontier: the level's own (``Level.biased``)
    where the profile knows its vertices' degrees, else a Poisson spread around its mean degree."""
    if getattr(lv, "biased", None):
        return float(lv.biased)
    return lv.examined / lv.frontier + 1.0 if lv.frontier > 0 else 0.0


def scan_length(lv) -> float:
    """The size-biased scan of a bottom-up level's unvisited vertex: a Poisson spread around the
    level's mean scan (a vertex stops at its first parent, so scans vary little)."""
    return lv.examined / lv.unvisited + 1.0 if lv.unvisited > 0 else 0.0


def level_edges(td: float, bu: float, lv, P: int, spread) -> tuple:
    """(top-down, bottom-up) edges of the busiest rank in level ``lv``, from the totals over ranks;
    ``spread(direction)``: the ranks one vertex's arcs fall on in that direction."""
    return (busiest(td, frontier_degree(lv), P, spread("top-down")),
            busiest(bu, scan_length(lv) if lv.direction == "bottom-up" else frontier_degree(lv), P,
                    spread("bottom-up")))
