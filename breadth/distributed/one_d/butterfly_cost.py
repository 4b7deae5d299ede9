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

from ..planner.ops import Op, id_bytes
from ..planner.words import distinct
from .butterfly_exchange import butterfly_schedule, self_round  # noqa: F401  (the planner times it)
from .butterfly_search import self_finish  # noqa: F401  (the planner times it)

FANOUTS = (1, 2, 3, 4, 7)
SCHEDULE_RANKS = 4096          # above this many ranks an op's group is rank 0's, without the schedule


def butterfly_messages(P: int, fanout: int) -> int:
    """Messages per level summed over ranks (ButterFly Sec. 3; P f log_(f+1) P when P is a power of f+1)."""
    return int(sum(round_messages(int(P), int(fanout))))


def round_messages(P: int, f: int) -> tuple:
    """Messages of each round of the schedule (``butterfly_exchange.butterfly_schedule``), summed
    over ranks, in closed form (``_closed``)."""
    return _closed(int(P), int(f))[0]


@lru_cache(maxsize=64)
def _closed(P: int, f: int) -> tuple:
    """(messages per round summed over ranks, the most partners of any rank per round) of the
    schedule, without building it. Virtual ranks q < Q = r^k (r = f + 1) form the digit groups of
    each round; q >= P is hosted by q mod W (W = Q / r); a round's messages are its distinct
    (host, host) pairs within a group.

    * Rounds before the last: a group of width span = r step lies in one W-block, so a group made
      only of virtual ranks >= P maps onto a real group (no new pair). Of the span-block that P
      cuts, rem = P mod span = a step + b leaves b groups with a + 1 real members and step - b
      with a; a group with t real members of r adds r (r - 1) - (r - t)(r - t - 1) pairs (the
      pairs among its mapped members are its hosts' own group's), and the hosts of its mapped
      members have t partners beyond their own group's f.
    * The last round (step W): group l is {l + j W}, and its members >= P are hosted by l itself,
      so it holds the t = |{j : l + j W < P}| real members' t (t - 1) pairs.
    """
    r, k = f + 1, butterfly_rounds(P, f)

    def pairs(t):
        return r * (r - 1) - (r - t) * (r - t - 1)

    msgs, most = [], []
    for i in range(k):
        step = r ** i
        if i == k - 1:
            q, rem = divmod(P, step)
            hi, lo = min(r, q + 1), min(r, q)
            msgs.append(rem * hi * (hi - 1) + (step - rem) * lo * (lo - 1))
            most.append((hi if rem else lo) - 1)
            continue
        full, rem = divmod(P, step * r)
        a, b = divmod(rem, step)
        msgs.append(full * step * r * (r - 1) + b * pairs(a + 1) + (step - b) * pairs(a))
        cut = [t for t, groups in ((a + 1, b), (a, step - b)) if groups and 0 < t < r]
        most.append(f + max(cut, default=0))
    return tuple(msgs), tuple(most)


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


def busiest_partners(P: int, f: int) -> tuple:
    """Per round, the most partners any rank sends to and receives from: f where P is a power of
    f + 1, fewer where the network's top digit group is cut short (P = 2, f = 2: one), more on a
    rank hosting virtual ranks (``_closed``). The round's slowest rank moves and merges that many
    messages."""
    return _closed(int(P), int(f))[1]


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
