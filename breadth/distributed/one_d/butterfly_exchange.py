"""ButterFly frontier synchronisation (Green, "ButterFly BFS", Sec. 3, Alg. 2).

Every rank keeps a *replicated level array* (the paper's d_local: the BFS level
of every vertex of the graph, -1 = not yet found) and a *global queue* (Q_global:
the vertices it knows were found at the level being built). After each rank has
traversed its own frontier, the new vertices are synchronised by a butterfly
network: in round i every rank sends its whole global queue to its round-i
partners and merges what it receives, keeping a received vertex only if its
level entry is still -1 (then it is set and the vertex appended). Because the
global queue is deduplicated against the level array at every round, each
vertex travels at most once per edge of the network, and after the last round
every rank holds the level's complete, duplicate-free frontier.

Fanout. ``f`` = partners per round (the paper's "fanout one" = pairwise). The
network has radix r = f + 1: write ranks in base r; in round i (i = 0..k-1,
k = ceil(log_r P)) the rank's group is the r ranks that differ from it only in
digit i, and it exchanges with the f others. For P = r^k every rank sends f
messages per round, so a level costs exactly

    P * f * log_r(P)  messages  (P*log2 P for f = 1: the paper's 64 for 16 ranks).

(The paper's own formula P*f*log_f(P) counts, for its radix-f networks, a rank's
own block as one of the f; here f counts only messages that leave the rank,
so the paper's Fig. 2 "fanout four" network is ``--fanout 3``.)

Any P, not only powers of r. The network is built on Q = r^k >= P virtual ranks;
virtual rank q >= P does not exist and is *hosted* by the real rank q mod r^(k-1)
(clearing the top digit; r^(k-1) < P, so the host exists). A host acts for all
its virtual ranks at once: its round-i partners are the hosts of every group
member of every rank it hosts (itself excluded, duplicates merged). Correctness:
every transfer is a set union, and a host's set is always a superset of each of
its virtual ranks' sets in the full network, which ends complete everywhere; the
partner relation stays symmetric, so every send has a matching receive. Still
ceil(log_r P) rounds; the virtual ranks spread over the low ranks, so no rank
becomes the hot spot the paper observes going from 8 to 9 GPUs (Fig. 3). The
exact count for any P is ``messages_per_level(P, f)`` (the schedule's size),
e.g. f=1: P=3 -> 6, P=5 -> 14, P=6 -> 18, P=7 -> 22 (P=2,4,8 -> 2, 8, 24).

Encoding. A message is the sender's global queue as vertex ids, or -- when that
is smaller, i.e. the set holds more than V/32 vertices with 4-byte ids -- as a
V-bit bitmap of the same set (dense levels of bottom-up steps). The receiver
tells them apart by the message tag; either way it merges a duplicate-free set,
and the message count is unchanged. ``encoding="queue"`` keeps the paper's
id lists always.

Buffers (the paper's O(f*V) bound): a global queue of V ids, f receive slots of
V ids each (a bitmap fits in one) and one V-bit send bitmap, allocated once per
engine. A rank with more than f partners in a round (only when hosting)
receives them f at a time into the same slots. The bound holds because a
message is a duplicate-free set of vertices.
"""
from __future__ import annotations

import time
from functools import lru_cache

import numpy as np
from numba import prange

from ...errors import InputError
from ...jit import njit
from ...kernels.atomics import claim, cttz
from ...kernels.frontier import WORD_BLOCK, num_words, queue_to_bitmap
from ...kernels.top_down import flush_buffer, push
from ..exchange import Exchange

MERGE_BLOCK = 4096
MERGE_BUFFER = 1024
TAG_IDS, TAG_BITS = 7101, 7102
ENCODINGS = ("auto", "queue")


@lru_cache(maxsize=64)
def butterfly_schedule(nprocs: int, fanout: int) -> tuple:
    """rounds[i][rank] = sorted tuple of rank's partners in round i (see the module header)."""
    P, f = int(nprocs), int(fanout)
    if P < 1:
        raise InputError(f"need at least one rank, got {P}")
    if f < 1:
        raise InputError(f"fanout must be >= 1, got {f}")
    r = f + 1
    k, Q = 0, 1
    while Q < P:
        Q *= r
        k += 1
    if k == 0:
        return ()
    W = Q // r

    def host(q):
        return q if q < P else q % W

    hosted = [[h] for h in range(P)]
    for q in range(P, Q):
        hosted[host(q)].append(q)
    rounds = []
    step = 1
    for _ in range(k):
        partners = []
        for h in range(P):
            s = set()
            for v in hosted[h]:
                base = v - ((v // step) % r) * step
                for t in range(r):
                    hm = host(base + t * step)
                    if hm != h:
                        s.add(hm)
            partners.append(tuple(sorted(s)))
        rounds.append(tuple(partners))
        step *= r
    return tuple(rounds)


def num_rounds(nprocs: int, fanout: int) -> int:
    return len(butterfly_schedule(nprocs, fanout))


def messages_per_level(nprocs: int, fanout: int) -> int:
    """Messages one level's synchronisation sends, summed over ranks (every scheduled send, empty or not)."""
    return sum(len(p) for rnd in butterfly_schedule(nprocs, fanout) for p in rnd)


def formula_messages(nprocs: int, fanout: int) -> int | None:
    """P * f * log_{f+1} P when P is a power of f + 1 (else None)."""
    r, k, q = fanout + 1, 0, 1
    while q < nprocs:
        q *= r
        k += 1
    return nprocs * fanout * k if q == nprocs else None


@njit(inline="always", cache=True)
def _take(v, lvl, value, atomic, buf, nbuf, gqueue, tail):
    """Buffer v for gqueue if its level is still -1 (setting it to ``value``); returns the buffer's fill."""
    if lvl[v] < 0 and claim(lvl, v, value, atomic):
        return push(buf, nbuf, v, gqueue, tail)
    return nbuf


@njit(inline="always", cache=True)
def _merge(take_block, items, count, block, lvl, value, gqueue, tail, atomic):
    """The merge's blocks of ``block`` items each, in parallel: ``take_block`` buffers the new vertices
    of one block (``_take``), the buffer is flushed to gqueue with one atomic add."""
    for b in prange((count + block - 1) // block):
        buf = np.empty(MERGE_BUFFER, dtype=gqueue.dtype)
        nbuf = take_block(items, b * block, min(count, (b + 1) * block), lvl, value, atomic, buf, gqueue, tail)
        flush_buffer(buf, nbuf, gqueue, tail)


@njit(inline="always", cache=True)
def _take_ids(recv, start, stop, lvl, value, atomic, buf, gqueue, tail):
    nbuf = 0
    for i in range(start, stop):
        nbuf = _take(recv[i], lvl, value, atomic, buf, nbuf, gqueue, tail)
    return nbuf


@njit(inline="always", cache=True)
def _take_bits(words, start, stop, lvl, value, atomic, buf, gqueue, tail):
    nbuf = 0
    for w in range(start, stop):
        x = words[w]
        while x:
            nbuf = _take(w * 64 + cttz(x), lvl, value, atomic, buf, nbuf, gqueue, tail)
            x &= x - np.uint64(1)
    return nbuf


@njit(parallel=True, cache=True)
def merge_new(recv, count, lvl, value, gqueue, tail, atomic):
    """Append to gqueue every v in recv[:count] whose level is still -1 (setting it to ``value``)."""
    _merge(_take_ids, recv, count, MERGE_BLOCK, lvl, value, gqueue, tail, atomic)


@njit(parallel=True, cache=True)
def merge_bits(words, nwords, lvl, value, gqueue, tail, atomic):
    """merge_new for a set sent as a bitmap: every set bit v whose level is -1."""
    _merge(_take_bits, words, nwords, WORD_BLOCK, lvl, value, gqueue, tail, atomic)


class Butterfly(Exchange):
    """Frontier synchronisation over the butterfly network of fanout ``f`` (buffers allocated once)."""

    name = "butterfly"

    def __init__(self, comm, num_vertices: int, fanout: int, dtype, encoding="auto"):
        if encoding not in ENCODINGS:
            raise InputError(f"unknown butterfly encoding {encoding!r}; choose from {', '.join(ENCODINGS)}")
        super().__init__(comm)
        self.fanout = int(fanout)
        self.encoding = encoding
        self.schedule = butterfly_schedule(comm.size, self.fanout)
        self.partners = [rnd[comm.rank] for rnd in self.schedule]
        n = max(1, int(num_vertices))
        self.dtype = np.dtype(dtype)
        self.nwords = num_words(n)
        slot_bytes = -(-max(n * self.dtype.itemsize, self.nwords * 8) // 8) * 8
        self.slots = np.empty((self.fanout, slot_bytes), dtype=np.uint8)   # f receive slots of V ids
        self.gqueue = np.empty(n, dtype=dtype)                             # the global queue: V ids
        self.sendbits = np.empty(self.nwords, dtype=np.uint64)             # the queue as a bitmap
        self.tail = np.zeros(1, dtype=np.int64)

    @property
    def nbytes(self) -> int:
        return self.slots.nbytes + self.gqueue.nbytes + self.sendbits.nbytes

    def messages_per_level(self, direction: int) -> int:
        """The schedule's sends, whatever the direction (every scheduled send, empty or not)."""
        return messages_per_level(self.comm.size, self.fanout)

    def describe(self) -> dict:
        return {"exchange": self.name, "fanout": self.fanout, "encoding": self.encoding}

    def _dense(self, count) -> bool:
        return self.encoding == "auto" and count * self.dtype.itemsize > self.nwords * 8

    def synchronise(self, count: int, lvl, value: int, atomic=True) -> int:
        """Complete ``gqueue[:count]`` (this rank's new vertices) to the level's global frontier.

        ``lvl`` is the replicated level array, already ``value`` for gqueue[:count]; ``atomic``
        False when numba runs one thread (plain stores replace compare-and-swap).
        Returns the size of the global frontier (now in gqueue[:size] on every rank).
        """
        comm, gq, tail = self.comm, self.gqueue, self.tail
        f = self.fanout
        for partners in self.partners:
            if not partners:
                continue
            if self._dense(count):
                queue_to_bitmap(gq, count, self.sendbits, atomic)
                out, tag = self.sendbits, TAG_BITS
            else:
                out, tag = gq[:count], TAG_IDS
            reqs = [comm.isend(p, out, tag) for p in partners]
            tail[0] = count
            for b in range(0, len(partners), f):
                batch = partners[b:b + f]
                # any tag: a pair's messages arrive in order and each round completes before the next
                got = comm.recv_all([(p, self.slots[i]) for i, p in enumerate(batch)])
                for i, (nbytes, kind) in enumerate(got):
                    if kind == TAG_BITS:
                        merge_bits(self.slots[i].view(np.uint64), nbytes // 8, lvl, value, gq, tail, atomic)
                    elif nbytes:
                        merge_new(self.slots[i].view(self.dtype), nbytes // self.dtype.itemsize, lvl, value,
                                  gq, tail, atomic)
            comm.wait_all(reqs)
            count = int(tail[0])
        return count


def self_round(mpicomm, count: int = 64, fanout: int = 1) -> float:
    """Seconds of one butterfly round's own work (posting the sends, receiving, merging, waiting)
    beyond what the network adds: the round run on a one-rank communicator ``mpicomm`` with the rank
    as its own partner, its queue of ``count`` vertices already known (nothing new to merge).
    The planner's measure (``planner.overhead``): a search on one rank has no rounds."""
    from ..comm import Comm

    n = max(1024, 4 * count)
    ex = Butterfly(Comm(mpicomm), n, fanout, np.int32)
    ex.partners = [(0,)]
    lvl = np.full(n, -1, dtype=np.int32)
    ex.gqueue[:count] = np.arange(count, dtype=np.int32)
    lvl[:count] = 1
    ex.synchronise(count, lvl, 1, False)          # loads the kernels
    times = []
    for _ in range(64):
        t = time.perf_counter()
        ex.synchronise(count, lvl, 1, False)
        times.append(time.perf_counter() - t)
    return float(np.median(times))
