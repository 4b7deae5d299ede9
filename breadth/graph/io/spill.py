"""Converting a graph file to the native format in bounded memory, spilling to disk.

``convert_to_native(path, out)`` converts an edge list, a Matrix Market coordinate file
or a Graph500 binary (``convert_edgelist``: an edge list) without ever holding its
tuples or the graph's neighbour array whole. It makes these passes, each over bounded
chunks:

1. *Read*: the file is read chunk by chunk (``sources.tuple_chunks``: each format's
   reader with the checks and errors of its in-memory reader) and the int64 tuples are
   appended to two files in a temporary directory.
2. *Count*: the raw degree of every vertex (self-loops skipped; both
   directions of an undirected tuple) gives each row's start before
   deduplication; the rows are cut into buckets of about equal arc counts,
   small enough to build one at a time in the memory allowed.
3. *Partition*: every chunk of tuples is cut into its arcs, grouped by the
   bucket of their source vertex and appended to that bucket's file
   (int32 pairs while the ids fit).
4. *Build*: bucket by bucket, the arcs are placed into their rows, each row
   is sorted and deduplicated (``rowsort.sort_compact``, as the streaming
   build does) and the neighbour ids are appended to a file; the row offsets
   are kept (8 bytes per vertex).
5. *Write*: the ``.npz`` members are written in the order and layout
   ``np.savez`` gives them, the neighbour ids copied from their file, through
   ``files.atomic_output``: an error leaves no output file.

A directed graph partitions and builds its in-arcs the same way. The file holds
the arrays ``write(read(path), out)`` writes. ``relabel`` maps ids through a
table over 0..max id, refused (``InputError``) when it does not fit the memory
allowed. The temporary directory is removed at the end, pass or fail. Memory:
8 bytes per vertex (16 directed), the reader's chunk and one bucket's build.
``estimate_in_memory_bytes`` and ``needs_bounded`` (from ``sources``) choose between this
conversion and the in-memory one.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
import zipfile
from types import SimpleNamespace

import numpy as np

from ...docstrings import shared_args
from ...errors import InputError
from ...files import atomic_output, os_error
from ...progress import bar as progress_bar
from ..memory import GiB, available_bytes, index_itemsize
from ..native import FORMAT_VERSION, string_labels
from ..rowsort import sort_compact
from ._common import ReadStats, check_input, empty_error
from .edges import dense_ids, sparse_id_note
from .spill_kernels import count_degrees, partition_arcs, place_arcs
from .sources import BOUNDED_FORMATS, estimate_in_memory_bytes, needs_bounded, tuple_chunks

__all__ = ["convert_to_native", "convert_edgelist", "estimate_in_memory_bytes", "needs_bounded"]

CHUNK = 1 << 22            # tuples per chunk of the count and partition passes
MAX_BUCKETS = 1 << 10      # bucket files open at once, per direction
MIN_BUCKET_ARCS = 1 << 16  # fewer arcs a bucket would cost more in file operations than it saves
BUILD_BYTES_PER_ARC = 32   # a bucket's build: its arc pairs, the neighbour ids and the sort scratch


class _Spill:
    """The temporary directory's files: tuples, bucket arcs, neighbour ids."""

    def __init__(self, root):
        self.root = root

    def path(self, name):
        return os.path.join(self.root, name)

    def chunks(self, m):
        """(src, dst) int64 chunks of CHUNK tuples of the tuple files."""
        with open(self.path("src.bin"), "rb") as fs, open(self.path("dst.bin"), "rb") as fd:
            for start in range(0, m, CHUNK):
                k = min(CHUNK, m - start)
                yield np.fromfile(fs, np.int64, k), np.fromfile(fd, np.int64, k)


def _read_pass(chunks, spill):
    """Pass 1: the input's chunks into the tuple files; returns (tuples, largest id or -1)."""
    m, hi = 0, -1
    with open(spill.path("src.bin"), "wb") as fs, open(spill.path("dst.bin"), "wb") as fd:
        for chunk in chunks:
            if chunk is None:           # a file of vertex names: its dense ids follow from the start
                for f in (fs, fd):
                    f.seek(0)
                    f.truncate()
                m, hi = 0, -1
                continue
            s, d = chunk
            s.tofile(fs)
            d.tofile(fd)
            m += s.size
            hi = max(hi, int(s.max()), int(d.max()))
    return m, hi


def _size(nbytes) -> str:
    """A byte count for messages: GiB from 1 GiB up, else MiB."""
    return f"{nbytes / GiB:.1f} GiB" if nbytes >= GiB else f"{nbytes / (1 << 20):.1f} MiB"


def _relabel_table(spill, m, hi, budget, path):
    """(table old id -> new id, ids) over 0..hi, or InputError when the table does not fit."""
    need = 9 * (hi + 1)
    if need > budget // 2:
        raise InputError(f"{path}: relabelling needs a map of ids 0..{hi} (about {_size(need)}), more than "
                         f"half the {_size(budget)} allowed; raise --memory or convert without --relabel")
    return dense_ids(hi, spill.chunks(m))


def _cuts(raw_starts, arcs_per_bucket):
    """Bucket boundaries (vertex ids, first 0, last n) cutting the rows into runs of about
    ``arcs_per_bucket`` arcs (a row is never split)."""
    n = raw_starts.size - 1
    total = int(raw_starts[-1])
    per = max(arcs_per_bucket, -(-total // MAX_BUCKETS), 1)
    marks = np.searchsorted(raw_starts, np.arange(per, total, per, dtype=np.int64), side="right") - 1
    return np.unique(np.concatenate(([0], np.clip(marks, 0, n), [n]))).astype(np.int64)


class _Side:
    """One direction's rows: raw starts then final offsets (in place), bucket cuts and files."""

    def __init__(self, name, n, spill):
        self.name = name
        self.indptr = np.zeros(n + 1, dtype=np.int64)
        self.spill = spill
        self.cuts = None
        self.files = []

    def plan(self, arcs_per_bucket):
        np.cumsum(self.indptr[1:], out=self.indptr[1:])
        self.cuts = _cuts(self.indptr, arcs_per_bucket)

    def open(self):
        self.files = [open(self.spill.path(f"{self.name}{b}.arcs"), "wb") for b in range(self.cuts.size - 1)]

    def close(self):
        for f in self.files:
            f.close()

    def append(self, s, d, both, reverse, kdt):
        nb = self.cuts.size - 1
        arcs = s.size * (2 if both else 1)
        out = np.empty((arcs, 2), dtype=kdt)
        start = np.zeros(nb + 1, dtype=np.int64)
        partition_arcs(s, d, both, reverse, self.cuts, start, out)
        for b in range(nb):
            if start[b + 1] > start[b]:
                out[start[b]:start[b + 1]].tofile(self.files[b])

    def build(self, n, idt, kdt, bar):
        """Pass 4 for this side: the neighbour ids go to ``<name>.indices``; returns their count."""
        base = 0
        raw_lo = 0                       # raw start of the bucket's first row (indptr[lo] is final by then)
        with open(self.spill.path(f"{self.name}.indices"), "wb") as out:
            for b in range(self.cuts.size - 1):
                lo, hi = int(self.cuts[b]), int(self.cuts[b + 1])
                name = self.spill.path(f"{self.name}{b}.arcs")
                arcs = np.fromfile(name, dtype=kdt).reshape(-1, 2)
                os.unlink(name)
                rows = self.indptr[lo:hi + 1] - raw_lo
                rows[0] = 0
                raw_lo = int(self.indptr[hi])
                indices = np.empty(int(rows[-1]), dtype=idt)
                cursor = rows[:-1].copy()
                place_arcs(arcs, cursor, indices)
                del arcs, cursor
                # a view: sort_compact then copies the kept entries; shrinking each bucket's buffer
                # in place (realloc) left the freed pages resident, bucket after bucket
                indices = sort_compact(rows, indices[:], hi - lo, id_bound=n)
                indices.tofile(out)
                self.indptr[lo + 1:hi + 1] = base + rows[1:]
                base += int(rows[-1])
                bar.update(1)
        return base


def _npz_member(zf, name, array=None, *, dtype=None, count=0, source=None):
    """One ``.npy`` member as ``np.savez`` writes it: an array, or ``count`` items of ``dtype``
    copied from the file ``source``."""
    with zf.open(name + ".npy", "w", force_zip64=True) as fid:
        if array is not None:
            np.lib.format.write_array(fid, np.asanyarray(array), allow_pickle=False)
            return
        header = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
                  "shape": (count,)}
        np.lib.format.write_array_header_1_0(fid, header)
        with open(source, "rb") as f:
            shutil.copyfileobj(f, fid, 1 << 24)


# the converters' parameters (``breadth.docstrings.shared_args``)
_ARGS = {
    "out": "the native ``.npz`` file to write.",
    "directed": "as ``breadth.read``.",
    "relabel": "as ``breadth.read``.",
    "num_vertices": "as ``breadth.read``.",
    "index_dtype": "as ``breadth.read``.",
    "memory": "bytes the conversion may use (default: what is available).",
    "spill_dir": "where the temporary directory goes (default: beside ``out``).",
    "progress": "progress bars on stderr (None: only on a terminal).",
    "header": "as ``breadth.read``.",
    "allow_empty": "as ``breadth.read``.",
}


@shared_args(_ARGS)
def convert_to_native(path, out, *, format=None, directed=None, relabel=False, num_vertices=None,
                      index_dtype=None, memory=None, spill_dir=None, progress=None, header=None,
                      allow_empty=True) -> ReadStats:
    """Convert the graph file ``path`` to the native file ``out`` in bounded memory (module notes).

    The tuples are read in chunks and spilled to temporary files, then the CSR is built
    from them, so a file larger than memory converts; the result equals ``breadth.read``
    followed by ``breadth.save``.

    Args:
        path: the input file.
        format: one of ``sources.BOUNDED_FORMATS`` (edge list, Matrix Market, Graph500
            binary); inferred from the extension when None.
        relabel: as ``breadth.read`` (an edge list of vertex names keeps them as labels, whatever
            ``relabel``).

    Returns:
        The read statistics (``ReadStats``).

    Raises:
        InputError: bad input, with the in-memory reader's message; no ``out`` then.

    Examples:
        >>> from breadth.graph.io.spill import convert_to_native
        >>> np.savetxt("path.txt", [[0, 1], [1, 2], [2, 3]], fmt="%d")
        >>> convert_to_native("path.txt", "path.npz").edges
        3
        >>> breadth.load("path.npz")
        Graph(undirected, 4 vertices, 3 edges)
    """
    t0 = time.perf_counter()
    path = check_input(path)
    if format is None:
        from . import infer_format      # deferred: the package imports its readers, not this module

        format = infer_format(path)
    if format not in BOUNDED_FORMATS:
        raise InputError(f"{path}: the bounded-memory conversion reads {', '.join(BOUNDED_FORMATS)} files, "
                         f"not {format}")
    out = os.fspath(out)
    budget = available_bytes() if memory is None else int(memory)
    where = spill_dir if spill_dir is not None else os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(where):
        raise InputError(f"{where}: spill directory does not exist")
    stats = ReadStats(path, format)
    try:
        root = tempfile.mkdtemp(prefix=".breadth-convert-", dir=where)
    except OSError as exc:
        raise os_error(where, exc) from None
    declared = {}
    chunks = tuple_chunks(path, format, directed=directed, num_vertices=num_vertices, progress=progress,
                          stats=stats, declared=declared, header=header)
    try:
        _convert(path, out, _Spill(root), chunks, declared, directed, relabel, index_dtype, budget, progress,
                 stats, allow_empty)
    except OSError as exc:
        raise os_error(getattr(exc, "filename", None) or path, exc) from None
    finally:
        shutil.rmtree(root, ignore_errors=True)
    stats.seconds = time.perf_counter() - t0
    return stats


@shared_args(_ARGS)
def convert_edgelist(path, out, *, directed=None, relabel=False, num_vertices=None, index_dtype=None,
                     memory=None, spill_dir=None, progress=None, header=None, allow_empty=True) -> ReadStats:
    """``convert_to_native`` of an edge list (whatever the extension).

    Args:
        path: the edge-list file.

    Returns:
        The read statistics (``ReadStats``).

    Raises:
        InputError: bad input; no ``out`` then.

    Examples:
        >>> from breadth.graph.io.spill import convert_edgelist
        >>> np.savetxt("edges.dat", [[0, 1], [1, 2]], fmt="%d")
        >>> convert_edgelist("edges.dat", "edges.npz").vertices
        3
    """
    return convert_to_native(path, out, format="edgelist", directed=directed, relabel=relabel,
                             num_vertices=num_vertices, index_dtype=index_dtype, memory=memory,
                             spill_dir=spill_dir, progress=progress, header=header, allow_empty=allow_empty)


def _convert(path, out, spill, chunks, declared, directed, relabel, index_dtype, budget, progress, stats,
             allow_empty=True):
    m, hi = _read_pass(chunks, spill)
    labels = declared.get("labels")
    if not allow_empty and m == 0 and not declared["vertices"]:
        raise empty_error(path)
    if directed is None:
        directed = bool(declared["directed"])
        if declared["directed"] is None and m:
            stats.notes.append(f"{os.path.basename(path)}: no directedness declared; "
                               "read as undirected (directed=True for a directed graph)")
    table = ids = None
    n = hi + 1 if declared["vertices"] is None else int(declared["vertices"])
    if labels is not None:
        ids, n = labels, labels.size
    elif relabel:
        table, ids = _relabel_table(spill, m, hi, budget, path) if m else (None, np.zeros(0, np.int64))
        n = ids.size
    idt = np.dtype(np.int32 if index_itemsize(n) == 4 else np.int64) if index_dtype is None else np.dtype(index_dtype)
    if idt == np.int32 and n > 2**31 - 1:
        raise InputError(f"{n} vertices do not fit int32 neighbour ids")
    kdt = np.int32 if n <= 2**31 - 1 else np.int64
    fixed = (16 if directed else 8) * (n + 1) + (0 if table is None else table.nbytes + ids.nbytes) \
        + (0 if labels is None else 64 * n)
    if fixed > budget:
        raise InputError(f"{path}: the row offsets of {n:,} vertices need about {_size(fixed)}, more "
                         f"than the {_size(budget)} allowed")
    sides = [_Side("out", n, spill)] + ([_Side("in", n, spill)] if directed else [])
    empty = np.zeros(0, np.int64)

    def tuples(desc):
        with progress_bar(m, desc, progress, unit="tuples") as bar:
            for s, d in spill.chunks(m):
                if table is not None:
                    s, d = table[s], table[d]
                yield s, d
                bar.update(s.size)

    loops = 0
    for s, d in tuples("counting degrees"):
        loops += count_degrees(s, d, not directed, sides[0].indptr[1:], sides[1].indptr[1:] if directed else empty)
    per_bucket = max(MIN_BUCKET_ARCS, (budget - fixed) // 2 // BUILD_BYTES_PER_ARC)
    for side in sides:
        side.plan(per_bucket)
        side.open()
    try:
        for s, d in tuples("partitioning arcs"):
            for k, side in enumerate(sides):
                side.append(s, d, not directed, k == 1, kdt)
    finally:
        for side in sides:
            side.close()
    for name in ("src.bin", "dst.bin"):
        os.unlink(spill.path(name))
    buckets = sum(side.cuts.size - 1 for side in sides)
    with progress_bar(buckets, "building rows", progress, unit="buckets") as bar:
        counts = [side.build(n, idt, kdt, bar) for side in sides]
    members = [("indptr", sides[0].indptr, None), ("indices", None, (counts[0], "out.indices")),
               ("meta", np.array([FORMAT_VERSION, int(directed)], dtype=np.int64), None)]
    if directed:
        members += [("in_indptr", sides[1].indptr, None), ("in_indices", None, (counts[1], "in.indices"))]
    if ids is not None:
        members.append(("vertex_ids", string_labels(ids) if ids.dtype == object else ids, None))
    with atomic_output(out) as f, zipfile.ZipFile(f, mode="w", compression=zipfile.ZIP_STORED,
                                                  allowZip64=True) as zf:
        for name, array, spilled in members:
            if array is not None:
                _npz_member(zf, name, array)
            else:
                _npz_member(zf, name, dtype=idt, count=spilled[0], source=spill.path(spilled[1]))
    edges = counts[0] if directed else counts[0] // 2
    stats.tuples, stats.vertices, stats.edges, stats.directed = m, n, edges, bool(directed)
    stats.self_loops, stats.duplicates = loops, m - loops - edges
    maxima = [int(np.diff(side.indptr).max()) if n else 0 for side in sides]
    stats.max_out_degree, stats.max_in_degree = maxima[0], maxima[-1]
    stats.max_degree = max(maxima)
    stats.relabelled = ids is not None
    view = SimpleNamespace(num_vertices=n, vertex_ids=ids, indptr=sides[0].indptr, directed=directed,
                           in_indptr=sides[-1].indptr)
    note = sparse_id_note(view, declared["vertices"] is not None and not relabel)
    if note:
        stats.notes.append(note)
