"""Vertex labels: the user's own names for a graph's vertices, and the maps to and from dense ids.

A ``breadth.Graph`` numbers its vertices densely 0..n-1 (the ids every kernel,
root, parent and depth speaks in). ``Graph.vertex_ids`` optionally gives each
vertex a label of the user's:

* ``None``: the labels are the ids themselves;
* an int64 array: every label is an integer in 0..2^63-1 (the original ids of a
  relabelled file, the nodes of a networkx graph numbered that way);
* an object array: any other hashable labels (strings, tuples, negative or huge
  integers, a mix), e.g. the nodes of a networkx graph in ``list(G)`` order.

Labels are unique. ``Graph.index_of`` maps labels to ids and ``Graph.label_of``
ids to labels; both follow one rule for "one or several": a ``list``, a
``range`` or a numpy array holds several labels (or ids) and gives back an
array, anything else (an int, a str, a **tuple**, ...) is one label and gives
back one value. Tuples are single labels because they are nodes in networkx
(``grid_2d_graph`` labels its nodes ``(row, column)``). Integer labels are looked
up as integers: on an int64-labelled graph only integers can be labels.
The lookup index (a sort order for integer labels, a dict for the others) is
built on first use and dropped when ``vertex_ids`` is replaced.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import InputError

INT64_MAX = 2**63 - 1


def is_int_label(x) -> bool:
    """A label stored in an int64 labels array: a non-negative integer below 2^63 (not a bool)."""
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)) and 0 <= x <= INT64_MAX


def several(x) -> bool:
    """The one rule: a list, a range or a numpy array holds several labels or ids."""
    return isinstance(x, (list, range, np.ndarray))


def object_array(items, count: int) -> np.ndarray:
    """A 1-D object array of ``items`` (tuples stay single elements, unlike np.array)."""
    return np.fromiter(items, dtype=object, count=count)


def labels_array(labels: list) -> np.ndarray | None:
    """The storage form of a list of labels: None when they are exactly 0..n-1 in order, an int64
    array when every label is an integer in 0..2^63-1, otherwise an object array."""
    n = len(labels)
    if all(map(is_int_label, labels)):
        arr = np.fromiter(labels, dtype=np.int64, count=n)
        return None if np.array_equal(arr, np.arange(n)) else arr
    return object_array(labels, n)


def normalise(ids, n: int) -> np.ndarray | None:
    """``vertex_ids`` as stored: None, an int64 array or an object array of ``n`` labels.

    A numpy integer array is kept as int64 ids (value checks are ``Graph.check``'s);
    a numpy string or object array becomes an object array; any other numpy dtype is
    refused. A Python sequence of integers becomes int64, of anything else object labels.
    """
    if ids is None:
        return None
    if isinstance(ids, np.ndarray):
        if ids.dtype.kind in "iu":
            arr = ids.astype(np.int64, copy=False)
        elif ids.dtype.kind in "OUS":
            arr = ids if ids.dtype == object else ids.astype(object)
        else:
            raise InputError(f"vertex_ids must be {n} integer ids or labels, got dtype {ids.dtype}")
    else:
        try:
            items = list(ids)
        except TypeError:
            raise InputError(f"vertex_ids must be a sequence of {n} labels, got {type(ids).__name__}") from None
        if all(isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)) for x in items):
            try:
                arr = np.array(items, dtype=np.int64).reshape(len(items))
            except OverflowError:
                arr = object_array(items, len(items))
        else:
            arr = object_array(items, len(items))
    if arr.ndim != 1 or arr.size != n:
        raise InputError(f"vertex_ids must be {n} integer ids or labels, got shape {arr.shape} dtype {arr.dtype}")
    return arr


def check_values(ids: np.ndarray) -> None:
    """Integer labels must be non-negative (they are ids of relabelled files)."""
    if ids.dtype != object and ids.size and ids.min() < 0:
        raise InputError("vertex_ids must be non-negative")


class LabelIndex:
    """Label -> id lookups for one labels array: a sort order (int64 labels) or a dict (object labels)."""

    def __init__(self, ids: np.ndarray):
        self.ids = ids
        n = ids.size
        if ids.dtype == object:
            try:
                self.map = dict(zip(ids.tolist(), range(n)))
            except TypeError as exc:
                raise InputError(f"vertex_ids must be hashable labels ({exc})") from None
            if len(self.map) != n:
                seen = set()
                for x in ids.tolist():
                    if x in seen:
                        raise InputError(f"vertex_ids has the label {x!r} more than once")
                    seen.add(x)
            self.sorter = self.sorted = None
        else:
            self.map = None
            self.sorter = np.argsort(ids, kind="stable")
            self.sorted = ids[self.sorter]
            dup = np.flatnonzero(self.sorted[1:] == self.sorted[:-1])
            if dup.size:
                raise InputError(f"vertex_ids has the label {int(self.sorted[dup[0]])} more than once")

    def one(self, label) -> int:
        if self.map is not None:
            try:
                return self.map[label]
            except (KeyError, TypeError):
                raise unknown(label) from None
        if not is_int_label(label):
            raise unknown(label)
        pos = int(np.searchsorted(self.sorted, label))
        if pos == self.sorted.size or self.sorted[pos] != label:
            raise unknown(label)
        return int(self.sorter[pos])

    def many(self, labels) -> np.ndarray:
        if self.map is None:
            arr = np.asarray(labels)
            if arr.ndim == 1 and arr.dtype.kind in "iu" and (arr.size == 0 or arr.max() <= INT64_MAX):
                return self._search(arr.astype(np.int64, copy=False))
        return np.fromiter(map(self.one, _items(labels)), dtype=np.int64)

    def _search(self, arr: np.ndarray) -> np.ndarray:
        """Ids of int64 labels, vectorised."""
        if self.sorted.size == 0:
            if arr.size:
                raise unknown(arr[0].item())
            return np.zeros(0, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.sorted, arr), self.sorted.size - 1)
        ok = self.sorted[pos] == arr
        if not ok.all():
            raise unknown(arr[np.flatnonzero(~ok)[0]].item())
        return self.sorter[pos].astype(np.int64, copy=False)


def _items(labels) -> list:
    return labels.tolist() if isinstance(labels, np.ndarray) else list(labels)


def unknown(label) -> InputError:
    return InputError(f"label {label!r} is not a vertex of the graph")


def identity_index_of(labels, n: int):
    """``index_of`` of a graph without labels: the labels are the ids 0..n-1."""
    def one(x) -> int:
        if not is_int_label(x) or x >= n:
            raise InputError(f"label {x!r} is not a vertex of the graph (it has no labels: its vertices "
                             f"are {'0..' + str(n - 1) if n else 'none'})")
        return int(x)

    if not several(labels):
        return one(labels)
    arr = np.asarray(labels)
    if arr.ndim == 1 and arr.dtype.kind == "i":
        bad = (arr < 0) | (arr >= n)
        if bad.any():
            one(arr[np.flatnonzero(bad)[0]].item())
        return arr.astype(np.int64, copy=False)
    return np.fromiter(map(one, _items(labels)), dtype=np.int64)


def label_of(ids_array: np.ndarray | None, ids, n: int):
    """Labels of dense ids: one id gives one label, a list/range/array an array of them."""
    def bad(i):
        span = f"0..{n - 1}" if n else "none"
        return InputError(f"vertex id {i!r} is out of range (graph has {n} vertices: {span})")

    if not several(ids):
        if not isinstance(ids, numbers.Integral) or isinstance(ids, (bool, np.bool_)) or not 0 <= ids < n:
            raise bad(ids)
        if ids_array is None:
            return int(ids)
        label = ids_array[int(ids)]
        return label if ids_array.dtype == object else int(label)
    arr = np.asarray(ids)
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "iu":
        raise InputError(f"ids must be a 1-D array of integer vertex ids, got shape {arr.shape} dtype {arr.dtype}")
    out = (arr < 0) | (arr >= n)
    if out.any():
        raise bad(arr[np.flatnonzero(out)[0]].item())
    arr = arr.astype(np.int64, copy=False)
    return arr.copy() if ids_array is None else ids_array[arr]
