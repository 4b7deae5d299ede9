"""Distributed BFS with degree separation (Pan, Pearce, Owens, "Scalable Breadth-First Search on a
GPU Cluster", IPDPS'18, Sec. IV "local computation" and V "communication").

Per level, on every rank (``steps_delegates``, ``steps_owned``):

1. nn, top-down only (Sec. IV-B: the nn subgraph is not symmetric and has low in-degrees):
   the normal frontier's nn edges claim local normals at once and emit (vertex, parent)
   candidates for remote ones, each remote vertex at most once per search;
2. nd, dd, dn, each in its own direction (Sec. IV-B: "the three visiting kernels with DO
   have three sets of direction-switching factors"): one ``kernels.policy.Policy`` stepper
   per subgraph on that subgraph's own workload -- its scout count (out-edges of the
   frontier in the subgraph, summed over ranks) against its own unexplored arcs; back to
   top-down by the shared beta rule on the level's global frontier. Forward nd/dd set
   bits of delegates found in this rank's ``dnew`` mask, reverse ones let each unreached
   delegate look for a frontier source among its local in-arcs; dn claims local normals
   (forward from the frontier delegates, or reverse from each unreached normal);
3. exchange (``DelegateExchange``): the nn candidates go to their owners with one
   ``Alltoallv`` (after the count ``Alltoall``) -- the paper posts Isend/Irecv pairs; one
   collective keeps the schedule fixed and counted, and at the rank counts breadth runs
   (a handful per host) the pairwise messages are the same -- and the delegates found are
   shared, only in levels where one can be found (some frontier vertex has nd or dd arcs:
   the global scout counts say so, identically on every rank; the paper's "whenever any
   update occurs"): an ``Allgather`` of each rank's count of new bits (control) picks
   nothing (none anywhere), an ``Allgatherv`` of the int32 delegate numbers (when 4 bytes
   per new bit beat the mask: early and late levels) or the paper's OR-reduction of the
   d-bit mask with one blocking ``Allreduce``;
4. control: one Allreduce of the new normal count and the four scout counts (level 0:
   one more for the seeds').

Parents: normals get theirs where they are claimed (locally, or from the routed pair).
A delegate's parent is known on the rank(s) that set its bit (``dcand``); after the last
level each owner settles its delegates with what it sees itself (``owner_parents``: its
own candidate, the sources of its local dd arcs into it, its local normals with an nd arc
to it, whose depths it knows); the ones left are shared like the mask (count Allgather,
then ids or bitmap, nothing if none) and the ranks holding a candidate for them send
(delegate, parent) with one ``Alltoallv`` (all counted in the last level; Sec. VI-A3: "vertices visited by
dd, dn, and nd kernels can get the parent information locally"). Depths of delegates are
the level their bit first appears in the shared set, the same on every rank.

Invariants between levels: every rank holds the same ``dvisited``/``dfront`` masks and
delegate depths, and the same global counts; a local normal is settled (parent >= 0)
exactly when reached; the normal frontier is ``queue[:qsize]`` (local ids).
"""
from __future__ import annotations

import time

import numpy as np

from ..kernels.frontier import fill, num_words, queue_to_bitmap
from ..kernels.policy import BU, DIRECTIONS, TD, Policy
from ..kernels.top_down import frontier_edge_offsets
from . import steps_owned
from .exchange_alltoall import AllToAll
from .search_base import DistSearch, multithreaded, new_record
from .steps_delegates import degree_sum, dn_bu, dn_td, mask_bu, mask_td, owner_parents

SUBGRAPHS = ("nd", "dd", "dn")          # the ones with their own direction (nn: top-down)


class DelegateExchange(AllToAll):
    """nn candidates routed to owners (``AllToAll.route``) plus the delegate-mask OR-reduction."""

    name = "alltoall"

    def __init__(self, comm, partition, dtype):
        super().__init__(comm, partition, dtype)
        self.mask_words = num_words(partition.num_delegates)

    def messages_per_level(self, direction: int) -> int:
        """A level that reduces the mask: the nn Alltoall + Alltoallv, 2 P (P - 1), and the Allreduce,
        P (P - 1) (none without delegates). A level that cannot find delegates skips the Allreduce."""
        P = self.comm.size
        return 2 * P * (P - 1) + (P * (P - 1) if self.mask_words else 0)

    def reduce_mask(self, mask) -> np.ndarray:
        """The OR of every rank's ``mask`` (one Allreduce, category exchange)."""
        return self.comm.allreduce(mask, op="bor", category="exchange")

    def describe(self) -> dict:
        return {"exchange": self.name, "fanout": None, "delegate_mask": "allreduce"}


def _mask_list(mask, d) -> np.ndarray:
    """Delegate numbers whose bits are set in ``mask``."""
    bits = np.unpackbits(mask.view(np.uint8), bitorder="little")[:d]
    return np.flatnonzero(bits).astype(np.int64)


class DelegatesSearch(DistSearch):
    """The degree-separated search (see the module header)."""

    def __init__(self, comm, lg, options=None):
        super().__init__(comm, lg, options)
        part = lg.partition
        n, nr, d = lg.num_vertices, part.num_local, part.num_delegates
        self.exchange = DelegateExchange(comm, part, lg.vid_dtype)
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
        self.parent_stage = {}

    @property
    def nbytes(self) -> int:
        arrays = (self.queue, self.next_queue, self.offsets, self.sent, self.nfront, self.dvisited, self.dnew,
                  self.dfront, self.ddepth, self.dcand)
        return sum(a.nbytes for a in arrays) + self.exchange.nbytes

    def control_messages(self, level: int, direction: int) -> int:
        P = self.comm.size
        return P * (P - 1) * (2 if level == 0 else 1)

    def expected_messages(self, level: int, direction: int) -> tuple[int, int]:
        """(exchange, control) messages of level ``level`` of the last search, summed over ranks, from the
        operations the level ran (each by the counting rule of ``Comm``); the last level includes the
        delegate-parent stage."""
        sched = self.schedule[level]
        return sched["exchange"], sched["control"]

    def _bytes(self):
        log = self.comm.level_log[-1]
        return log["exchange"].bytes + log["control"].bytes

    def _share(self, mask, sched) -> str:
        """``mask`` := the OR of every rank's ``mask`` (bits over delegate numbers), in the cheaper
        encoding: an Allgather of the per-rank counts of set bits (control) picks nothing (no bit
        anywhere), an Allgatherv of int32 delegate numbers (when 4 bytes per bit beat the mask)
        or the mask Allreduce (bitwise or). Every rank takes the same branch; returns which."""
        comm, P, d = self.comm, self.comm.size, self.lg.partition.num_delegates
        pp = P * (P - 1)
        local = _mask_list(mask, d)
        counts = comm.allgatherv(np.array([local.size], dtype=np.int64), counts=np.ones(P, dtype=np.int64))
        sched["control"] += pp
        total = int(counts.sum())
        if total == 0:
            return "none"
        sched["exchange"] += pp
        if 4 * total < P * mask.nbytes:
            ids = comm.allgatherv(local.astype(np.int32), counts=counts, category="exchange").astype(np.int64)
            mask[:] = 0
            np.bitwise_or.at(mask, ids >> 6, np.left_shift(np.uint64(1), (ids & 63).astype(np.uint64)))
            return "ids"
        mask[:] = self.exchange.reduce_mask(mask)
        return "bitmap"

    def _scouts(self, queue, qsize, dq) -> list[int]:
        sub = self.lg.sub
        return [degree_sum(sub.nn_ip, queue, qsize), degree_sum(sub.nd_ip, queue, qsize),
                degree_sum(sub.dn_ip, dq, dq.size), degree_sum(sub.dd_ip, dq, dq.size)]

    def _run(self, roots, max_depth):
        lg, comm, ex, sub = self.lg, self.comm, self.exchange, self.lg.sub
        part, pmap = lg.partition, lg.partition.kernel_map()
        nr, d, lo, dels = part.num_local, part.num_delegates, part.lo, part.delegates
        atomic = multithreaded()
        none = np.empty(0, dtype=np.int64)
        parent = np.full(nr, -1, dtype=np.int64)
        depth = np.full(nr, -1, dtype=np.int64)
        fill(self.sent, np.uint64(0))
        for a in (self.dvisited, self.dfront):
            a[:] = 0
        self.ddepth[:] = -1
        self.dcand[:] = -1
        seeds = np.unique(roots)
        sidx = part.delegate_index(seeds)
        dq = sidx[sidx >= 0]
        normal = seeds[sidx < 0]
        own = normal[part.owns(normal)] - lo
        parent[own] = own + lo
        depth[own] = 0
        np.bitwise_or.at(self.dvisited, dq >> 6, np.left_shift(np.uint64(1), (dq & 63).astype(np.uint64)))
        self.dfront[:] = self.dvisited
        self.ddepth[dq] = 0
        queue, next_queue = self.queue, self.next_queue
        queue[:own.size] = own
        qsize = own.size
        opt = self.options                     # one stepper per subgraph, on its own arcs (Sec. IV-B)
        policies = {s: Policy(self.mode, opt.alpha, opt.beta, lg.num_vertices, self.sub_arcs[s]) for s in SUBGRAPHS}
        total = seeds.size
        records, self.schedule, self.level_directions = [], [], []
        pp = comm.size * (comm.size - 1)
        level = 0
        scouts = None
        while total > 0 and level != max_depth:
            comm.next_level()
            t0 = time.perf_counter()
            sched = {"exchange": 2 * pp, "control": pp * (2 if scouts is None else 1), "mask": "-", "mask_bytes": 0}
            if scouts is None:
                scouts = comm.allreduce(np.array(self._scouts(queue, qsize, dq), dtype=np.int64)).tolist()
            sc = dict(zip(("nn", "nd", "dn", "dd"), scouts))
            frontier = total
            bu = {s: policies[s].direction(sc[s]) for s in SUBGRAPHS}
            # nn: top-down, local claims and remote candidates
            examined = frontier_edge_offsets(sub.nn_ip, queue, qsize, self.offsets)
            cand_v = np.empty(examined, dtype=np.int64)
            cand_p = np.empty(examined, dtype=np.int64)
            self.ntail[0] = 0
            self.ctail[0] = 0
            steps_owned.td_step(sub.nn_ip, sub.nn_ix, queue, qsize, self.offsets, pmap, parent, depth, level,
                                self.sent, next_queue, self.ntail, cand_v, cand_p, self.ctail, atomic)
            self.dnew[:] = 0
            if bu["nd"]:
                fill(self.nfront, np.uint64(0))
                queue_to_bitmap(queue, qsize, self.nfront, atomic)
                examined += mask_bu(sub.ndT_ip, sub.ndT_ix, self.nfront, self.dvisited, self.dnew, self.dcand,
                                    none, lo, atomic)
            else:
                frontier_edge_offsets(sub.nd_ip, queue, qsize, self.offsets)
                examined += mask_td(sub.nd_ip, sub.nd_ix, queue, qsize, self.offsets, self.dvisited, self.dnew,
                                    self.dcand, none, lo, atomic, next_queue, self.dummy_tail)
            if bu["dd"]:
                examined += mask_bu(sub.ddT_ip, sub.ddT_ix, self.dfront, self.dvisited, self.dnew, self.dcand,
                                    dels, 0, atomic)
            else:
                frontier_edge_offsets(sub.dd_ip, dq, dq.size, self.offsets)
                examined += mask_td(sub.dd_ip, sub.dd_ix, dq, dq.size, self.offsets, self.dvisited, self.dnew,
                                    self.dcand, dels, 0, atomic, next_queue, self.dummy_tail)
            if bu["dn"]:
                examined += dn_bu(sub.dnT_ip, sub.dnT_ix, self.dfront, parent, depth, dels, level, next_queue,
                                  self.ntail)
            else:
                frontier_edge_offsets(sub.dn_ip, dq, dq.size, self.offsets)
                examined += dn_td(sub.dn_ip, sub.dn_ix, dq, dq.size, self.offsets, parent, depth, dels, level,
                                  atomic, next_queue, self.ntail)
            # normal exchange, then the delegate mask
            before = self._bytes()
            pairs, npairs = ex.route(cand_v, cand_p, int(self.ctail[0]))
            sched["normal_bytes"] = self._bytes() - before
            steps_owned.apply_received(pairs, npairs, pmap, sub.nn_ip, parent, depth, level, next_queue,
                                       self.ntail, atomic)
            if d > 0 and sc["nd"] + sc["dd"] > 0:        # a delegate can have been found
                before = self._bytes()
                sched["mask"] = self._share(self.dnew, sched)
                sched["mask_bytes"] = self._bytes() - before
                self.dnew &= ~self.dvisited
                self.dvisited |= self.dnew
            self.dfront[:] = self.dnew
            dq = _mask_list(self.dfront, d)
            self.ddepth[dq] = level + 1
            queue, next_queue = next_queue, queue
            qsize = int(self.ntail[0])
            counts = comm.allreduce(np.array([qsize] + self._scouts(queue, qsize, dq), dtype=np.int64)).tolist()
            total, scouts = counts[0] + dq.size, counts[1:]
            for s in SUBGRAPHS:
                if bu[s]:
                    policies[s].after_bottom_up(total, frontier)
            self.schedule.append(sched)
            self.level_directions.append({s: DIRECTIONS[BU if bu[s] else TD] for s in SUBGRAPHS})
            records.append(new_record(BU if any(bu.values()) else TD, frontier, total, examined, t0))
            level += 1
        self.queue, self.next_queue = queue, next_queue
        self._settle_delegates(parent, depth, dq_seeds=sidx[sidx >= 0], levels=len(records))
        return parent, depth, records

    def _settle_delegates(self, parent, depth, dq_seeds, levels):
        """Store the owned delegates' depth and parent in the result. Parents: found by the owner
        itself where it can (``owner_parents``); one Allreduce counts the rest and, if any, their
        bits are OR-reduced and the ranks holding a candidate send it to the owner (Alltoallv)."""
        part, sub, comm, d = self.lg.partition, self.lg.sub, self.comm, self.lg.partition.num_delegates
        lo, hi, dels = part.lo, part.hi, part.delegates
        mine = np.flatnonzero((dels >= lo) & (dels < hi))
        depth[dels[mine] - lo] = self.ddepth[mine]
        seeds = dels[dq_seeds]
        seeds = seeds[(seeds >= lo) & (seeds < hi)]
        parent[seeds - lo] = seeds
        self.parent_stage = {"unresolved": 0, "bytes": 0}
        if d == 0 or levels == 0:
            return
        sched, pp = self.schedule[-1], comm.size * (comm.size - 1)
        before = self._bytes()
        reached = mine[self.ddepth[mine] >= 1]
        found = np.empty(reached.size, dtype=np.int64)
        owner_parents(reached, self.ddepth, self.dcand, sub.dd_ip, sub.dd_ix, False, sub.ddT_ip,
                      sub.ddT_ix, sub.ndT_ip, sub.ndT_ix, depth, lo, dels, found)
        parent[dels[reached] - lo] = found
        missing = reached[found < 0]
        need = np.zeros_like(self.dnew)
        np.bitwise_or.at(need, missing >> 6, np.left_shift(np.uint64(1), (missing & 63).astype(np.uint64)))
        how = self._share(need, sched)
        if how != "none":
            asked = np.flatnonzero(np.unpackbits(need.view(np.uint8), bitorder="little")[:d])
            asked = asked[(self.dcand[asked] >= 0) & ((dels[asked] < lo) | (dels[asked] >= hi))]
            pairs, npairs = self.exchange.route(dels[asked], self.dcand[asked], asked.size)
            pairs = np.asarray(pairs[:2 * npairs], dtype=np.int64)
            v, p = pairs[0::2] - lo, pairs[1::2]
            keep = parent[v] < 0
            parent[v[keep]] = p[keep]
            sched["exchange"] += 2 * pp
        self.parent_stage = {"unresolved": int(_mask_list(need, d).size) if how != "none" else 0, "how": how,
                             "bytes": self._bytes() - before}

    def search(self, roots, max_depth=None):
        result = super().search(roots, max_depth)
        result.extra["delegates"] = self.traffic(result)
        return result

    def traffic(self, result) -> dict:
        """Delegate-mask vs normal-exchange bytes per level and per search (summed over ranks; the mask
        stage includes its count Allgather, the normal exchange its count Alltoall), the delegate-parent
        stage after the last level, and the paper's model: mask d/8 bytes per rank and peer in levels
        with updates; normal traffic bounded by the cut nn arcs (one pair each) plus the counts."""
        P, part, nlev = self.comm.size, self.lg.partition, len(self.schedule)
        local = ([s["mask_bytes"] for s in self.schedule] + [s["normal_bytes"] for s in self.schedule]
                 + [self.parent_stage.get("bytes", 0)])
        summed = self.comm.mpi.allreduce(np.array(local, dtype=np.int64))       # reporting: not counted
        levels = [{"level": i, "mask": self.schedule[i]["mask"], "mask_bytes": int(summed[i]),
                   "normal_bytes": int(summed[nlev + i]), "directions": self.level_directions[i]}
                  for i in range(nlev)]
        itemsize = np.dtype(self.lg.vid_dtype).itemsize
        return {"threshold": part.threshold, "delegates": part.num_delegates,
                "mask_bytes": int(summed[:nlev].sum()), "normal_bytes": int(summed[nlev:2 * nlev].sum()),
                "delegate_parent_bytes": int(summed[-1]),
                "unresolved_delegate_parents": self.parent_stage.get("unresolved", 0),
                "mask_levels": sum(1 for s in self.schedule if s["mask"] in ("ids", "bitmap")), "levels": levels,
                "model": {"mask_bytes_per_update_level": P * (P - 1) * self.dnew.nbytes,
                          "normal_bytes_bound": int(part.stats.get("cut_nn_arcs", 0)) * 2 * itemsize
                          + P * (P - 1) * 8 * nlev}}
