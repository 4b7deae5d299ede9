"""Counted words and messages of the papers' communication models, shared by the planner's cost
models and the benchmarks that set measured words against them (``bench/dist_2d.py``,
``bench/dist_delegates.py``, ``bench/dist_network.py``).

* Beamer, Buluç, Asanović, Patterson, "Distributed Memory Breadth-First Search Revisited:
  Enabling Bottom-Up Search" (B2D), Sec. V, Table I: on a p_r x p_c grid a search run top-down
  throughout moves w_t = 4m + n(p_r + 1) 64-bit words, one bottom-up step n(p_r + p_c + 1)/64,
  and eq. 2 gives their ratio on a square grid; solving eq. 2 for equality gives the number of
  bottom-up steps s_b that send as much as the whole top-down search.
* Green, "ButterFly BFS", Sec. 3: P f log_(f+1) P messages per level -- with the 1D layout's model
  (``one_d.butterfly_cost.butterfly_messages``).
* Fu et al., "Parallel Breadth First Search on GPU Clusters" (MapGraph), Sec. 3: ceil(log2 C)
  pairwise rounds of the bitmap contraction along a processor row.
* Pan, Pearce, Owens, "Scalable Breadth-First Search on a GPU Cluster", Sec. V: the d-bit
  delegate mask OR-reduced across ranks, the nn ids routed to their owners.
"""
from __future__ import annotations

import math


def b2d_topdown_words(n: float, m: float, p_r: int) -> float:
    """B2D Table I: 64-bit words of a whole top-down search, w_t = 4m + n(p_r + 1)."""
    return 4.0 * m + n * (p_r + 1)


def b2d_bottomup_step_words(n: float, p_r: int, p_c: int) -> float:
    """B2D Table I: 64-bit words of one bottom-up step, n(p_r + p_c + 1)/64."""
    return n * (p_r + p_c + 1) / 64.0


def b2d_bottomup_words(n: float, p_r: int, p_c: int, s_b: float) -> float:
    """B2D Table I: w_b = n(s_b (p_r + p_c + 1)/64 + 2) for s_b bottom-up steps (the 2n: parents)."""
    return n * (s_b * (p_r + p_c + 1) / 64.0 + 2.0)


def b2d_ratio(k: float, p_c: int, s_b: float) -> float:
    """B2D eq. 2 (square grid p_r = p_c, k = m/n): w_t / w_b = (p_c + 4k + 1) / (s_b (2 p_c + 1)/64 + 2)."""
    return (p_c + 4.0 * k + 1.0) / (s_b * (2 * p_c + 1) / 64.0 + 2.0)


def b2d_break_even_steps(k: float, p_c: int) -> float:
    """The s_b at which eq. 2's ratio is 1: bottom-up steps that send as much as the top-down search."""
    return (p_c + 4.0 * k + 1.0 - 2.0) * 64.0 / (2 * p_c + 1)


def alltoall_messages(P: int, direction_td: bool) -> int:
    """1D all-to-all per level, summed over ranks: counts + data Alltoall(v) top-down (2P(P-1)),
    one Allgatherv of bitmap words bottom-up (P(P-1))."""
    return (2 if direction_td else 1) * P * (P - 1)


def pan_mask_bytes(delegates: int) -> float:
    """Pan Sec. V: the delegate mask, one bit per delegate, padded to 64-bit words."""
    return 8.0 * math.ceil(delegates / 64.0)


def distinct(draws: float, bins: float) -> float:
    """Expected distinct bins hit by ``draws`` uniform draws into ``bins`` bins (a rank's distinct
    targets among the edges it scans: the senders' dedup of the top-down exchanges)."""
    if bins <= 0 or draws <= 0:
        return 0.0
    return bins * -math.expm1(-draws / bins)
