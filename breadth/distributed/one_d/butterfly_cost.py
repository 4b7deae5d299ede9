"""Cost model of the 1D ButterFly layout (Green, "ButterFly BFS", Sec. 3, Alg. 2: P f log_(f+1) P
messages per level; ``one_d.butterfly_exchange``).

Per level, ceil(log_(f+1) P) rounds; in round i a rank sends its global queue to its f partners
(one latency step, f messages). The queue starts as the rank's own discoveries D (top-down: its
distinct unreached targets of X/P scanned arcs; bottom-up: N/P) and grows with each round's
merge, S_i = min(N, D (f+1)^i); a message carries min(ids * S_i, n/8) bytes (the bitmap encoding
when smaller). Merging costs one local step per received id, and every rank applies the level's
N discoveries to its replicated level array. No control messages.
"""
from __future__ import annotations

from ..planner.network import Op, id_bytes
from ..planner.words import distinct
from .butterfly_exchange import butterfly_schedule, messages_per_level

FANOUTS = (1, 2, 3, 4, 7)


def butterfly_messages(P: int, fanout: int) -> int:
    """Messages per level summed over ranks (ButterFly Sec. 3; P f log_(f+1) P when P is a power of f+1)."""
    return messages_per_level(int(P), int(fanout))


def butterfly_rounds(P: int, fanout: int) -> int:
    """ceil(log_(f+1) P): the rounds of a radix-(f+1) butterfly network."""
    r, k, q = int(fanout) + 1, 0, 1
    while q < int(P):
        q *= r
        k += 1
    return k


def candidates(P: int) -> list:
    return [{"fanout": f} for f in FANOUTS if f < max(2, P)]


def label(params) -> str:
    return f"1d butterfly f={params['fanout']}"


def _partners(P, f, i) -> tuple:
    if P > 4096:                      # the schedule of huge P: rank 0's digit-i group directly
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
    per_round = butterfly_messages(P, f) / max(1, k)
    ops = []
    for i in range(k):
        size = min(max(N, 0.0), own * (f + 1) ** i)
        msg = min(idb * size, n / 8)
        ops.append(Op(f"round {i}", "p2p", _partners(P, f, i), 1, f * msg, f * size + (N if i == 0 else 0.0),
                      per_round, per_round * msg))
    return ops


def after_ops(prof, P: int, params) -> list:
    return []


def setup_bytes(prof, P: int, params) -> float:
    """Bytes every rank clears per search: the replicated level array and global queue (n ids each)."""
    return 2 * id_bytes(prof.n) * prof.n
