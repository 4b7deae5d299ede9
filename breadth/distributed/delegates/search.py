"""Distributed BFS with degree separation (Pan, Pearce, Owens, "Scalable Breadth-First Search on a
GPU Cluster", IPDPS'18, Sec. IV "local computation" and V "communication").

Per level, on every rank (``delegates.steps``, ``owned.steps``):

1. nn, top-down only (Sec. IV-B: the nn subgraph is not symmetric and has low in-degrees):
   the normal frontier's nn edges claim local normals at once and emit the ids of remote
   ones, each remote vertex at most once per search (the ``sent`` bitmap); the parent each
   id was sent for stays on this rank (``nn_log``) until the end of the search;
2. nd, dd, dn, each in its own direction (Sec. IV-B: "the three visiting kernels with DO
   have three sets of direction-switching factors"): one ``kernels.policy.Policy`` stepper
   per subgraph on that subgraph's own workload -- its scout count (out-edges of the
   frontier in the subgraph, summed over ranks) against its own unexplored arcs; back to
   top-down by the shared beta rule on the level's global frontier. Forward nd/dd set
   bits of delegates found in this rank's ``dnew`` mask, reverse ones let each unreached
   delegate look for a frontier source among its local in-arcs; dn claims local normals
   (forward from the frontier delegates, or reverse from each unreached normal). A pass
   that cannot find anything is skipped (no scouts in its subgraph anywhere, or, for nd
   and dd, every delegate reached already): the same decision on every rank;
3. exchange (``DelegateExchange``): the nn ids go to their owners with one ``Alltoallv``
   after the count ``Alltoall`` -- the paper posts Isend/Irecv pairs; one collective keeps
   the schedule fixed and counted, and at breadth's rank counts (a handful per host) the
   pairwise messages are the same, while Isend/Irecv would need a count exchange or probes
   to size the receives -- and, in levels where a delegate can be found (some frontier
   vertex has nd or dd arcs, some delegate is unreached: global counts, identical on every
   rank; the paper's "whenever any update occurs"), the delegates found are shared, by
   ``params["mask"]``:
   * "allreduce" (default): each rank's count of new bits rides in the count Alltoall of
     the nn exchange (one more int64 per peer, no collective of its own); then nothing (no
     bit anywhere), an ``Allgatherv`` of the int32 delegate numbers (when 4 bytes per new
     bit beat twice the mask, the Allreduce's traffic: early and late levels) or the
     paper's OR-reduction of the d-bit mask with one blocking ``Allreduce``;
   * "iallreduce": the mask ``Iallreduce`` (always the bitmap) is started before the nn
     exchange and completed after it, overlapping the two (the paper's "IR");
   * "overlap": as "allreduce", but the chosen form starts non-blocking (``Iallgatherv`` or
     ``Iallreduce``) right after the count Alltoall, overlapping the ids' ``Alltoallv`` and
     their application;
4. control: one Allreduce of the new normal count, the four scout counts and the nn ids
   claimed (level 0: one more for the seeds' scouts).

Parents (``delegates.parents``): normals claimed locally (nn, dn) get theirs at once; an nn
id claimed from another rank gets the placeholder n + sender, and the sender keeps the
parent. A delegate's parent is known on the rank(s) that set its bit (``dcand``); its owner
settles it from what it sees itself. One stage after the last level (five collectives, all
counted in that level) asks the senders for the nn parents and the finders for the delegate
parents the owners could not see (Sec. VI-A3: "only the destination vertices of nn edges ...
would need to communicate their parent information at the end of BFS; vertices visited by dd,
dn, and nd kernels can get the parent information locally"). Delegates' depths are the level
their bit first appears in the shared set, the same on every rank.

The layout supplies ``DistSearch``'s hooks: ``policy`` (the per-subgraph steppers as one),
``_local_step`` (1 and 2), ``_exchange`` (3 and 4) and ``_finish`` (the parent stage); the
level loop is ``DistSearch._run``'s.

Invariants between levels: every rank holds the same ``dvisited``/``dfront`` masks, delegate
depths, unreached-delegate count and global counts; a local normal is settled (parent >= 0)
exactly when reached; the normal frontier is ``queue[:qsize]`` (local ids).
"""
from __future__ import annotations

import numpy as np

from ...kernels.frontier import fill, num_words, queue_to_bitmap
from ...kernels.policy import BU, DIRECTIONS, TD, Policy
from ...kernels.top_down import frontier_edge_offsets
from ..owned import steps as steps_owned
from ..search_base import DistSearch
from .exchange import DEFAULT_MASK, DelegateExchange, check_mask
from .parents import settle_parents
from .steps import bits_to_list, degree_sum, dn_bu, dn_td, mask_bu, mask_td

SUBGRAPHS = ("nd", "dd", "dn")          # the ones with their own direction (nn: top-down)


def mask_list(mask, d) -> np.ndarray:
    """Delegate numbers whose bits are set in ``mask`` (ascending)."""
    out = np.empty(d, dtype=np.int64)
    return out[:bits_to_list(mask, d, out)]


def _done():
    """The ``finish`` of a sharing that is complete already."""


def set_bits(mask, ids):
    np.bitwise_or.at(mask, ids >> 6, np.left_shift(np.uint64(1), (ids & 63).astype(np.uint64)))


class SubgraphPolicies:
    """The per-subgraph steppers as the level loop's policy: ``direction(scouts)`` decides nd, dd and dn
    (``bottom_up``, by subgraph) from the four summed scout counts (nn, nd, dn, dd) and says whether any
    went bottom-up; ``after_bottom_up`` records the level in the steppers that did."""

    def __init__(self, policies: dict):
        self.policies = policies
        self.scouts: dict = {}
        self.bottom_up: dict = {}

    def direction(self, scouts) -> bool:
        self.scouts = dict(zip(("nn", "nd", "dn", "dd"), scouts))
        self.bottom_up = {s: p.direction(self.scouts[s]) for s, p in self.policies.items()}
        return any(self.bottom_up.values())

    def after_bottom_up(self, total, frontier) -> None:
        for s, p in self.policies.items():
            if self.bottom_up[s]:
                p.after_bottom_up(total, frontier)


class DelegatesSearch(DistSearch):
    """The degree-separated search (see the module header)."""

    def __init__(self, comm, lg, options=None):
        super().__init__(comm, lg, options)
        part = lg.partition
        n, nr, d = lg.num_vertices, part.num_local, part.num_delegates
        self.exchange = DelegateExchange(comm, part, lg.vid_dtype, check_mask(self.options.params.get("mask",
                                                                                               DEFAULT_MASK)))
        self.queue = np.empty(max(nr, 1), dtype=np.int64)
        self.next_queue = np.empty(max(nr, 1), dtype=np.int64)
        self.offsets = np.empty(max(nr, d) + 1, dtype=np.int64)
        self.sent = np.empty(num_words(n), dtype=np.uint64)
        self.nfront = np.empty(num_words(nr), dtype=np.uint64)
        self.dvisited = np.empty(num_words(d), dtype=np.uint64)
        self.dnew = np.empty(num_words(d), dtype=np.uint64)
        self.dfront = np.empty(num_words(d), dtype=np.uint64)
        self.ddepth = np.empty(d, dtype=np.int64)
        self.dcand = np.empty(d, dtype=np.int64)
        self.ntail = np.zeros(1, dtype=np.int64)
        self.ctail = np.zeros(1, dtype=np.int64)
        self.dummy_tail = np.zeros(1, dtype=np.int64)
        self.sub_arcs = {s: int(part.stats.get(f"{s}_arcs", 0)) for s in ("nn",) + SUBGRAPHS}
        self.schedule: list[dict] = []          # per level of the last search: messages by rule, what ran
        self.level_directions: list[dict] = []
        self.nn_log: list[tuple[np.ndarray, np.ndarray]] = []    # (remote id, parent) sent, per level
        self.parent_stage = {}

    @property
    def nbytes(self) -> int:
        arrays = (self.queue, self.next_queue, self.offsets, self.sent, self.nfront, self.dvisited, self.dnew,
                  self.dfront, self.ddepth, self.dcand)
        return sum(a.nbytes for a in arrays) + self.exchange.nbytes

    def expected_messages(self, level: int, direction: int) -> tuple[int, int]:
        """(exchange, control) messages of level ``level`` of the last search, summed over ranks, from the
        operations the level ran (each by the counting rule of ``Comm``); the last level includes the
        parent stages."""
        sched = self.schedule[level]
        return sched["exchange"], sched["control"]

    def bytes_now(self):
        log = self.comm.level_log[-1]
        return log["exchange"].bytes + log["control"].bytes

    def _encode(self, mask, local, counts, sched, blocking=True):
        """``mask`` := the OR of every rank's ``mask`` (bits over delegate numbers; ``local`` this rank's
        set bits, ``counts`` every rank's count of them, known alike everywhere) in the cheapest form:
        nothing (no bit anywhere), an Allgatherv of int32 delegate numbers (when 4 bytes per bit beat the
        Allreduce's twice the mask on the wire) or the mask Allreduce (bitwise or); ``blocking`` False
        starts the non-blocking form. Every rank takes the same branch; returns (the form, ``finish``: completes ``mask``, a no-op if done)."""
        comm, P = self.comm, self.comm.size
        total = int(counts.sum())
        if total == 0:
            return "none", _done
        sched["exchange"] += P * (P - 1)
        if 4 * total < 2 * mask.nbytes:    # a rank gets 4 total (P - 1) / P bytes, or 2 (P - 1) / P masks
            if blocking:
                ids = comm.allgatherv(local.astype(np.int32), counts=counts, category="exchange")
                mask[:] = 0
                set_bits(mask, ids.astype(np.int64))
                return "ids", _done
            gathering = comm.iallgatherv(local.astype(np.int32), counts)

            def finish_ids():
                mask[:] = 0
                set_bits(mask, gathering.wait().astype(np.int64))
            return "ids", finish_ids
        if blocking:
            mask[:] = self.exchange.reduce_mask(mask)
            return "bitmap", _done
        reducing = comm.iallreduce(mask, "bor")

        def finish_bitmap():
            mask[:] = reducing.wait()
        return "bitmap", finish_bitmap

    def _scouts(self, queue, qsize, dq) -> list[int]:
        sub = self.lg.sub
        return [degree_sum(sub.nn_ip, queue, qsize), degree_sum(sub.nd_ip, queue, qsize),
                degree_sum(sub.dn_ip, dq, dq.size), degree_sum(sub.dd_ip, dq, dq.size)]

    def _local_step(self, level, bottom_up, frontier) -> int:
        """The local visits of one level (nn top-down, then nd, dd, dn each in its direction; passes that
        cannot find anything skipped); returns the edges examined. Remote nn ids: cand_v[:ctail]."""
        P = self.comm.size
        self.sched = {"exchange": 2 * P * (P - 1), "control": P * (P - 1) * (2 if level == 0 else 1), "mask": "-",
                      "mask_bytes": 0}
        sub, part = self.lg.sub, self.lg.partition
        queue, qsize, dq, next_queue = self.queue, self.qsize, self.dq, self.next_queue
        sc, bu, dleft = self.policies.scouts, self.policies.bottom_up, self.dleft
        pmap, parent, depth, atomic = self.pmap, self.parent, self.depth, self.atomic
        lo, dels, none = part.lo, part.delegates, np.empty(0, dtype=np.int64)
        examined = frontier_edge_offsets(sub.nn_ip, queue, qsize, self.offsets)
        self.cand_v = np.empty(examined, dtype=np.int64)
        cand_p = np.empty(examined, dtype=np.int64)
        self.ntail[0] = 0
        self.ctail[0] = 0
        steps_owned.td_step(sub.nn_ip, sub.nn_ix, queue, qsize, self.offsets, pmap, parent, depth, level,
                            self.sent, next_queue, self.ntail, self.cand_v, cand_p, self.ctail, atomic)
        c = int(self.ctail[0])
        if c:
            self.nn_log.append((self.cand_v[:c].copy(), cand_p[:c].copy()))
        self.dnew[:] = 0
        if sc["nd"] and dleft:
            if bu["nd"]:
                fill(self.nfront, np.uint64(0))
                queue_to_bitmap(queue, qsize, self.nfront, atomic)
                examined += mask_bu(sub.ndT_ip, sub.ndT_ix, self.nfront, self.dvisited, self.dnew, self.dcand,
                                    none, lo)
            else:
                frontier_edge_offsets(sub.nd_ip, queue, qsize, self.offsets)
                examined += mask_td(sub.nd_ip, sub.nd_ix, queue, qsize, self.offsets, self.dvisited, self.dnew,
                                    self.dcand, none, lo, atomic, next_queue, self.dummy_tail)
        if sc["dd"] and dleft:
            if bu["dd"]:
                examined += mask_bu(sub.ddT_ip, sub.ddT_ix, self.dfront, self.dvisited, self.dnew, self.dcand,
                                    dels, 0)
            else:
                frontier_edge_offsets(sub.dd_ip, dq, dq.size, self.offsets)
                examined += mask_td(sub.dd_ip, sub.dd_ix, dq, dq.size, self.offsets, self.dvisited, self.dnew,
                                    self.dcand, dels, 0, atomic, next_queue, self.dummy_tail)
        if sc["dn"]:
            if bu["dn"]:
                examined += dn_bu(sub.dnT_ip, sub.dnT_ix, self.dfront, parent, depth, dels, level, next_queue,
                                  self.ntail)
            else:
                frontier_edge_offsets(sub.dn_ip, dq, dq.size, self.offsets)
                examined += dn_td(sub.dn_ip, sub.dn_ix, dq, dq.size, self.offsets, parent, depth, dels, level,
                                  atomic, next_queue, self.ntail)
        return examined

    def _share(self, level, may_find, sched) -> int:
        """The nn ids to their owners and (``may_find``) the delegate mask shared into ``dnew``, by the
        mask mode (module header); returns the nn ids this rank claimed."""
        comm, ex, P, part = self.comm, self.exchange, self.comm.size, self.lg.partition
        pp, d, mode = P * (P - 1), part.num_delegates, ex.mask
        before = self.bytes_now()
        pending = comm.iallreduce(self.dnew, "bor") if may_find and mode == "iallreduce" else None
        local = mask_list(self.dnew, d) if may_find and mode != "iallreduce" else None
        started = {}

        def start(headers):                 # "overlap": the chosen form starts before the ids move
            b0 = self.bytes_now()
            started["form"] = self._encode(self.dnew, local, headers[:, 0], sched, blocking=False)
            started["bytes"] = self.bytes_now() - b0

        ids, src, counts = ex.send_ids(self.cand_v[:int(self.ctail[0])], None if local is None else local.size,
                                       start if local is not None and mode == "overlap" else None)
        mask_part = (((P - 1) * self.dnew.nbytes if pending is not None else 0)
                     + (8 * (P - 1) if local is not None else 0) + started.get("bytes", 0))
        sched["normal_bytes"] = self.bytes_now() - before - mask_part
        sched["mask_bytes"] = mask_part
        pairs = np.empty(2 * ids.size, dtype=np.int64)      # (id, placeholder parent: n + the sender)
        pairs[0::2] = ids
        np.add(src, self.lg.num_vertices, out=pairs[1::2])
        queued = int(self.ntail[0])
        steps_owned.apply_received(pairs, ids.size, self.pmap, self.lg.sub.nn_ip, self.parent, self.depth, level,
                                   self.next_queue, self.ntail, self.atomic)
        claimed = int(self.ntail[0]) - queued
        if pending is not None:
            self.dnew[:] = pending.wait()
            sched["exchange"] += pp
            sched["mask"] = "bitmap"
        elif started:
            sched["mask"], finish = started["form"]
            finish()
        elif local is not None:
            before = self.bytes_now()
            sched["mask"], _ = self._encode(self.dnew, local, counts, sched)
            sched["mask_bytes"] += self.bytes_now() - before
        return claimed

    # ------------------------------------------------------------------ the other hooks of DistSearch._run
    def policy(self):
        """One stepper per subgraph, on its own arcs (Sec. IV-B)."""
        opt = self.options
        self.policies = SubgraphPolicies({s: Policy(self.mode, opt.alpha, opt.beta, self.lg.num_vertices,
                                                    self.sub_arcs[s]) for s in SUBGRAPHS})
        return self.policies

    def _seed(self, seeds):
        part = self.lg.partition
        self.pmap, nr, lo = part.kernel_map(), part.num_local, part.lo
        self.parent = np.full(nr, -1, dtype=np.int64)
        self.depth = np.full(nr, -1, dtype=np.int64)
        fill(self.sent, np.uint64(0))
        for a in (self.dvisited, self.dfront):
            a[:] = 0
        self.ddepth[:] = -1
        self.dcand[:] = -1
        self.nn_log, self.schedule, self.level_directions = [], [], []
        self.claimed_total = 0
        sidx = part.delegate_index(seeds)
        self.dq = self.seed_delegates = sidx[sidx >= 0]
        normal = seeds[sidx < 0]
        own = normal[part.owns(normal)] - lo
        self.parent[own] = own + lo
        self.depth[own] = 0
        set_bits(self.dvisited, self.dq)
        self.dfront[:] = self.dvisited
        self.ddepth[self.dq] = 0
        self.dleft = part.num_delegates - self.dq.size       # delegates not reached yet (the same on every rank)
        self.queue[:own.size] = own
        self.qsize = own.size
        return seeds.size, None

    def _seed_scout(self):
        return self.global_counts(*self._scouts(self.queue, self.qsize, self.dq))

    def _exchange(self, level, bottom_up):
        """The nn ids and the delegate mask (``_share``), the new delegate frontier; the level's counts."""
        d, sched = self.lg.partition.num_delegates, self.sched
        may_find = d > 0 and self.dleft > 0 and self.policies.scouts["nd"] + self.policies.scouts["dd"] > 0
        claimed = self._share(level, may_find, sched)
        if may_find:
            self.dnew &= ~self.dvisited
            self.dvisited |= self.dnew
            self.dfront[:] = self.dnew
            self.dq = mask_list(self.dfront, d)
        else:
            self.dfront[:] = 0
            self.dq = self.dq[:0]
        self.ddepth[self.dq] = level + 1
        self.dleft -= self.dq.size
        self.queue, self.next_queue = self.next_queue, self.queue
        self.qsize = int(self.ntail[0])
        counts = self.global_counts(self.qsize, *self._scouts(self.queue, self.qsize, self.dq), claimed)
        self.claimed_total += counts[5]
        self.schedule.append(sched)
        self.level_directions.append({s: DIRECTIONS[BU if b else TD] for s, b in self.policies.bottom_up.items()})
        return counts[0] + self.dq.size, counts[1:5]

    def _finish(self, seeds, levels):
        self.parent_stage = {}
        settle_parents(self, self.parent, self.depth, self.claimed_total, self.seed_delegates, levels)
        return self.parent, self.depth

    def search(self, roots, max_depth=None):
        result = super().search(roots, max_depth)
        result.extra["delegates"] = self.traffic(result)
        return result

    def traffic(self, result) -> dict:
        """Delegate-mask vs normal-exchange bytes per level and per search (summed over ranks; the mask
        includes its share of the count Alltoall, the normal exchange its counts), the parent stages after
        the last level (nn ids' parents, delegates' parents), and the paper's model: mask d/8 bytes per
        rank and peer in levels with updates; normal traffic bounded by the cut nn arcs (one id each) plus
        the counts."""
        P, part, nlev = self.comm.size, self.lg.partition, len(self.schedule)
        stage = self.parent_stage
        local = ([s["mask_bytes"] for s in self.schedule] + [s["normal_bytes"] for s in self.schedule]
                 + [stage.get("delegate_bytes", 0), stage.get("nn_bytes", 0)])
        summed = self.comm.mpi.allreduce(np.array(local, dtype=np.int64))       # reporting: not counted
        levels = [{"level": i, "mask": self.schedule[i]["mask"], "mask_bytes": int(summed[i]),
                   "normal_bytes": int(summed[nlev + i]), "directions": self.level_directions[i]}
                  for i in range(nlev)]
        itemsize = np.dtype(self.lg.vid_dtype).itemsize
        return {"threshold": part.threshold, "delegates": part.num_delegates, "mask_mode": self.exchange.mask,
                "mask_bytes": int(summed[:nlev].sum()), "normal_bytes": int(summed[nlev:2 * nlev].sum()),
                "delegate_parent_bytes": int(summed[-2]), "nn_parent_bytes": int(summed[-1]),
                "nn_parents_asked": stage.get("nn_asked", 0),
                "unresolved_delegate_parents": stage.get("unresolved", 0),
                "mask_levels": sum(1 for s in self.schedule if s["mask"] in ("ids", "bitmap")), "levels": levels,
                "model": {"mask_bytes_per_update_level": P * (P - 1) * self.dnew.nbytes,
                          "normal_bytes_bound": int(part.stats.get("cut_nn_arcs", 0)) * itemsize
                          + P * (P - 1) * 8 * nlev}}
