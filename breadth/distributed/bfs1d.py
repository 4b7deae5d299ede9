"""Distributed direction-optimizing BFS on a 1D partition, with a choice of frontier exchange.

Level-synchronous (Buluc & Madduri, SC'11; the ButterFly paper's two phases):
each level every rank traverses its part of the frontier with the local steps
of ``steps.py`` (top-down or bottom-up), then the exchange makes the level's
discoveries known where they are needed:

* ``alltoall`` (``exchange_alltoall``): discovered (vertex, parent) pairs go to
  the vertices' owners; owners keep parent/depth of their own vertices; one
  small Allreduce per level gives every rank the global frontier size and scout
  count (termination and the direction decision);
* ``butterfly`` (``exchange_butterfly``, Green's ButterFly BFS): every rank keeps
  the replicated level array and the butterfly network synchronises the new
  vertices; the frontier size is then known everywhere and the scout count comes
  from a replicated out-degree array, so a level needs no other communication.
  Parents never travel: owners record those they find and recover the rest
  after the search from the replicated levels.

Direction optimization (Beamer et al., SC'12) follows the single-node driver
(``breadth.kernels.direction_optimizing``) decision for decision: go bottom-up
when the frontier's out-edges (scout count m_f) exceed the unexplored edges
m_u / alpha, return to top-down when the frontier shrinks below n / beta, then
take at least one top-down step. Every input of a decision is a global value
known identically on all ranks, so all ranks always step the same way.
Bottom-up steps need the frontier as a bitmap on every rank: gathered with an
Allgatherv of owned words (all-to-all) or rebuilt locally from the synchronised
global queue (butterfly).

Invariants between levels: every rank agrees on ``level``, the frontier size and
the direction; owned vertices at depth ``level`` are the local frontier; a vertex
is settled (depth >= 0) exactly when it has been reached; replicated levels are
identical on all ranks (butterfly).

Communication is counted per level by ``Comm`` (see comm.py); after the search one
uncounted Allgather collects every rank's per-level figures for the result.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numba
import numpy as np

from ..errors import InputError
from ..kernels.frontier import bitmap_to_queue, fill, num_words, parallel_chunksize
from ..kernels.top_down import frontier_edge_offsets
from ..result import DIRECTIONS, BFSResult, LevelStats
from . import steps
from .comm import collective_error
from .exchange_alltoall import AllToAll
from .exchange_butterfly import Butterfly

DIRECTION_OPTIMIZING, TOP_DOWN, BOTTOM_UP = "do", "td", "bu"
ALGORITHMS = (DIRECTION_OPTIMIZING, TOP_DOWN, BOTTOM_UP)
EXCHANGES = ("alltoall", "butterfly")


SMALL_FRONTIER = 256      # frontiers up to this size are kept for the butterfly's parent recovery


def _small_levels(small: dict, nlevels: int):
    """The kept small frontiers by level: (range[d] = (start, stop) in values, (-1, -1) if not kept; values)."""
    rng = np.full((nlevels, 2), -1, dtype=np.int64)
    vals, pos = [], 0
    for d in range(nlevels):
        if d in small:
            rng[d] = (pos, pos + small[d].size)
            vals.append(small[d])
            pos += small[d].size
    return rng, (np.concatenate(vals) if vals else np.zeros(0, dtype=np.int64))


class Policy:
    """Beamer's switching rule, stepped level by level (same decisions as the single-node driver)."""

    def __init__(self, mode, alpha, beta, num_vertices, num_arcs):
        self.mode = mode
        self.alpha = alpha
        self.beta = beta
        self.n = num_vertices
        self.edges_to_check = num_arcs
        self.bottom_up = False
        self.force_td = False

    def direction(self, scout) -> bool:
        """True when this level runs bottom-up (``scout``: out-edges of the current frontier)."""
        if not self.bottom_up:
            go = self.mode == BOTTOM_UP or (self.mode == DIRECTION_OPTIMIZING and not self.force_td
                                            and scout > self.edges_to_check / self.alpha)
            self.force_td = False
            if go:
                self.bottom_up = True
            else:
                self.edges_to_check -= scout
        return self.bottom_up

    def after_bottom_up(self, awake, old_awake):
        if self.mode == DIRECTION_OPTIMIZING and not (awake >= old_awake or awake > self.n / self.beta):
            self.bottom_up = False
            self.force_td = True


@dataclass
class DistBFSResult(BFSResult):
    """A distributed BFS result: ``parent``/``depth`` hold this rank's owned vertices (local ids).

    ``num_reached`` and ``max_depth`` are global; ``partition`` maps local ids to global ones.
    ``engine.gather(result)`` assembles the global arrays on rank 0.
    """

    partition: object = None
    reached_total: int = 0
    max_depth_total: int = -1

    @property
    def num_reached(self) -> int:
        return self.reached_total

    @property
    def max_depth(self) -> int:
        return self.max_depth_total


@dataclass
class _Level:
    direction: int
    frontier: int
    discovered: int
    examined: int
    seconds: float = 0.0


class Search1D:
    """Per-graph search state: buffers allocated once, reused by every search."""

    def __init__(self, comm, lg, exchange="butterfly", fanout=1, algorithm="do", alpha=15.0, beta=18.0,
                 encoding="auto"):
        if exchange not in EXCHANGES:
            raise collective_error(InputError(f"unknown exchange {exchange!r}; choose from {', '.join(EXCHANGES)}"))
        if algorithm not in ALGORITHMS:
            raise collective_error(InputError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}"))
        if not (alpha > 0 and beta > 0):
            raise collective_error(InputError(f"alpha and beta must be positive, got alpha={alpha}, beta={beta}"))
        self.comm = comm
        self.lg = lg
        self.exchange_name = exchange
        self.algorithm = algorithm
        self.alpha = float(alpha)
        self.beta = float(beta)
        n = lg.num_vertices
        nl = lg.num_local
        self.queue = np.empty(max(nl, 1), dtype=np.int64)
        self.next_queue = np.empty(max(nl, 1), dtype=np.int64)
        self.offsets = np.empty(nl + 1, dtype=np.int64)
        self.front = np.empty(num_words(n), dtype=np.uint64)
        # collective setup (counted in the caller's phase: construction)
        self.num_arcs = int(comm.allreduce(np.array([lg.local_arcs], dtype=np.int64))[0])
        if exchange == "butterfly":
            self.fanout = int(fanout)
            self.ex = Butterfly(comm, n, self.fanout, lg.vid_dtype, encoding)
            self.lvl = np.empty(n, dtype=lg.vid_dtype)
            counts = np.diff(lg.partition.bounds)
            self.odeg = comm.allgatherv(lg.out_degree().astype(lg.vid_dtype), counts=counts)
        else:
            self.fanout = None
            self.ex = AllToAll(comm, lg.partition, lg.vid_dtype)
            self.sent = np.empty(num_words(n), dtype=np.uint64)
            self.words = np.empty(num_words(nl), dtype=np.uint64)
            self.ntail = np.zeros(1, dtype=np.int64)
            self.ctail = np.zeros(1, dtype=np.int64)

    @property
    def nbytes(self) -> int:
        total = self.queue.nbytes * 2 + self.offsets.nbytes + self.front.nbytes
        if self.exchange_name == "butterfly":
            return total + self.ex.nbytes + self.lvl.nbytes + self.odeg.nbytes
        return total + self.sent.nbytes + self.words.nbytes

    def _roots(self, roots):
        arr = np.atleast_1d(np.asarray(roots))
        n = self.lg.num_vertices
        if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
            raise collective_error(InputError(f"root must be a vertex id or a non-empty 1-D array of ids, got {roots!r}"))
        arr = arr.astype(np.int64)
        bad = (arr < 0) | (arr >= n)
        if bad.any():
            raise collective_error(InputError(f"root {int(arr[bad][0])} does not exist (graph has {n} vertices: 0..{n - 1})"))
        return arr

    def search(self, roots, max_depth=None) -> DistBFSResult:
        roots = self._roots(roots)
        if max_depth is None:
            max_depth = -1
        elif int(max_depth) != max_depth or max_depth < 0:
            raise collective_error(InputError(f"max_depth must be a non-negative integer, got {max_depth!r}"))
        t0 = time.perf_counter()
        self.comm.begin_levels()
        with self.comm.phase("search"), parallel_chunksize(1):
            if self.exchange_name == "butterfly":
                parent, depth, records = self._butterfly(roots, int(max_depth))
            else:
                parent, depth, records = self._alltoall(roots, int(max_depth))
        seconds = time.perf_counter() - t0
        return self._finish(roots, parent, depth, records, seconds)

    # ------------------------------------------------------------------ ButterFly (replicated levels)
    def _butterfly(self, roots, max_depth):
        lg, ex, comm = self.lg, self.ex, self.comm
        lo, hi = lg.partition.lo, lg.partition.hi
        lvl, gq, tail, odeg = self.lvl, ex.gqueue, ex.tail, self.odeg
        atomic = numba.get_num_threads() > 1         # one thread: plain stores replace atomics
        parent = np.empty(lg.num_local, dtype=np.int64)
        fill(lvl, -1)
        fill(parent, -1)
        seeds = np.unique(roots)
        lvl[seeds] = 0
        total = seeds.size
        gq[:total] = seeds
        qsize, scout = steps.owned_and_scout(gq, total, lo, hi, odeg, self.queue)
        policy = Policy(self.algorithm, self.alpha, self.beta, lg.num_vertices, self.num_arcs)
        records = []
        small = {0: seeds}           # small frontiers by level, for parent recovery
        level = 0
        while total > 0 and level != max_depth:
            comm.next_level()
            t0 = time.perf_counter()
            frontier = total
            bottom_up = policy.direction(scout)
            if bottom_up:
                steps.to_bitmap(gq, total, self.front, atomic)
                tail[0] = 0
                examined = steps.bu_step_replicated(lg.in_indptr, lg.in_indices, lo, lvl, self.front, level, gq, tail,
                                                    parent)
            else:
                frontier_edge_offsets(lg.indptr, self.queue, qsize, self.offsets)
                tail[0] = 0
                examined = steps.td_step_replicated(lg.indptr, lg.indices, self.queue, qsize, self.offsets, lvl,
                                                    level, gq, tail, lo, parent, atomic)
            total = ex.synchronise(int(tail[0]), lvl, level + 1, atomic)
            qsize, scout = steps.owned_and_scout(gq, total, lo, hi, odeg, self.queue)
            if 0 < total <= SMALL_FRONTIER:
                small[level + 1] = np.sort(gq[:total].astype(np.int64))
            if bottom_up:
                policy.after_bottom_up(total, frontier)
            records.append(_Level(int(bottom_up), frontier, total, int(examined), time.perf_counter() - t0))
            level += 1
        depth = np.empty(lg.num_local, dtype=np.int64)
        small_range, small_vals = _small_levels(small, level + 1)
        steps.recover_parents(lg.in_indptr, lg.in_indices, lo, lvl, parent, depth, small_range, small_vals)
        return parent, depth, records

    # ------------------------------------------------------------------ all-to-all (owner state)
    def _alltoall(self, roots, max_depth):
        lg, ex, comm = self.lg, self.ex, self.comm
        lo, hi, nl = lg.partition.lo, lg.partition.hi, lg.num_local
        atomic = numba.get_num_threads() > 1
        parent = np.empty(nl, dtype=np.int64)
        depth = np.empty(nl, dtype=np.int64)
        fill(parent, -1)
        fill(depth, -1)
        fill(self.sent, np.uint64(0))
        seeds = np.unique(roots)
        own = seeds[(seeds >= lo) & (seeds < hi)] - lo
        parent[own] = own + lo
        depth[own] = 0
        queue, next_queue = self.queue, self.next_queue
        queue[:own.size] = own
        qsize = own.size
        total = seeds.size
        policy = Policy(self.algorithm, self.alpha, self.beta, lg.num_vertices, self.num_arcs)
        records = []
        level = 0
        scout = None
        words_hold_frontier = False
        while total > 0 and level != max_depth:
            comm.next_level()
            t0 = time.perf_counter()
            if scout is None:          # the seeds' out-degrees: owners know them
                local = int(np.diff(lg.indptr)[own].sum()) if own.size else 0
                scout = int(comm.allreduce(np.array([local], dtype=np.int64))[0])
            frontier = total
            bottom_up = policy.direction(scout)
            if bottom_up:
                if not words_hold_frontier:
                    steps.to_bitmap(queue, qsize, self.words, atomic)
                    words_hold_frontier = True
                ex.gather_frontier(self.words, self.front)
                awake, examined, scout_l = steps.bu_step_owned(lg.in_indptr, lg.in_indices, lg.indptr, lo, parent,
                                                               depth, self.front, self.words, level)
                new = awake
            else:
                if words_hold_frontier:
                    qsize, _ = bitmap_to_queue(self.words, lg.indptr, queue)
                    words_hold_frontier = False
                frontier_edge_offsets(lg.indptr, queue, qsize, self.offsets)
                examined = int(self.offsets[qsize])
                cand_v = np.empty(examined, dtype=np.int64)
                cand_p = np.empty(examined, dtype=np.int64)
                self.ntail[0] = 0
                self.ctail[0] = 0
                scout_l = steps.td_step_owned(lg.indptr, lg.indices, queue, qsize, self.offsets, lo, parent, depth,
                                              level, self.sent, next_queue, self.ntail, cand_v, cand_p, self.ctail,
                                              atomic)
                pairs, npairs = ex.route(cand_v, cand_p, int(self.ctail[0]))
                scout_l += steps.apply_received(pairs, npairs, lo, lg.indptr, parent, depth, level, next_queue,
                                                self.ntail, atomic)
                queue, next_queue = next_queue, queue
                qsize = new = int(self.ntail[0])
            total, scout = (int(x) for x in comm.allreduce(np.array([new, scout_l], dtype=np.int64)))
            if bottom_up:
                policy.after_bottom_up(total, frontier)
            records.append(_Level(int(bottom_up), frontier, total, int(examined), time.perf_counter() - t0))
            level += 1
        self.queue, self.next_queue = queue, next_queue
        return parent, depth, records

    # ------------------------------------------------------------------ result
    def _finish(self, roots, parent, depth, records, seconds) -> DistBFSResult:
        comm = self.comm
        log = comm.end_levels() or []
        nlev = len(records)
        local = np.zeros((nlev, 8), dtype=np.float64)
        for i, (rec, tl) in enumerate(zip(records, log)):
            ex, ct = tl["exchange"], tl["control"]
            local[i] = (rec.examined, rec.seconds, ex.messages, ex.bytes, ex.seconds,
                        ct.messages, ct.bytes, ct.seconds)
        every = np.empty((comm.size, nlev, 8), dtype=np.float64)
        comm.mpi.Allgather(local, every)        # reporting only: not counted
        levels, per_level = [], []
        for i, rec in enumerate(records):
            r = every[:, i, :]
            msgs = (r[:, 2] + r[:, 5]).astype(np.int64)
            nbytes = (r[:, 3] + r[:, 6]).astype(np.int64)
            csec = r[:, 4] + r[:, 7]
            levels.append(LevelStats(i, DIRECTIONS[rec.direction], rec.frontier, int(r[:, 0].sum()),
                                     rec.discovered, float(r[:, 1].max()), int(msgs.sum()), int(nbytes.sum()),
                                     float(csec.max())))
            per_level.append({
                "level": i, "messages": msgs.tolist(), "bytes": nbytes.tolist(), "comm_seconds": csec.tolist(),
                "exchange_messages": r[:, 2].astype(np.int64).tolist(),
                "exchange_bytes": r[:, 3].astype(np.int64).tolist(),
                "control_messages": r[:, 5].astype(np.int64).tolist(),
                "control_bytes": r[:, 6].astype(np.int64).tolist(),
            })
        tot = every.sum(axis=1)           # per rank, summed over levels
        comm_info = {
            "exchange": self.exchange_name, "fanout": self.fanout, "ranks": comm.size,
            "messages": int((tot[:, 2] + tot[:, 5]).sum()), "bytes": int((tot[:, 3] + tot[:, 6]).sum()),
            "comm_seconds": float((tot[:, 4] + tot[:, 7]).max()) if comm.size else 0.0,
            "exchange_messages": int(tot[:, 2].sum()), "exchange_bytes": int(tot[:, 3].sum()),
            "control_messages": int(tot[:, 5].sum()), "control_bytes": int(tot[:, 6].sum()),
            "per_rank": {"messages": (tot[:, 2] + tot[:, 5]).astype(np.int64).tolist(),
                         "bytes": (tot[:, 3] + tot[:, 6]).astype(np.int64).tolist(),
                         "comm_seconds": (tot[:, 4] + tot[:, 7]).tolist()},
            "levels": per_level,
        }
        seeds = np.unique(roots)
        reached = int(seeds.size + sum(rec.discovered for rec in records))
        last = max((i + 1 for i, rec in enumerate(records) if rec.discovered > 0), default=0)
        name = f"mpi-1d-{self.exchange_name}"
        return DistBFSResult(parent, depth, roots, self.algorithm, seconds, levels, name,
                             {"communication": comm_info}, partition=self.lg.partition, reached_total=reached,
                             max_depth_total=last)

