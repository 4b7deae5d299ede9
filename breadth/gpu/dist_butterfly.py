"""One MPI rank per GPU: the 1D ButterFly search with the local traversal on the GPU
(Green, "ButterFly BFS", Sec. 3-4, Alg. 2 -- the paper's own setting: one GPU per rank).

The level loop, the butterfly exchange and its schedule, the direction policy and the
parent recovery are the CPU search's (``distributed.search_butterfly.ButterflySearch``,
``one_d.butterfly_exchange.Butterfly``, ``kernels.policy``, ``one_d.replicated_steps.recover_parents``);
only the local step runs on the device (``dist_kernels``: the LRB top-down kernels
with a replicated-level claim, a bottom-up over the owned vertices). So a search
takes the same directions and reaches the same levels as ``breadth.bfs``.

GPU choice: each rank makes GPU ``local_rank % num_gpus`` current, the local rank
being its rank among the processes of the same node (``Split_type(COMM_TYPE_SHARED)``,
as the many-source runs choose: ``multisource.use_local_gpu``), whatever launcher
started the job.

Frontier buffers, without CUDA-aware MPI (``_run``; every copy counted by
``device.count_transfers``): per level, down, one counter row (new-vertex count, edges
examined) and the step's new vertices into the exchange's global queue; up, the
synchronised global frontier (``set_levels``, and the bottom-up bitmap) and, before a
top-down step, the owned frontier ordered by LRB bin. The butterfly rounds run on
host buffers (``Butterfly.synchronise``).

With CUDA-aware MPI (``_run_device``): the global queue lives on the device; each
butterfly round sends device slices of it to MPI directly and merges what arrives with
``dist_kernels.merge_ids`` (ids only, no bitmap encoding: the same messages, the
schedule's count), and ``owned_frontier`` extracts the next owned frontier on the
device. A level then copies only counters (8 bytes per round, one row per level) and,
for frontiers of at most ``SMALL_FRONTIER`` vertices, the frontier kept for the parent
recovery; the levels come down once per search. ``cuda_aware_mpi()`` detects such an
MPI (MPI 4.1's ``mpi_memory_alloc_kinds``, Open MPI's ``MPIX_Query_cuda_support``);
under numba-cuda's simulator it is never detected (the tests force the device path
there, where device arrays are host memory that any MPI can read).

Invariants between levels: host ``lvl`` == device ``lvl`` == the CPU search's ``lvl``;
the exchange's global queue holds the frontier on every rank.
"""
from __future__ import annotations

import ctypes
import time

import numpy as np

from ..distributed.one_d import replicated_steps as steps
from ..distributed.one_d.butterfly_exchange import TAG_IDS
from ..distributed.one_d.butterfly_search import SMALL_FRONTIER, ButterflySearch, small_levels
from ..distributed.search_base import multithreaded, new_record
from ..kernels.policy import BU, TD
from . import device
from .bottom_up import fill_words, queue_to_bitmap
from .dist_kernels import REP_TD, merge_ids, owned_frontier, rep_bu, set_levels
from .ibfs_kernels import fill_any
from .lrb import launch_top_down
from .multisource import use_local_gpu
from .primitives import BIN0, COUNT, EXAMINED, HEAD, NBINS, ROW, SCOUT, zero_int64


def degree_bins(degrees) -> np.ndarray:
    """Per vertex, the LRB bin of its degree (0 for 0, else bit length), as the device computes it."""
    x = np.asarray(degrees, dtype=np.int64).copy()
    b = np.zeros(x.size, dtype=np.int64)
    while np.any(x > 0):
        b += x > 0
        x >>= 1
    return b




def cuda_aware_mpi(mpi) -> bool:
    """Whether the MPI library takes CUDA device buffers (never under the simulator)."""
    if device.simulated():
        return False
    try:
        kinds = mpi.INFO_ENV.Get("mpi_memory_alloc_kinds")
    except Exception:  # noqa: BLE001 - MPI < 4.1 has no such key
        kinds = None
    if kinds and "cuda" in kinds:
        return True
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({line.split()[-1] for line in f if "libmpi.so" in line})
    except OSError:
        return False
    for lib in libs:
        try:
            query = ctypes.CDLL(lib).MPIX_Query_cuda_support
        except (OSError, AttributeError):
            continue
        query.restype = ctypes.c_int
        return bool(query())
    return False


class DeviceButterfly:
    """The butterfly rounds of ``exchange`` (its schedule, partners and fanout) on device buffers:
    each round sends ``d_gq[:count]`` to MPI as a device array and merges the received id lists
    on the device (``merge_ids``); f receive slots of V ids, allocated once."""

    def __init__(self, exchange, num_vertices: int, dtype, launch: device.Launch):
        self.comm, self.partners, self.fanout = exchange.comm, exchange.partners, exchange.fanout
        self.launch = launch
        self.slots = [device.empty(max(1, num_vertices), dtype) for _ in range(self.fanout)]

    def synchronise(self, d_gq, count: int, d_lvl, value: int, counters, tail: int) -> int:
        """Complete ``d_gq[:count]`` (``counters[tail] == count``) to the level's global frontier; its size."""
        comm, f, tpb = self.comm, self.fanout, self.launch.thread_tpb
        for partners in self.partners:
            if not partners:
                continue
            reqs = [comm.isend(p, d_gq[:count], TAG_IDS) for p in partners]
            for b in range(0, len(partners), f):
                got = comm.recv_all([(p, self.slots[i]) for i, p in enumerate(partners[b:b + f])])
                for i, (k, _) in enumerate(got):
                    if k:
                        merge_ids[self.launch.blocks(k, tpb), tpb](self.slots[i], k, d_lvl, value, d_gq,
                                                                    counters, tail)
            comm.wait_all(reqs)
            count = int(device.to_host(counters[tail:tail + 1])[0])
        return count


class GpuButterflySearch(ButterflySearch):
    """``ButterflySearch`` with the local steps on this rank's GPU (``DistEngine(..., device="cuda")``)."""

    def __init__(self, comm, lg, options=None, launch: device.Launch | None = None):
        super().__init__(comm, lg, options)
        device.require_cuda()
        self.gpu = use_local_gpu(comm.mpi)
        self.cuda_aware = cuda_aware_mpi(comm.MPI)
        # device buffers to MPI when detected; options.params["device_mpi"] True/False forces it (tests)
        forced = self.options.params.get("device_mpi")
        self.device_mpi = self.cuda_aware if forced is None else bool(forced)
        self.launch = device.check_launch(launch or device.default_launch())
        n, nl = lg.num_vertices, lg.num_local
        isz = lg.indices.dtype.itemsize
        # CSR, levels (int64), parents, owned queue, global queue + step output, bitmap, counters;
        # the device exchange adds replicated degrees, the LRB scatter buffer and f receive slots
        need = (lg.nbytes + 8 * n + 8 * nl + isz * nl + 2 * isz * max(n, 1) + 4 * ((n + 31) // 32 + 1)
                + 2 * ROW * 8)
        if self.device_mpi:
            need += isz * (n + nl + self.exchange.fanout * max(n, 1))
        device.check_device_fits(f"rank {comm.rank}'s {nl} vertices and {lg.local_arcs} arcs with the replicated "
                                 f"levels of {n} vertices", need)
        self.row0 = int(lg.partition.to_global(0)) if nl else 0
        self.d_indptr = device.to_device(lg.indptr)
        self.d_indices = device.to_device(lg.indices)
        if lg.directed:
            self.d_in_indptr = device.to_device(lg.in_indptr)
            self.d_in_indices = device.to_device(lg.in_indices)
        else:
            self.d_in_indptr, self.d_in_indices = self.d_indptr, self.d_indices
        self.d_lvl = device.empty(max(n, 1), np.int64)
        self.d_parent = device.empty(nl, np.int64)
        self.d_queue = device.empty(max(nl, 1), lg.vid_dtype)      # owned frontier (local ids)
        self.d_gq = device.empty(max(n, 1), lg.vid_dtype)          # synchronised frontier (global ids)
        self.d_out = device.empty(max(n, 1), lg.vid_dtype)         # a step's new vertices (global ids)
        self.d_front = device.empty((n + 31) // 32 + 1, np.uint32)
        self.d_counters = device.empty(2 * ROW, np.int64)
        self.degree = lg.out_degree()
        if self.device_mpi:
            self.d_odeg = device.to_device(self.odeg)
            self.d_binned = device.empty(max(nl, 1), lg.vid_dtype)
            self.device_exchange = DeviceButterfly(self.exchange, n, lg.vid_dtype, self.launch)

    @property
    def engine_name(self) -> str:
        return super().engine_name + "-cuda"

    @property
    def nbytes(self) -> int:
        return super().nbytes + self.degree.nbytes

    def _upload_levels(self, vertices, count, value):
        """Copy ``vertices[:count]`` (global ids) to ``d_gq`` and set their device levels to ``value``."""
        if count == 0:
            return
        tpb = self.launch.thread_tpb
        device.upload(self.d_gq[:count], np.ascontiguousarray(vertices[:count]))
        set_levels[self.launch.blocks(count, tpb), tpb](self.d_gq, count, self.d_lvl, value)

    def _top_down(self, qsize, level, nxt):
        """Upload the owned frontier ordered by LRB bin and launch the LRB kernels; returns edges examined."""
        local = self.queue[:qsize]
        deg = self.degree[local]
        b = degree_bins(deg)
        order = np.argsort(b, kind="stable")
        bins = np.bincount(b, minlength=NBINS)[:NBINS].astype(np.int64)
        if qsize:
            device.upload(self.d_queue[:qsize], local[order].astype(self.lg.vid_dtype))
        launch_top_down(REP_TD, self.launch, self.d_indptr, self.d_indices, self.d_lvl, self.d_parent, self.row0,
                        self.d_queue, qsize, bins, level, self.d_out, None, self.d_counters, -1, nxt, -1)
        return int(deg.sum())

    def _bottom_up(self, total, level, nxt, out=None):
        """The frontier bitmap from the global frontier in ``d_gq``, then ``rep_bu`` appending to ``out``
        (default ``d_out``); the edges examined come down with the counter row."""
        tpb, nw = self.launch.thread_tpb, self.d_front.size
        fill_words[self.launch.blocks(nw, tpb), tpb](self.d_front, np.uint32(0))
        queue_to_bitmap[self.launch.blocks(total, tpb), tpb](self.d_gq, total, self.d_front)
        rep_bu[self.launch.blocks(self.lg.num_local, tpb), tpb](self.d_in_indptr, self.d_in_indices, self.row0,
                                                                 self.d_lvl, self.d_front, level, self.d_parent,
                                                                 self.d_out if out is None else out,
                                                                 self.d_counters, nxt)

    def _run(self, roots, max_depth):
        if self.device_mpi:
            return self._run_device(roots, max_depth)
        lg, ex = self.lg, self.exchange
        pmap = lg.partition.kernel_map()
        lvl, gq, odeg = self.lvl, ex.gqueue, self.odeg
        tpb = self.launch.thread_tpb
        lvl.fill(-1)
        fill_any[self.launch.blocks(self.d_lvl.size, tpb), tpb](self.d_lvl, np.int64(-1))
        fill_any[self.launch.blocks(max(lg.num_local, 1), tpb), tpb](self.d_parent, np.int64(-1))
        seeds = np.unique(roots)
        lvl[seeds] = 0
        total = seeds.size
        gq[:total] = seeds
        self._upload_levels(gq, total, 0)
        qsize, scout = steps.owned_and_scout(gq, total, pmap, odeg, self.queue)
        policy = self.policy()
        records = []
        small = {0: seeds}
        level, nxt = 0, 0
        while total > 0 and level != max_depth:
            self.comm.next_level()
            t0 = time.perf_counter()
            frontier = total
            bottom_up = policy.direction(scout)
            zero_int64[1, tpb](self.d_counters[nxt:nxt + ROW])
            if bottom_up:
                self._bottom_up(total, level, nxt)
            else:
                examined = self._top_down(qsize, level, nxt)
            head = device.to_host(self.d_counters[nxt:nxt + HEAD])
            count = int(head[COUNT])
            if bottom_up:
                examined = int(head[EXAMINED])
            if count:
                device.to_host(self.d_out[:count], gq[:count])
                lvl[gq[:count]] = level + 1
            total = ex.synchronise(count, lvl, level + 1, multithreaded())
            self._upload_levels(gq, total, level + 1)
            qsize, scout = steps.owned_and_scout(gq, total, pmap, odeg, self.queue)
            if 0 < total <= SMALL_FRONTIER:
                small[level + 1] = np.sort(gq[:total].astype(np.int64))
            if bottom_up:
                policy.after_bottom_up(total, frontier)
            records.append(new_record(BU if bottom_up else TD, frontier, total, examined, t0))
            level += 1
            nxt = ROW - nxt
        parent = device.to_host(self.d_parent) if lg.num_local else np.empty(0, dtype=np.int64)
        depth = np.empty(lg.num_local, dtype=np.int64)
        small_range, small_vals = small_levels(small, level + 1)
        steps.recover_parents(lg.in_indptr, lg.in_indices, pmap, lvl, parent, depth, small_range, small_vals)
        return parent, depth, records

    def _owned(self, total, row):
        """The owned part of d_gq[:total] into d_queue (counter row ``row``); returns its head."""
        tpb = self.launch.thread_tpb
        zero_int64[1, tpb](self.d_counters[row:row + ROW])
        owned_frontier[self.launch.blocks(total, tpb), tpb](self.d_gq, total, self.row0, self.d_odeg, self.d_indptr,
                                                           self.d_queue, self.d_counters, row)
        return device.to_host(self.d_counters[row:row + HEAD])

    def _run_device(self, roots, max_depth):
        """The level loop with the frontier on the device and device buffers handed to MPI."""
        lg, dex = self.lg, self.device_exchange
        pmap = lg.partition.kernel_map()
        tpb = self.launch.thread_tpb
        step, front = 0, ROW                     # counter rows: the step (+ merges), the owned frontier
        fill_any[self.launch.blocks(self.d_lvl.size, tpb), tpb](self.d_lvl, np.int64(-1))
        fill_any[self.launch.blocks(max(lg.num_local, 1), tpb), tpb](self.d_parent, np.int64(-1))
        seeds = np.unique(roots)
        total = seeds.size
        self._upload_levels(seeds.astype(lg.vid_dtype), total, 0)
        head = self._owned(total, front)
        qsize, scout = int(head[COUNT]), int(head[SCOUT])
        policy = self.policy()
        records = []
        small = {0: seeds}
        level = 0
        while total > 0 and level != max_depth:
            self.comm.next_level()
            t0 = time.perf_counter()
            frontier = total
            bottom_up = policy.direction(scout)
            zero_int64[1, tpb](self.d_counters[step:step + ROW])
            if bottom_up:
                self._bottom_up(total, level, step, out=self.d_gq)
            else:
                launch_top_down(REP_TD, self.launch, self.d_indptr, self.d_indices, self.d_lvl, self.d_parent,
                                self.row0, self.d_queue, qsize, head[BIN0:BIN0 + NBINS], level, self.d_gq,
                                self.d_binned, self.d_counters, front, step, -1)
                examined = int(head[EXAMINED])          # the owned frontier's out-edges (owned_frontier)
            head = device.to_host(self.d_counters[step:step + HEAD])
            if bottom_up:
                examined = int(head[EXAMINED])
            total = dex.synchronise(self.d_gq, int(head[COUNT]), self.d_lvl, level + 1, self.d_counters,
                                    step + COUNT)
            if 0 < total <= SMALL_FRONTIER:
                small[level + 1] = np.sort(device.to_host(self.d_gq[:total]).astype(np.int64))
            head = self._owned(total, front)
            qsize, scout = int(head[COUNT]), int(head[SCOUT])
            if bottom_up:
                policy.after_bottom_up(total, frontier)
            records.append(new_record(BU if bottom_up else TD, frontier, total, examined, t0))
            level += 1
        self.lvl[:] = device.to_host(self.d_lvl)[:lg.num_vertices]
        parent = device.to_host(self.d_parent) if lg.num_local else np.empty(0, dtype=np.int64)
        depth = np.empty(lg.num_local, dtype=np.int64)
        small_range, small_vals = small_levels(small, level + 1)
        steps.recover_parents(lg.in_indptr, lg.in_indices, pmap, self.lvl, parent, depth, small_range, small_vals)
        return parent, depth, records
