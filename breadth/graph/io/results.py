"""Writing BFS results (depth and parent per vertex), atomically.

By extension:

* ``.csv``: a header ``vertex,depth,parent`` and one line per vertex;
* ``.npy``: one int64 array of shape (n, 3) with the same columns;
* ``.npz``: int64 arrays ``vertex``, ``depth``, ``parent``.

With ``original_ids`` (a relabelled graph's ``vertex_ids``) the ``vertex`` and
``parent`` columns hold original ids; an unreached vertex keeps depth and
parent -1 either way.
"""
from __future__ import annotations

import os

import numpy as np

from ...errors import InputError
from ...files import atomic_output
from .text import format_rows

RESULT_SUFFIXES = (".csv", ".npy", ".npz")


def _as_ids(name, a, n=None):
    a = np.asarray(a)
    if a.ndim != 1 or (a.size and not np.issubdtype(a.dtype, np.integer)):
        raise InputError(f"{name} must be a 1-D integer array, got shape {a.shape} dtype {a.dtype}")
    if n is not None and a.size != n:
        raise InputError(f"{name} has {a.size} entries, expected {n}")
    return a.astype(np.int64, copy=False)


def result_columns(depth, parent, original_ids=None):
    """The (vertex, depth, parent) int64 columns, in original ids when given."""
    depth = _as_ids("depth", depth)
    n = depth.size
    parent = _as_ids("parent", parent, n)
    if parent.size and (parent.min() < -1 or parent.max() >= n):
        raise InputError(f"parent entries must be -1 or a vertex in 0..{n - 1}")
    vertex = np.arange(n, dtype=np.int64)
    if original_ids is not None:
        ids = _as_ids("original_ids", original_ids, n)
        vertex = ids
        parent = np.where(parent >= 0, ids[np.maximum(parent, 0)], -1)
    return vertex, depth, parent


def write_result(path, depth, parent, original_ids=None) -> None:
    """Write one BFS result to ``path`` (.csv, .npy or .npz; see the module docstring)."""
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in RESULT_SUFFIXES:
        raise InputError(f"{path}: results are written as {', '.join(RESULT_SUFFIXES)}; got '{suffix or path}'")
    vertex, depth, parent = result_columns(depth, parent, original_ids)
    with atomic_output(path) as f:
        if suffix == ".csv":
            f.write(b"vertex,depth,parent\n")
            step = 1 << 22
            for lo in range(0, vertex.size, step):
                cols = np.stack((vertex[lo:lo + step], depth[lo:lo + step], parent[lo:lo + step]))
                f.write(memoryview(format_rows(cols, ",")))
        elif suffix == ".npy":
            np.save(f, np.column_stack((vertex, depth, parent)))
        else:
            np.savez(f, vertex=vertex, depth=depth, parent=parent)
