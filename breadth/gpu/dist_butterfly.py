"""One MPI rank per GPU: the 1D ButterFly search with the local traversal on the GPU
(Green, "ButterFly BFS", Sec. 3-4, Alg. 2 -- the paper's own setting: one GPU per rank).

The level loop (``distributed.search_base.DistSearch._run``), the butterfly exchange and
its schedule, the direction policy and the parent recovery are the CPU search's
(``one_d.butterfly_search.ButterflySearch``, ``one_d.butterfly_exchange.Butterfly``,
``kernels.policy``, ``one_d.replicated_steps.recover_parents``); this search overrides the
local steps (``_top_down``, ``_bottom_up``: ``dist_kernels``, the LRB top-down kernels with a
replicated-level claim, a bottom-up over the owned vertices) and, for the device buffers,
the seed and the parents' copy down. So a search takes the same directions and reaches the
same levels as ``breadth.bfs``.

GPU choice: each rank makes GPU ``local_rank % num_gpus`` current, the local rank
being its rank among the processes of the same node (``Split_type(COMM_TYPE_SHARED)``,
as the many-source runs choose: ``multisource.use_local_gpu``), whatever launcher
started the job.

Frontier buffers, without CUDA-aware MPI (every copy counted by
``device.count_transfers``): per level, down, one counter row (new-vertex count, edges
examined) and the step's new vertices into the exchange's global queue; up, at the
start of each step, the synchronised global frontier (``set_levels``, and the bottom-up
bitmap) and, before a top-down step, the owned frontier ordered by LRB bin. The butterfly rounds run on
host buffers (``Butterfly.synchronise``).

With CUDA-aware MPI (``device_mpi``; then ``_exchange`` is this search's too): the global
queue lives on the device; each butterfly round sends device slices of it to MPI directly and merges what arrives with
``dist_kernels.merge_ids`` (ids only, no bitmap encoding: the same messages, the
schedule's count), and ``owned_frontier`` extracts the next owned frontier on the
device. A level then copies only counters (8 bytes per round, one row per level) and,
for frontiers of at most ``SMALL_FRONTIER`` vertices, the frontier kept for the parent
recovery; the levels come down once per search. ``cuda_aware_mpi()`` detects such an
MPI (MPI 4.1's ``mpi_memory_alloc_kinds``, Open MPI's ``MPIX_Query_cuda_support``);
under numba-cuda's simulator it is never detected (the tests force the device path
there, where device arrays are host memory that any MPI can read).

Invariants between levels: host ``lvl`` == the CPU search's ``lvl`` (device path: device
``lvl``, copied down after the last level); on the host path device ``lvl`` catches up with
the frontier when the next step uploads it; the global queue holds the frontier on every rank.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..distributed.one_d.butterfly_exchange import TAG_IDS
from ..distributed.one_d.butterfly_search import SMALL_FRONTIER, ButterflySearch
from ..errors import InputError
from . import device
from .bottom_up import fill_words, queue_to_bitmap
from .dist_kernels import merge_ids, owned_frontier, rep_bu, rep_td, set_levels
from .graph import upload_csr
from .ibfs_kernels import fill_any
from .lrb import launch_top_down
from .multisource import use_local_gpu
from .primitives import BIN0, COUNT, EXAMINED, HEAD, NBINS, ROW, SCOUT, bin_counts, degree_bins, zero_int64


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
        # device buffers to MPI when detected; options.params["device_mpi"] True/False forces it (tests).
        # Forcing it on a GPU with an MPI that is not CUDA-aware would hand MPI device pointers.
        forced = self.options.params.get("device_mpi")
        self.device_mpi = self.cuda_aware if forced is None else bool(forced)
        if self.device_mpi and not self.cuda_aware and not device.simulated():
            raise InputError("device_mpi=True hands device buffers to MPI, which needs a CUDA-aware MPI; "
                             "this one is not (leave device_mpi unset to use host buffers)")
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
        self.d_indptr, self.d_indices, self.d_in_indptr, self.d_in_indices = upload_csr(lg)
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

    def _lrb_top_down(self, level, row):
        """Upload the owned frontier ordered by LRB bin and launch the LRB kernels; returns edges examined."""
        qsize = self.qsize
        local = self.queue[:qsize]
        deg = self.degree[local]
        b = degree_bins(deg)
        order = np.argsort(b, kind="stable")
        bins = bin_counts(b)
        if qsize:
            device.upload(self.d_queue[:qsize], local[order].astype(self.lg.vid_dtype))
        launch_top_down(rep_td, self.launch, self.d_indptr, self.d_indices, self.d_lvl, self.d_parent, self.row0,
                        self.d_queue, qsize, bins, level, self.d_out, None, self.d_counters, -1, row, -1)
        return int(deg.sum())

    def _owned(self, total, row):
        """The owned part of d_gq[:total] into d_queue (counter row ``row``); returns its head."""
        tpb = self.launch.thread_tpb
        zero_int64[1, tpb](self.d_counters[row:row + ROW])
        owned_frontier[self.launch.blocks(total, tpb), tpb](self.d_gq, total, self.row0, self.d_odeg, self.d_indptr,
                                                           self.d_queue, self.d_counters, row)
        return device.to_host(self.d_counters[row:row + HEAD])

    # ------------------------------------------------------------------ the hooks of DistSearch._run
    # Host path: the CPU search's seed and exchange; each step uploads the frontier's levels first and
    # leaves its new vertices in the exchange's global queue. Device path (``device_mpi``): counter row
    # 0 is the step's (and the merges'), row ROW the owned frontier's, which stays on the device.
    def _seed(self, seeds):
        tpb = self.launch.thread_tpb
        fill_any[self.launch.blocks(self.d_lvl.size, tpb), tpb](self.d_lvl, np.int64(-1))
        fill_any[self.launch.blocks(max(self.lg.num_local, 1), tpb), tpb](self.d_parent, np.int64(-1))
        if not self.device_mpi:
            return super()._seed(seeds)
        self.pmap = self.lg.partition.kernel_map()
        self.small = {0: seeds}
        self._upload_levels(seeds.astype(self.lg.vid_dtype), seeds.size, 0)
        return seeds.size, self._owned_frontier(seeds.size)

    def _owned_frontier(self, total):
        if not self.device_mpi:
            return super()._owned_frontier(total)
        self.head = self._owned(total, ROW)
        self.qsize = int(self.head[COUNT])
        return int(self.head[SCOUT])

    def _step_row(self, level, frontier):
        """The zeroed counter row of this level's step (host path: after the frontier's levels went up)."""
        row = 0
        if not self.device_mpi:
            row = ROW * (level % 2)
            self._upload_levels(self.exchange.gqueue, frontier, level)
        zero_int64[1, self.launch.thread_tpb](self.d_counters[row:row + ROW])
        return row

    def _step_done(self, level, row):
        """The step's counter row down; host path: its new vertices into the global queue, levels set."""
        self.step_head = head = device.to_host(self.d_counters[row:row + HEAD])
        if not self.device_mpi:
            count, gq = int(head[COUNT]), self.exchange.gqueue
            if count:
                device.to_host(self.d_out[:count], gq[:count])
                self.lvl[gq[:count]] = level + 1
            self.exchange.tail[0] = count
        return head

    def _top_down(self, level, frontier):
        row = self._step_row(level, frontier)
        if self.device_mpi:
            launch_top_down(rep_td, self.launch, self.d_indptr, self.d_indices, self.d_lvl, self.d_parent,
                            self.row0, self.d_queue, self.qsize, self.head[BIN0:BIN0 + NBINS], level, self.d_gq,
                            self.d_binned, self.d_counters, ROW, row, -1)
            examined = int(self.head[EXAMINED])          # the owned frontier's out-edges (owned_frontier)
        else:
            examined = self._lrb_top_down(level, row)
        self._step_done(level, row)
        return examined

    def _bottom_up(self, level, frontier):
        """The frontier bitmap from the global frontier in ``d_gq``, then ``rep_bu``; the edges examined
        come down with the counter row."""
        row = self._step_row(level, frontier)
        tpb, nw = self.launch.thread_tpb, self.d_front.size
        fill_words[self.launch.blocks(nw, tpb), tpb](self.d_front, np.uint32(0))
        queue_to_bitmap[self.launch.blocks(frontier, tpb), tpb](self.d_gq, frontier, self.d_front)
        rep_bu[self.launch.blocks(self.lg.num_local, tpb), tpb](self.d_in_indptr, self.d_in_indices, self.row0,
                                                                 self.d_lvl, self.d_front, level, self.d_parent,
                                                                 self.d_gq if self.device_mpi else self.d_out,
                                                                 self.d_counters, row)
        return int(self._step_done(level, row)[EXAMINED])

    def _exchange(self, level, bottom_up):
        if not self.device_mpi:
            return super()._exchange(level, bottom_up)
        total = self.device_exchange.synchronise(self.d_gq, int(self.step_head[COUNT]), self.d_lvl, level + 1,
                                                 self.d_counters, COUNT)
        if 0 < total <= SMALL_FRONTIER:
            self.small[level + 1] = np.sort(device.to_host(self.d_gq[:total]).astype(np.int64))
        return total, self._owned_frontier(total)

    def _finish(self, seeds, levels):
        lg = self.lg
        if self.device_mpi:
            self.lvl[:] = device.to_host(self.d_lvl)[:lg.num_vertices]
        self.parent = device.to_host(self.d_parent) if lg.num_local else np.empty(0, dtype=np.int64)
        return super()._finish(seeds, levels)
