"""Writing BFS results (depth and parent per vertex), atomically.

By extension:

* ``.csv``: a header ``vertex,depth,parent`` and one line per vertex;
* ``.npy``: one int64 array of shape (n, 3) with the same columns;
* ``.npz``: int64 arrays ``vertex``, ``depth``, ``parent``.

With ``original_ids`` (a graph's ``vertex_ids``) the ``vertex`` and ``parent``
columns hold its labels: original integer ids (an unreached vertex keeps depth
and parent -1, as with dense ids) or string labels (an unreached vertex has an
empty parent; .csv quotes labels holding commas or quotes; .npz stores numpy
unicode arrays; .npy, an int64 table, cannot hold them and is refused).
Other labels (tuples, mixed types) are refused.
"""
from __future__ import annotations

import csv
import io
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


def is_string_labels(ids) -> bool:
    """True for a numpy unicode array or an object array (labels other than int64 ids)."""
    return isinstance(ids, np.ndarray) and ids.dtype.kind in "OU"


def string_column(name, ids, n) -> np.ndarray:
    """String labels as a numpy unicode array of ``n`` entries; InputError for other labels."""
    if ids.ndim != 1 or ids.size != n:
        raise InputError(f"{name} has {ids.size} entries, expected {n}")
    if ids.dtype.kind == "U":
        return ids
    items = ids.tolist()
    if not all(isinstance(x, str) for x in items):
        kinds = " and ".join(sorted({type(x).__name__ for x in items}))
        raise InputError(f"{name} must be integer ids or string labels to be written, got {kinds}")
    return np.array(items, dtype=str) if items else np.zeros(0, dtype="<U1")


def result_columns(depth, parent, original_ids=None):
    """The (vertex, depth, parent) columns: int64, or vertex/parent as str labels (parent "" = none)."""
    depth = _as_ids("depth", depth)
    n = depth.size
    parent = _as_ids("parent", parent, n)
    if parent.size and (parent.min() < -1 or parent.max() >= n):
        raise InputError(f"parent entries must be -1 or a vertex in 0..{n - 1}")
    vertex = np.arange(n, dtype=np.int64)
    if original_ids is not None:
        if is_string_labels(original_ids):
            ids = string_column("original_ids", original_ids, n)
            return ids, depth, np.where(parent >= 0, ids[np.maximum(parent, 0)], "")
        ids = _as_ids("original_ids", original_ids, n)
        vertex = ids
        parent = np.where(parent >= 0, ids[np.maximum(parent, 0)], -1)
    return vertex, depth, parent


def write_csv_rows(f, header: str, columns, step: int = 1 << 16) -> None:
    """Rows of mixed columns (numpy arrays of str, int or float) to the binary file ``f``, csv-quoted."""
    text = io.TextIOWrapper(f, encoding="utf-8", newline="", write_through=True)
    try:
        text.write(header + "\n")
        writer = csv.writer(text, lineterminator="\n")
        for lo in range(0, len(columns[0]), step):
            writer.writerows(zip(*(c[lo:lo + step].tolist() for c in columns)))
        text.flush()
    finally:
        text.detach()


def write_result(path, depth, parent, original_ids=None) -> None:
    """Write one BFS result to ``path`` (.csv, .npy or .npz; see the module docstring), atomically.

    Args:
        path: the output file; its extension chooses the format: ``.csv`` (a header
            ``vertex,depth,parent`` and a line per vertex), ``.npy`` (an int64 (n, 3) table)
            or ``.npz`` (arrays ``vertex``, ``depth``, ``parent``).
        depth: the depth of every vertex (-1 where unreached).
        parent: the BFS parent of every vertex (-1 where unreached).
        original_ids: the graph's ``vertex_ids``: write labels instead of dense ids in the
            ``vertex`` and ``parent`` columns (string labels are refused by ``.npy``).

    Raises:
        InputError: another extension, or labels the chosen format cannot hold.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> r = breadth.bfs(g, 0)
        >>> breadth.write_result("r.csv", r.depth, r.parent)
        >>> print(open("r.csv").read(), end="")
        vertex,depth,parent
        0,0,0
        1,1,0
        2,2,1
        3,3,2
    """
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in RESULT_SUFFIXES:
        raise InputError(f"{path}: results are written as {', '.join(RESULT_SUFFIXES)}; got '{suffix or path}'")
    vertex, depth, parent = result_columns(depth, parent, original_ids)
    labels = vertex.dtype.kind == "U"
    if labels and suffix == ".npy":
        raise InputError(f"{path}: a .npy result is an int64 table; string labels are written as .csv or .npz")
    with atomic_output(path) as f:
        if labels and suffix == ".csv":
            write_csv_rows(f, "vertex,depth,parent", (vertex, depth, parent))
        elif suffix == ".csv":
            f.write(b"vertex,depth,parent\n")
            step = 1 << 22
            for lo in range(0, vertex.size, step):
                cols = np.stack((vertex[lo:lo + step], depth[lo:lo + step], parent[lo:lo + step]))
                f.write(memoryview(format_rows(cols, ",")))
        elif suffix == ".npy":
            np.save(f, np.column_stack((vertex, depth, parent)))
        else:
            np.savez(f, vertex=vertex, depth=depth, parent=parent)
