"""The vertex ids the command line speaks: the graph's own labels when it has them.

A graph read from a file may carry labels (``Graph.vertex_ids``): the original
ids of a relabelled file (``convert --relabel``) or the string labels a native
file stores. Then every id a user types (``--root``, ``--sources``) is a label
and every id a command writes (result rows, JSON, the printed top list) is a
label too; ``--dense-ids`` switches both back to the internal numbering 0..n-1.
On a graph without labels the two are the same. ``VertexIds`` does the
translation for one graph; its errors end with a hint (the id range, or
``--dense-ids``).

Positional outputs (a bare ``.npy`` array whose index is the internal id) cannot
say which label each entry belongs to: on a labelled graph they are refused
unless ``--dense-ids`` is given, and the hint names the formats that carry the
labels (.csv, .npz).
"""
from __future__ import annotations

import os

import numpy as np

from ..errors import InputError
from ..files import check_writable

DENSE_HELP = ("read and write vertices by their internal ids 0..n-1 instead of the graph's own labels "
              "(original ids of a relabelled file, string labels of a native file)")


def add_ids_option(p):
    p.add_argument("--dense-ids", action="store_true", help=DENSE_HELP)


def _sample(values, k: int = 3) -> str:
    return ", ".join(repr(v) if isinstance(v, str) else str(v) for v in values[:k])


class VertexIds:
    """Translate between the ids of the command line and a graph's dense ids."""

    def __init__(self, graph, dense: bool = False, path: str = "the graph"):
        self.graph = graph
        self.n = graph.num_vertices
        self.path = os.path.basename(os.fspath(path))
        self.labels = None if dense else graph.vertex_ids
        self.strings = self.labels is not None and self.labels.dtype == object

    @property
    def labelled(self) -> bool:
        """True when ids on the command line are the graph's labels (not its dense ids)."""
        return self.labels is not None

    # ---------------------------------------------------------------- describing the ids
    def dense_range(self) -> str:
        return f"0..{self.n - 1}" if self.n else "none"

    def describe(self) -> str:
        """What the vertices are called, for messages."""
        if self.labels is None:
            return f"{self.path} has {self.n:,} vertices: {self.dense_range()}"
        if self.strings:
            return (f"{self.path} names its {self.n:,} vertices by string labels "
                    f"({_sample(self.labels.tolist())}, ...)")
        lo, hi = (int(self.labels.min()), int(self.labels.max())) if self.n else (0, 0)
        return f"{self.path} names its {self.n:,} vertices by their original ids, {lo} to {hi}"

    def hint(self) -> str:
        if self.labels is None:
            if self.graph.has_labels:
                return "--dense-ids is set: leave it out to use the graph's labels"
            return ""
        return f"--dense-ids takes the internal ids {self.dense_range()} instead"

    def missing(self, what: str, token) -> InputError:
        shown = repr(token) if isinstance(token, str) and self.strings else token
        hint = self.hint()
        return InputError(f"{what} {shown} does not exist: {self.describe()}" + (f" ({hint})" if hint else ""))

    # ---------------------------------------------------------------- ids in
    def parse(self, tokens, what: str = "root") -> np.ndarray:
        """Dense ids of the ids a user gave (strings from the command line or a file, or an array)."""
        tokens = list(tokens) if not isinstance(tokens, np.ndarray) else tokens
        if self.strings:
            items = [str(t) for t in (tokens.tolist() if isinstance(tokens, np.ndarray) else tokens)]
            return self._lookup(items, what)
        arr = self._integers(tokens, what)
        if self.labels is None:
            bad = (arr < 0) | (arr >= self.n)
            if bad.any():
                raise self.missing(what, int(arr[np.flatnonzero(bad)[0]]))
            return arr
        return self._lookup(arr, what)

    def _integers(self, tokens, what) -> np.ndarray:
        if isinstance(tokens, np.ndarray) and tokens.dtype.kind in "iu":
            return tokens.astype(np.int64).reshape(-1)
        items = tokens.tolist() if isinstance(tokens, np.ndarray) else tokens
        try:
            return np.array(items, dtype=np.int64).reshape(-1)
        except (ValueError, OverflowError, TypeError):
            pass
        for t in items:     # find the culprit for the message
            try:
                int(str(t).strip())
            except (ValueError, OverflowError):
                kind = "an original id" if self.labelled else "a vertex id"
                raise InputError(f"{what} {t!r} is not {kind} (an integer): {self.describe()}") from None
        raise InputError(f"{what}: ids out of the int64 range")

    def _lookup(self, items, what) -> np.ndarray:
        try:
            return self.graph.index_of(items if isinstance(items, np.ndarray) else list(items))
        except InputError:
            pass
        if self.strings:
            known = set(self.labels.tolist())
            bad = next(t for t in items if t not in known)
        else:
            arr = np.asarray(items, dtype=np.int64)
            bad = int(arr[np.flatnonzero(~np.isin(arr, self.labels))[0]])
        raise self.missing(what, bad) from None

    # ---------------------------------------------------------------- ids out
    def out(self, ids):
        """The command line's ids of dense ids: one id gives one value, an array an array."""
        if self.labels is None:
            return ids
        return self.graph.label_of(ids)

    def column(self, ids) -> np.ndarray:
        """A column of the command line's ids for a table (int64, or str for string labels)."""
        ids = np.asarray(ids, dtype=np.int64)
        if self.labels is None:
            return ids
        return self.labels[ids]

    def json(self, ids) -> list:
        """A JSON-ready list of the command line's ids of dense ids."""
        return np.asarray(self.out(np.asarray(ids, dtype=np.int64))).tolist()

    def check_output(self, path, option: str, suffixes: tuple, carriers: str) -> None:
        """Refuse an output name (None: no output) that does not end in one of ``suffixes``, then
        a bare positional array as ``check_positional`` does."""
        if path is None:
            return
        if not path.endswith(suffixes):
            raise InputError(f"{option} {path}: write {', '.join(suffixes[:-1])} or {suffixes[-1]}")
        self.check_positional(path, option, carriers)
        check_writable(path)

    def check_positional(self, path: str, option: str, carriers: str = ".csv or .npz (rows in labels)") -> None:
        """Refuse a bare positional array (.npy) on a labelled graph unless --dense-ids; ``carriers``
        names the outputs that hold the labels."""
        if self.labelled and path.endswith(".npy"):
            raise InputError(f"{option} {path}: a .npy array is indexed by internal ids and cannot hold "
                             f"{self.path}'s labels; write {carriers} or pass --dense-ids")
