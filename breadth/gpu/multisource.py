"""iBFS groups of a planned many-source run (``breadth.multisource.runner.Traversal``) on the GPU.

The CPU runner plans the run -- sources, GroupBy groups (``multisource.groupby``,
unchanged), W, what to keep; host depths of one process in a device matrix when it fits,
``staged_depths`` -- and ``run_group`` here executes one group with the
GPU traversal (``gpu.ibfs.traverse``) instead of the CPU one, returning the same
``GroupResult``: the per-level histogram the reducers fold (closeness, harmonic
centrality, eccentricity), the depths of the group when kept (widened and rerun
when a level passes the depth dtype, as on the CPU), the reach sets when kept.
"""
from __future__ import annotations

import time

import numpy as np

from ..multisource.results import GroupResult, wider
from ..multisource.status import reach_csr
from . import device
from .depth_matrix import DeviceDepthMatrix, staged
from .graph import DeviceGraph, graph_bytes
from .ibfs import group_bytes, traverse

__all__ = ["DeviceDepthMatrix", "DeviceGraph", "run_group", "staged_depths", "use_local_gpu"]


def use_local_gpu(comm=None) -> int:
    """Check that a GPU can run the kernels and, under MPI, make GPU ``local rank % GPUs`` current.

    The local rank is the rank among the processes of ``comm`` on the same node
    (``Split_type(COMM_TYPE_SHARED)``, a collective: every rank of ``comm`` calls this),
    so each process of a node gets its own GPU while there are enough. Returns the GPU index.
    """
    device.require_cuda()
    rank = 0
    if comm is not None and comm.Get_size() > 1:
        from mpi4py import MPI

        node = comm.Split_type(MPI.COMM_TYPE_SHARED)
        rank = node.Get_rank()
        node.Free()
    return device.select_gpu(rank)


def staged_depths(trav) -> DeviceDepthMatrix | None:
    """A device matrix to assemble ``trav``'s host depth matrix in (``depth_matrix.staged``: the
    graph and a group of the next wider depth dtype beside it), or None when it does not fit."""
    wide = 2 * np.dtype(trav.depth_dtype).itemsize
    return staged(trav.n, trav.sources.size, trav.depth_dtype, graph_bytes(trav.graph),
                  group_bytes(trav.n, trav.words, trav.group_size, wide, trav.graph.indices.dtype.itemsize))


def run_group(trav, gi: int, dg, depth_out=None, launch=None) -> GroupResult:
    """Traverse group ``gi`` of ``trav`` on the DeviceGraph ``dg`` (uploaded from ``trav.graph``).

    With ``keep_depths`` the depths go into ``depth_out`` (a ``runner.DepthMatrix``, or a
    ``depth_matrix.DeviceDepthMatrix``: straight from the device) when given, else into the result.
    """
    members = trav.groups[gi]
    srcs = np.ascontiguousarray(trav.sources[members])
    dtype = np.dtype(trav.depth_dtype if depth_out is None else depth_out.dtype)
    on_device = isinstance(depth_out, DeviceDepthMatrix)
    t0 = time.perf_counter()
    while True:
        hist, stats, times, overflow, depths, status = traverse(
            dg, srcs, trav.words, trav.mode, trav.alpha, trav.beta, trav.max_depth,
            dtype if trav.keep_depths else None, trav.keep_reach, launch, depths_to_host=not on_device)
        if not overflow:
            break
        dtype = np.dtype(wider(dtype))
        if depth_out is not None:
            depth_out.widen(dtype)
    seconds = time.perf_counter() - t0
    res = GroupResult(gi, hist[:, :srcs.size].copy(), stats, times, seconds)
    if trav.keep_depths:
        if on_device:
            depth_out.place_block(members, depths, dtype)
        elif depth_out is not None:
            depth_out.place(members, depths)
        else:
            res.depths = depths
    if trav.keep_reach:
        res.reach_indptr, res.reach_indices = reach_csr(status, trav.words, srcs.size, trav.n)
    return res
