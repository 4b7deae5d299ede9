"""The |S| x n depth matrix of a many-source run kept in GPU memory (``multi_bfs(..., device="cuda",
to_host=False)``, and host results assembled on the device, ``staged``).

The device twin of ``multisource.results.DepthMatrix``: row i holds the depths from source i,
the dtype's maximum marks an unreachable vertex, and each group's traversal writes its
members' rows -- here straight from its (n, g) device block (``ibfs.traverse`` with
``depths_to_host=False``) by ``place_block``, without a trip through host memory. It widens
its dtype on the device when a group needed a wider one (``widen_matrix``).

Host results of one process (``multi_bfs(..., device="cuda")``) are assembled the same way when the
matrix fits on the GPU beside the graph and a group (``staged``), then come back in one copy: the
device places each group's columns as rows, where the host would transpose every (n, g) block
through its caches.
"""
from __future__ import annotations

import numpy as np
from numba import cuda

from . import device


@cuda.jit
def place_block(matrix, members, block, g, n, gone, unreachable):
    """matrix[members[j], v] = block[v g + j] (thread per cell, grid-stride), the block's
    ``gone`` (its dtype's unreachable) written as the matrix's ``unreachable``."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < n * g:
        v = i // g
        j = i - v * g
        x = block[i]
        matrix[members[j], v] = unreachable if x == gone else x
        i += stride


@cuda.jit
def widen_matrix(new, old, rows, n, gone, unreachable):
    """new = old in a wider dtype, unreachable kept unreachable (thread per cell)."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < rows * n:
        r = i // n
        v = i - r * n
        x = old[r, v]
        new[r, v] = unreachable if x == gone else x
        i += stride


STAGED_SHARE = 0.8    # of the GPU's free memory, what host results assembled on the device may use


def _unreachable(dtype):
    return np.dtype(dtype).type(np.iinfo(dtype).max)


class DeviceDepthMatrix:
    """The depth matrix in device memory (module header); ``result`` is the numba device array."""

    def __init__(self, n: int, num_sources: int, dtype, launch=None):
        device.check_device_fits(f"a {num_sources} x {n} depth matrix", n * num_sources * np.dtype(dtype).itemsize)
        self.n, self.rows = int(n), int(num_sources)
        self.launch = launch or device.default_launch()
        self.array = device.empty((self.rows, self.n), dtype)

    @property
    def dtype(self):
        return np.dtype(self.array.dtype)

    def widen(self, dtype) -> None:
        dtype = np.dtype(dtype)
        if dtype.itemsize <= self.dtype.itemsize:
            return
        device.check_device_fits("widening the depth matrix", self.rows * self.n * dtype.itemsize)
        new = device.empty((self.rows, self.n), dtype)
        tpb = self.launch.thread_tpb
        widen_matrix[self.launch.blocks(max(self.rows * self.n, 1), tpb), tpb](
            new, self.array, self.rows, self.n, _unreachable(self.dtype), _unreachable(dtype))
        self.array = new

    def place_block(self, members, block, block_dtype) -> None:
        """Write a group's (n, g) device block (column j = member j; ``block_dtype`` its dtype) into
        its members' rows."""
        members = np.ascontiguousarray(members, dtype=np.int64)
        if np.dtype(block_dtype).itemsize > self.dtype.itemsize:
            self.widen(block_dtype)
        g = int(members.size)
        tpb = self.launch.thread_tpb
        place_block[self.launch.blocks(max(self.n * g, 1), tpb), tpb](
            self.array, device.to_device(members), block, g, self.n, _unreachable(block_dtype),
            _unreachable(self.dtype))

    @property
    def result(self):
        return self.array

    def copy_to(self, out: np.ndarray) -> np.ndarray:
        """Copy the matrix into the host array ``out`` (same shape and dtype) in one copy; returns ``out``."""
        return device.to_host(self.array, out)


def staged(n: int, num_sources: int, dtype, graph_bytes: int, group_bytes: int, launch=None):
    """A DeviceDepthMatrix to assemble host results in, or None when it does not fit: the matrix
    three times over (a widening holds the old and the new one of twice the width) beside the
    graph's ``graph_bytes`` and a group's ``group_bytes`` must take at most ``STAGED_SHARE`` of the
    GPU's free memory; otherwise each group's block comes back on its own."""
    need = graph_bytes + group_bytes + 3 * int(n) * int(num_sources) * np.dtype(dtype).itemsize
    if need > STAGED_SHARE * device.free_memory():
        return None
    return DeviceDepthMatrix(n, num_sources, dtype, launch)
