"""Converting an edge list to the native format in bounded memory, spilling to disk.

``convert_edgelist(path, out)`` never holds the edge list or the graph's
neighbour array whole. It makes these passes, each over bounded chunks:

1. *Read*: the text is parsed block by block (``edgelist.edge_chunks``, the
   numba parser of the in-memory reader) and the int64 tuples are appended to
   two files in a temporary directory.
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
8 bytes per vertex (16 directed), the parser's block and one bucket's build.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
import zipfile
import zlib
from types import SimpleNamespace

import numpy as np
from numba import njit

from ...errors import InputError
from ...files import atomic_output, os_error
from ...progress import bar as progress_bar
from ..memory import GiB, available_bytes, csr_build_bytes, index_itemsize
from ..native import FORMAT_VERSION
from ..rowsort import sort_compact
from ._common import ReadStats, check_input, is_gzip, open_binary
from .edgelist import edge_chunks
from .edges import dense_ids, sparse_id_note

CHUNK = 1 << 22            # tuples per chunk of the count and partition passes
MAX_BUCKETS = 1 << 10      # bucket files open at once, per direction
MIN_BUCKET_ARCS = 1 << 16  # fewer arcs a bucket would cost more in file operations than it saves
BUILD_BYTES_PER_ARC = 32   # a bucket's build: its arc pairs, the neighbour ids and the sort scratch
SAMPLE = 1 << 20           # bytes of text sampled to estimate the tuple count


@njit(cache=True)
def _count(s, d, both, deg_a, deg_b):
    """Raw degrees of a chunk's arcs (self-loops skipped): deg_a by source, and by target into deg_b
    (deg_a itself when ``both``, an undirected graph). Returns the self-loops."""
    loops = 0
    for e in range(s.size):
        u = s[e]
        v = d[e]
        if u == v:
            loops += 1
            continue
        deg_a[u] += 1
        if both:
            deg_a[v] += 1
        elif deg_b.size:
            deg_b[v] += 1
    return loops


@njit(cache=True)
def _bucket(cuts, v):
    """The bucket b with cuts[b] <= v < cuts[b + 1] (binary search)."""
    lo = 0
    hi = cuts.size - 2
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if cuts[mid] <= v:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True)
def _file_arc(place, cuts, counts, out, a, c):
    """Count (``place`` False) or file (True) the arc a->c in the bucket of ``a``."""
    b = _bucket(cuts, a)
    if not place:
        counts[b + 1] += 1
        return
    out[counts[b], 0] = a - cuts[b]
    out[counts[b], 1] = c
    counts[b] += 1


@njit(cache=True)
def _partition(s, d, both, reverse, cuts, start, out):
    """Group the chunk's arcs by the bucket of their source into ``out`` rows (local source, target);
    ``start`` receives each bucket's first row. Arcs are s->d, d->s when ``reverse``, both when ``both``.
    A counting sort: the first pass counts the arcs per bucket, the second files them."""
    nb = cuts.size - 1
    counts = np.zeros(nb + 1, dtype=np.int64)
    for p in range(2):
        place = p == 1
        for e in range(s.size):
            u = s[e]
            v = d[e]
            if u == v:
                continue
            if both or not reverse:
                _file_arc(place, cuts, counts, out, u, v)
            if both or reverse:
                _file_arc(place, cuts, counts, out, v, u)
        if not place:
            for b in range(nb):
                counts[b + 1] += counts[b]
            start[:] = counts


@njit(cache=True)
def _place(arcs, cursor, indices):
    """indices[cursor[r]] := the target of each arc of local row r, advancing cursor[r]."""
    for j in range(arcs.shape[0]):
        r = arcs[j, 0]
        indices[cursor[r]] = arcs[j, 1]
        cursor[r] += 1


def estimate_in_memory_bytes(path, num_vertices=None, directed=False) -> int:
    """Peak bytes of reading ``path`` into memory and building its CSR, from a sample of its text:
    the parsed blocks and their concatenation (32 bytes a tuple), or the CSR build with the edge arrays."""
    path = check_input(path)
    size = os.path.getsize(path)
    if size == 0:
        return 0
    try:
        with open_binary(path, is_gzip(path)) as (stream, raw):
            head = stream.read(SAMPLE)
            consumed = max(1, raw.tell())
    except (OSError, EOFError, zlib.error):
        return 0                    # unreadable: the reader names the problem
    lines = head.count(b"\n") + (0 if head.endswith(b"\n") else 1)
    tuples = max(1, lines if len(head) < SAMPLE else int(lines * size / consumed))
    n = tuples if num_vertices is None else int(num_vertices)
    return max(32 * tuples, csr_build_bytes(n, tuples, bool(directed)))


def needs_bounded(path, *, memory=None, num_vertices=None, directed=False) -> bool:
    """True when the in-memory conversion's estimate exceeds 3/4 of ``memory`` bytes (default: the
    memory available, capped by ``$BREADTH_AVAILABLE_MEMORY``)."""
    budget = available_bytes() if memory is None else int(memory)
    return estimate_in_memory_bytes(path, num_vertices, directed) > 0.75 * budget


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


def _read_pass(path, spill, num_vertices, progress, stats, declared):
    """Pass 1: parse the text into the tuple files; returns (tuples, largest id or -1)."""
    m, hi = 0, -1
    with open(spill.path("src.bin"), "wb") as fs, open(spill.path("dst.bin"), "wb") as fd:
        for s, d in edge_chunks(path, num_vertices, progress, stats, declared):
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
        _partition(s, d, both, reverse, self.cuts, start, out)
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
                _place(arcs, cursor, indices)
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


def convert_edgelist(path, out, *, directed=None, relabel=False, num_vertices=None, index_dtype=None,
                     memory=None, spill_dir=None, progress=None) -> ReadStats:
    """Convert the edge list ``path`` to the native file ``out`` in bounded memory (module notes).

    ``memory``: bytes the conversion may use (default: what is available); ``spill_dir``: where the
    temporary directory goes (default: beside ``out``). Other arguments as ``breadth.read``.
    Returns the read statistics (``ReadStats``). Bad input raises InputError; no ``out`` then.
    """
    t0 = time.perf_counter()
    path = check_input(path)
    out = os.fspath(out)
    budget = available_bytes() if memory is None else int(memory)
    where = spill_dir if spill_dir is not None else os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(where):
        raise InputError(f"{where}: spill directory does not exist")
    stats = ReadStats(path, "edgelist")
    try:
        root = tempfile.mkdtemp(prefix=".breadth-convert-", dir=where)
    except OSError as exc:
        raise os_error(where, exc) from None
    try:
        _convert(path, out, _Spill(root), directed, relabel, num_vertices, index_dtype, budget, progress, stats)
    except OSError as exc:
        raise os_error(getattr(exc, "filename", None) or path, exc) from None
    finally:
        shutil.rmtree(root, ignore_errors=True)
    stats.seconds = time.perf_counter() - t0
    return stats


def _convert(path, out, spill, directed, relabel, num_vertices, index_dtype, budget, progress, stats):
    declared = {}
    m, hi = _read_pass(path, spill, num_vertices, progress, stats, declared)
    if directed is None:
        directed = bool(declared["directed"])
        if declared["directed"] is None and m:
            stats.notes.append(f"{os.path.basename(path)}: no directedness declared; "
                               "read as undirected (directed=True for a directed graph)")
    table = ids = None
    n = hi + 1 if declared["vertices"] is None else int(declared["vertices"])
    if relabel:
        table, ids = _relabel_table(spill, m, hi, budget, path) if m else (None, np.zeros(0, np.int64))
        n = ids.size
    idt = np.dtype(np.int32 if index_itemsize(n) == 4 else np.int64) if index_dtype is None else np.dtype(index_dtype)
    if idt == np.int32 and n > 2**31 - 1:
        raise InputError(f"{n} vertices do not fit int32 neighbour ids")
    kdt = np.int32 if n <= 2**31 - 1 else np.int64
    fixed = (16 if directed else 8) * (n + 1) + (0 if table is None else table.nbytes + ids.nbytes)
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
        loops += _count(s, d, not directed, sides[0].indptr[1:], sides[1].indptr[1:] if directed else empty)
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
        members.append(("vertex_ids", ids, None))
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
    stats.max_degree = max((int(np.diff(side.indptr).max()) for side in sides), default=0) if n else 0
    stats.relabelled = ids is not None
    view = SimpleNamespace(num_vertices=n, vertex_ids=ids, indptr=sides[0].indptr, directed=directed,
                           in_indptr=sides[-1].indptr)
    note = sparse_id_note(view, declared["vertices"] is not None and not relabel)
    if note:
        stats.notes.append(note)
