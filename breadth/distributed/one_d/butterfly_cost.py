"""Cost model of the 1D ButterFly layout (Green, "ButterFly BFS", Sec. 3, Alg. 2: P f log_(f+1) P
messages per level; ``one_d.butterfly_exchange``).

Per level, ceil(log_(f+1) P) rounds; in round i a rank sends its global queue to its f partners
(one latency step, f messages). The queue starts as the rank's own discoveries D (top-down: its
distinct unreached targets of X/P scanned arcs; bottom-up: N/P) and grows with each round's
merge, S_i = min(N, D (f+1)^i); a message carries min(ids * S_i, n/8) bytes (the bitmap encoding
when smaller). Merging costs one local step per received id, and every rank applies the level's
N discoveries to its replicated level array. No control messages. After the search, each rank
gives a parent to the owned vertices other ranks found top-down, by a scan of their in-arcs
(``finish_edges``), priced at the recovery's own cost per arc (``self_finish``, measured on one
rank: its random reads of the level array cost 2-3x a bottom-up kernel's edge).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..planner.ops import Op, id_bytes
from ..planner.words import distinct
from .butterfly_exchange import butterfly_schedule, self_round  # noqa: F401  (the planner times it)
from .butterfly_search import self_finish  # noqa: F401  (the planner times it)

FANOUTS = (1, 2, 3, 4, 7)
SCHEDULE_RANKS = 4096          # above this many ranks the messages are counted with arrays


def butterfly_messages(P: int, fanout: int) -> int:
    """Messages per level summed over ranks (ButterFly Sec. 3; P f log_(f+1) P when P is a power of f+1)."""
    return int(sum(round_messages(int(P), int(fanout))))


@lru_cache(maxsize=64)
def round_messages(P: int, f: int) -> tuple:
    """Messages of each round of the schedule (``butterfly_exchange.butterfly_schedule``), summed
    over ranks: from the schedule itself up to ``SCHEDULE_RANKS``, above it counted the same way
    with arrays -- every virtual rank v < Q = (f+1)^k sends to the f others of its digit group,
    virtual ranks q >= P are hosted by q mod Q/(f+1), and a real rank's messages are its distinct
    real partners."""
    if P <= SCHEDULE_RANKS:
        return tuple(sum(len(x) for x in rnd) for rnd in butterfly_schedule(P, f))
    return counted_messages(P, f)


def counted_messages(P: int, f: int) -> tuple:
    """``round_messages`` counted with arrays: row h of a table holds the hosts of the digit groups
    of every virtual rank that rank h stands for (h, and h + jW >= P when h < W); its distinct
    entries other than h are h's partners."""
    r, k = f + 1, butterfly_rounds(P, f)
    W = r ** k // r
    out = [0] * k
    for lo, hi, width in ((0, min(W, P), r), (min(W, P), P, 1)):      # ranks hosting extra virtual ranks, the rest
        if hi > lo:
            for i, c in enumerate(_partner_counts(np.arange(lo, hi, dtype=np.int64), P, r, k, width)):
                out[i] += c
    return tuple(out)


def _partner_counts(h, P, r, k, width) -> list:
    """Per round, the distinct partners of ranks ``h`` summed (``counted_messages``)."""
    Q, W = r ** k, r ** (k - 1)
    virt = h[:, None] + W * np.arange(width, dtype=np.int64)[None, :]
    valid = (virt < Q) & ((virt >= P) | (np.arange(width)[None, :] == 0))
    out, step = [], 1
    for _ in range(k):
        base = virt - ((virt // step) % r) * step
        u = base[:, :, None] + step * np.arange(r, dtype=np.int64)[None, None, :]
        hm = np.where(u < P, u, u % W)
        hm = np.where(valid[:, :, None] & (hm != h[:, None, None]), hm, -1).reshape(h.size, -1)
        hm.sort(axis=1)
        distinct = (hm[:, 1:] != hm[:, :-1]) & (hm[:, 1:] >= 0)
        out.append(int(distinct.sum() + np.count_nonzero(hm[:, 0] >= 0)))
        step *= r
    return out


def butterfly_rounds(P: int, fanout: int) -> int:
    """ceil(log_(f+1) P): the rounds of a radix-(f+1) butterfly network."""
    r, k, q = int(fanout) + 1, 0, 1
    while q < int(P):
        q *= r
        k += 1
    return k


def candidates(P: int) -> list:
    return [{"fanout": f} for f in FANOUTS if f < max(2, P)]


def state_vertices(n: float, P: int, params) -> float:
    """Every rank keeps the whole status array (Green Sec. 3: the frontier is shared with all)."""
    return n


def label(params) -> str:
    return f"1d butterfly f={params['fanout']}" + (" td" if rule(params) else "")


def rule(params):
    """The direction rule: the paper's code (``params["code"] == "paper"``) runs top-down only (Green Sec. 4: Alg. 1 and
    2 are top-down; breadth's layout adds bottom-up levels)."""
    return "top-down" if params.get("code") == "paper" else None


def _partners(P, f, i) -> tuple:
    if P > SCHEDULE_RANKS:            # the schedule of huge P: rank 0's digit-i group directly
        step = (f + 1) ** i
        return tuple(q for q in range(0, (f + 1) * step, step) if q < P)
    return (0,) + tuple(butterfly_schedule(P, f)[i][0])


def level_ops(prof, lv, P: int, params) -> list:
    f = int(params["fanout"])
    if P <= 1:
        return []
    k = butterfly_rounds(P, f)
    idb, n, N = id_bytes(prof.n), prof.n, lv.discovered
    own = distinct(lv.examined / P, lv.unvisited) if lv.direction == "top-down" else N / P
    per, most = round_messages(int(P), f), busiest_partners(int(P), f)
    ops = []
    for i in range(k):
        size = min(max(N, 0.0), own * (f + 1) ** i)
        msg = min(idb * size, n / 8)
        ops.append(Op(f"round {i}", "p2p", _partners(P, f, i), 1, most[i] * msg,
                      most[i] * size + (N if i == 0 else 0.0), per[i], per[i] * msg))
    return ops


@lru_cache(maxsize=64)
def busiest_partners(P: int, f: int) -> tuple:
    """Per round, the most partners any rank sends to and receives from: f where P is a power of
    f + 1, fewer where the network's top digit group is cut short (P = 2, f = 2: one), more on a
    rank hosting virtual ranks. The round's slowest rank moves and merges that many messages.
    Above ``SCHEDULE_RANKS`` (no schedule is built), f."""
    if P > SCHEDULE_RANKS:
        return (f,) * butterfly_rounds(P, f)
    return tuple(max(len(x) for x in rnd) for rnd in butterfly_schedule(P, f))


def after_ops(prof, P: int, params) -> list:
    return []


# every rank rebuilds the level's frontier bitmap from the global queue and picks its owned part out
# of it (``butterfly_search``): the engine's cost per frontier vertex is the whole frontier's on each
replicated_frontier = True


def finish_edges(prof, P: int, params) -> float:
    """In-arcs one rank scans after the search to give a parent to the owned vertices another rank
    found top-down (``replicated_steps.recover_parents``): of the vertices a top-down level
    discovers, a share 1 - 1/P was found by a rank that does not own them. Each scans its
    in-arcs until one lies in the previous frontier (``first_hit``); a bottom-up level's
    owners record their parents themselves. The paper's code keeps levels only (Green Alg. 2
    records no parents)."""
    if P <= 1 or params.get("code") == "paper":
        return 0.0
    arcs = prof.arcs or 2.0 * prof.m
    mean_degree = arcs / max(prof.n, 1.0)
    total = 0.0
    for lv in prof.levels_for(rule(params)):
        if lv.direction == "top-down" and lv.discovered > 0:
            total += lv.discovered * first_hit(lv.examined / arcs, mean_degree)
    return total * (1.0 - 1.0 / P) / P


def first_hit(p: float, k: float) -> float:
    """Arcs scanned until the first that lies in the frontier, over a vertex's k in-arcs, each in
    it with probability ``p`` (the frontier's share of arc endpoints), given that one does: the
    truncated geometric mean 1/p - k (1-p)^k / (1 - (1-p)^k), at most k."""
    k = max(float(k), 1.0)
    if p <= 0.0:
        return (k + 1.0) / 2.0
    if p >= 1.0:
        return 1.0
    miss = (1.0 - p) ** k
    return min(k, 1.0 / p - k * miss / (1.0 - miss))


def setup_bytes(prof, P: int, params) -> float:
    """Bytes every rank clears per search: the replicated level array and global queue (n ids each)."""
    return 2 * id_bytes(prof.n) * prof.n
