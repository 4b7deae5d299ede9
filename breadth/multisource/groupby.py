"""GroupBy: which sources share a group (iBFS, Liu, Huang, Hu, SIGMOD'16, section 5).

The more frontiers the instances of a group share, the less a joint traversal
costs (the sharing degree SD of equation 1 is the expected speedup over
running them one by one, Lemma 1), and sharing in the first levels predicts
sharing later (Theorem 1). The paper's out-degree rules pick such groups:

* Rule 1: both sources have out-degree < p;
* Rule 2: both connect to a common vertex of out-degree > q (a *hub*).

q defaults to 128 and p is taken in ascending order from 4, 16, 64, 128.
Sources satisfying both rules are bucketed by hub (the highest-degree
out-neighbour, if it exceeds q) and within a hub by the smallest p they
satisfy; buckets are laid out hub by hub (biggest hub first) and cut into
groups of N, so a bucket larger than N runs as its own groups, small buckets
are combined (first across p, then across hubs), and the remaining sources
(no hub, or out-degree >= max p) are grouped at random, as in the paper.
Sources without out-edges (nothing to share, nothing to traverse) go last.

``random_groups`` is the baseline the paper compares against.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from ..checks import check_positive_int
from ..errors import InputError
from ..jit import njit
from ..kernels.levels import DISCOVERED
from .ibfs import JOINT_FRONTIER

P_VALUES = (4, 16, 64, 128)
Q_DEFAULT = 128


@njit(parallel=True, cache=True)
def _hubs(indptr, indices, sources, pmax, q, hub):
    """hub[i] = the highest out-degree out-neighbour of sources[i] when deg(sources[i]) < pmax
    and that neighbour's out-degree > q; else -1."""
    for i in prange(sources.size):
        s = sources[i]
        hub[i] = -1
        if indptr[s + 1] - indptr[s] >= pmax:
            continue
        best = q
        for j in range(indptr[s], indptr[s + 1]):
            v = indices[j]
            d = indptr[v + 1] - indptr[v]
            if d > best or (d == best and hub[i] >= 0 and v < hub[i]):
                best = d
                hub[i] = v


def _check(num_sources, group_size):
    check_positive_int(group_size, "group size")
    if num_sources < 1:
        raise InputError("no sources given")


def _cut(order, group_size):
    return [order[i:i + group_size] for i in range(0, order.size, group_size)]


def random_groups(num_sources: int, group_size: int, seed: int = 0) -> list[np.ndarray]:
    """Random grouping: a seeded shuffle of source positions cut into groups of ``group_size``.

    Args:
        num_sources: the number of sources.
        group_size: sources per group.
        seed: the shuffle's seed.

    Returns:
        A list of int64 arrays of positions.

    Raises:
        InputError: a bad count or group size.

    Examples:
        >>> from breadth.multisource import random_groups
        >>> random_groups(8, 4, seed=0)
        [array([2, 4, 3, 6]), array([5, 0, 1, 7])]
    """
    _check(num_sources, group_size)
    order = np.random.default_rng(seed).permutation(num_sources).astype(np.int64)
    return _cut(order, int(group_size))


def rule_groups(graph, sources, group_size: int, p_values=P_VALUES, q: int = Q_DEFAULT,
                seed: int = 0) -> list[np.ndarray]:
    """The out-degree GroupBy rules (iBFS section 5); groups as arrays of positions into ``sources``.

    Sources with out-degree below p that share a hub (an out-neighbour of degree above q) are
    grouped together, biggest hub first; the others are grouped at random, and sources without
    out-edges go last (see the module docstring).

    Args:
        graph: the graph.
        sources: the source vertices.
        group_size: sources per group.
        p_values: the out-degree classes, ascending.
        q: the hub degree.
        seed: the seed of the random part.

    Returns:
        A list of int64 arrays of positions into ``sources``.

    Raises:
        InputError: a bad group size, p values or q.

    Examples:
        >>> from breadth.multisource import rule_groups
        >>> groups = rule_groups(breadth.kronecker(6, seed=1), range(8), 4)
        >>> sorted(np.concatenate(groups).tolist())
        [0, 1, 2, 3, 4, 5, 6, 7]
    """
    sources = np.asarray(sources, dtype=np.int64)
    _check(sources.size, group_size)
    p_values = np.sort(np.asarray(p_values, dtype=np.int64))
    if p_values.size == 0 or p_values[0] < 1:
        raise InputError(f"p values must be positive integers, got {list(p_values)}")
    if q < 0:
        raise InputError(f"q must be non-negative, got {q}")
    indptr = graph.indptr
    deg = indptr[sources + 1] - indptr[sources]
    hub = np.empty(sources.size, dtype=np.int64)
    _hubs(indptr, graph.indices, sources, int(p_values[-1]), int(q), hub)
    pclass = np.searchsorted(p_values, deg, side="right")      # smallest p with deg < p
    pos = np.arange(sources.size, dtype=np.int64)
    ruled = hub >= 0
    hub_deg = np.where(ruled, indptr[np.maximum(hub, 0) + 1] - indptr[np.maximum(hub, 0)], 0)
    # biggest hub first, then hub id, then p class, then input order
    first = pos[ruled][np.lexsort((pos[ruled], pclass[ruled], hub[ruled], -hub_deg[ruled]))]
    rest = pos[~ruled & (deg > 0)]
    rest = rest[np.random.default_rng(seed).permutation(rest.size)]
    last = pos[deg == 0]
    return _cut(np.concatenate([first, rest, last]), int(group_size))


def make_groups(graph, sources, group_size: int, method: str = "rules", p_values=P_VALUES,
                q: int = Q_DEFAULT, seed: int = 0) -> list[np.ndarray]:
    """Groups of positions into ``sources``: ``method`` is "rules" (GroupBy) or "random".

    Args:
        graph: the graph (its out-degrees guide the rules).
        sources: the source vertices.
        group_size: sources per group.
        method: "rules" (``rule_groups``) or "random" (``random_groups``).
        p_values: the rules' out-degree classes.
        q: the rules' hub degree.
        seed: the seed of the random part.

    Returns:
        A list of int64 arrays of positions into ``sources``, each at most ``group_size`` long.

    Raises:
        InputError: an unknown method, a bad group size, p or q.

    Examples:
        >>> from breadth.multisource import make_groups
        >>> make_groups(breadth.kronecker(6, seed=1), range(8), 4, method="random")
        [array([2, 4, 3, 6]), array([5, 0, 1, 7])]
    """
    if method == "rules":
        return rule_groups(graph, sources, group_size, p_values, q, seed)
    if method == "random":
        return random_groups(len(sources), group_size, seed)
    raise InputError(f"unknown grouping {method!r}; choose 'rules' or 'random'")


def sharing_degree(stats) -> float:
    """SD of one group (equation 1): instance frontiers summed over levels / joint frontiers summed.

    Args:
        stats: the traversal's level rows (``ibfs.LEVEL_FIELDS``): ``discovered`` is
            the (vertex, instance) pairs first reached at the level, i.e. sum_j |FQ_j(k)|,
            ``joint_frontier`` the joint frontier |JFQ(k)|.

    Returns:
        The sharing degree: the expected speedup of the joint traversal over running its
            instances one by one (1 when they share nothing).

    Examples:
        >>> from breadth.multisource import msbfs, sharing_degree
        >>> r = msbfs(breadth.kronecker(6, seed=1), range(8), group_size=8)
        >>> sharing_degree(r.group_results[0].stats)
        4.2
    """
    stats = np.asarray(stats)
    joint = int(stats[:, JOINT_FRONTIER].sum())
    return float(stats[:, DISCOVERED].sum()) / joint if joint else 0.0
