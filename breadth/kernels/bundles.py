"""The named argument bundles of the BFS kernels: the graph a kernel reads and a search's buffers.

numba types a ``NamedTuple`` by its fields, as a tuple: passing one costs what passing its
arrays would, a field is read by name (``graph.in_indptr``), and a kernel takes one argument
where it took a row of arrays in a fixed order.
"""
from typing import NamedTuple

import numpy as np

__all__ = ["KernelGraph", "SearchBuffers"]


class KernelGraph(NamedTuple):
    """A graph's CSR arrays as kernels read them: out-edges, and in-edges for bottom-up steps
    (the out-edges again for a search that never goes bottom-up)."""

    indptr: np.ndarray
    indices: np.ndarray
    in_indptr: np.ndarray
    in_indices: np.ndarray


class SearchBuffers(NamedTuple):
    """What a single-node search writes (``breadth.search.BFSWorkspace``): ``parent``/``depth``
    per vertex (int64, or int32 for a narrow search), two queues and ``offsets`` of n (+1) int64,
    three bitmaps of ceil(n / 64) uint64 words, ``tail`` of 1 int64, and ``seen``, one byte per
    bitmap bit (or empty: ``thin_levels.run_thin_levels``)."""

    parent: np.ndarray
    depth: np.ndarray
    queue: np.ndarray
    next_queue: np.ndarray
    offsets: np.ndarray
    front: np.ndarray
    next_front: np.ndarray
    visited: np.ndarray
    tail: np.ndarray
    seen: np.ndarray
