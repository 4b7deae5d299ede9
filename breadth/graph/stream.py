"""Streaming CSR construction: the CSR of a tuple list that is never held whole.

A *tuple source* hands out any slice [start, stop) of its tuples on demand
(a counter-based generator regenerates it, a file reader reads it again). The
build makes two passes over the source, chunk by chunk, in bounded buffers:

1. *Count*: every chunk's arcs (both directions of an undirected tuple,
   self-loops skipped) are partitioned by the source vertex's range (one part
   per range of ``2^pshift`` vertices, a few streams per thread) and each part
   adds its arcs to the raw degrees, so no two threads write one counter.
   The raw degrees give ``indptr``; they are also what the Graph500 TEPS edge
   count needs (tuple endpoints, duplicates counted).
2. *Place*: the source is read again, partitioned the same way, and each part
   writes its arcs' targets into ``indices`` at its rows' cursors (the cursors
   are ``indptr[1:]`` itself, shifted down by one row, so no cursor array).
3. *Sort and deduplicate* every row in place (``graph/rowsort.py``: parallel over blocks of rows,
   dynamically scheduled; rows above ``HUB`` entries are radix-sorted
   afterwards, several at a time when their scratch fits), then *compact*
   the surviving entries within each block, move the blocks down, and
   give back the unused tail of ``indices``.

The result is the same CSR as ``build.build_csr`` of the whole tuple list:
rows sorted, duplicates and self-loops dropped, ``indptr`` int64. The peak is
``indices`` before deduplication (the index itemsize per arc) plus three
int64 arrays per vertex (indptr, raw degrees, unique counts) plus the chunk
buffers.
"""
from __future__ import annotations

import time
from abc import ABC, abstractmethod

import numba
import numpy as np
from numba import prange

from ..errors import InputError
from ..jit import njit
from .memory import check_fits, choose_index_dtype, stream_build_bytes
from .radix import tally
from .rowsort import sort_compact as _sort_compact

CHUNK = 1 << 22          # tuples per chunk: 64 MiB of int64 tuples, about as much again of arcs
ROW_BLOCK = 1 << 12      # vertices per block of the degree sum
MAX_PARTS = 1 << 12      # partition fan-out cap (write streams per sub-chunk)
PART_ARCS = 1 << 16      # arcs of the graph per part, when the cap allows

BOTH, OUT, IN = 0, 1, 2  # which arcs a tuple (s, d) gives: s->d and d->s, s->d, d->s


class TupleSource(ABC):
    """Slices of a tuple list on demand: ``fill(start, stop, src, dst)`` writes tuples [start, stop)
    into the first ``stop - start`` entries of two int64 arrays. Subclasses set ``num_tuples`` and
    ``num_vertices`` (every id is below it)."""

    num_tuples: int = 0
    num_vertices: int = 0

    @abstractmethod
    def fill(self, start: int, stop: int, src: np.ndarray, dst: np.ndarray) -> None:
        """Write tuples [start, stop) into ``src`` and ``dst``."""

    def count_arcs(self, start: int, stop: int, mode: int, counts: np.ndarray) -> int | None:
        """A source that can make its tuples inside a kernel overrides this: add the arcs of tuples
        [start, stop) to ``counts[t, source vertex]`` (one row per thread) and return their
        self-loops, fusing generation with the count pass. None: the build fills chunks instead."""
        return None


@njit(parallel=True, cache=True)
def _count_parts(src, dst, k, mode, pshift, counts, loops):
    """counts[c, p] := arcs of sub-chunk c of tuples [0, k) whose source lies in part p;
    loops[c] += its self-loops."""
    nsub = counts.shape[0]
    for c in prange(nsub):
        row = counts[c]
        row[:] = 0
        lp = 0
        for e in range(k * c // nsub, k * (c + 1) // nsub):
            lp += tally(row, src[e], dst[e], pshift, mode != IN, mode != OUT)
        loops[c] += lp


@njit(inline="always", cache=True)
def _put(row, p, arc_s, arc_d, a, b, targets):
    """Arc a->b at the next slot of part p (row[p]), advancing it; the target only when ``targets``."""
    j = row[p]
    arc_s[j] = a
    if targets:
        arc_d[j] = b
    row[p] = j + 1


@njit(parallel=True, cache=True)
def _scatter_parts(src, dst, k, mode, pshift, pos, arc_s, arc_d, targets):
    """Sub-chunk c writes its arcs (source, and target when ``targets``) at pos[c, part], advancing it."""
    nsub = pos.shape[0]
    for c in prange(nsub):
        row = pos[c]
        for e in range(k * c // nsub, k * (c + 1) // nsub):
            s = src[e]
            d = dst[e]
            if s == d:
                continue
            if mode != IN:
                _put(row, s >> pshift, arc_s, arc_d, s, d, targets)
            if mode != OUT:
                _put(row, d >> pshift, arc_s, arc_d, d, s, targets)


@njit(parallel=True, cache=True)
def _add_degrees(arc_s, pstart, deg):
    """deg[v] += arcs of source v; one part's vertices belong to one iteration."""
    for p in prange(pstart.size - 1):
        for j in range(pstart[p], pstart[p + 1]):
            deg[arc_s[j]] += 1


@njit(parallel=True, cache=True)
def _place(arc_s, arc_d, pstart, cursor, indices):
    """indices[cursor[s]] := target of each arc of source s, advancing cursor[s]."""
    for p in prange(pstart.size - 1):
        for j in range(pstart[p], pstart[p + 1]):
            s = arc_s[j]
            indices[cursor[s]] = arc_d[j]
            cursor[s] += 1


@njit(cache=True)
def _exclusive_scan(a):
    """a := its exclusive prefix sum, in place; returns the total."""
    run = 0
    for i in range(a.size):
        t = a[i]
        a[i] = run
        run += t
    return run


def _layout(n, arcs):
    """(pshift, number of parts): vertex ranges of 2^pshift ids, each part's rows about PART_ARCS
    arcs (their cursors and entries stay in cache while the part is placed)."""
    bits = max(1, (max(n, 1) - 1).bit_length())
    want = min(MAX_PARTS, max(1, arcs // PART_ARCS))
    pshift = max(0, bits - max(0, (want - 1).bit_length()))
    return pshift, (max(n, 1) - 1 >> pshift) + 1


class _Pass:
    """The chunk buffers and partition arrays of one streaming build, reused by both passes."""

    def __init__(self, source, mode, idt, chunk):
        self.source = source
        self.mode = mode
        self.chunk = max(1, min(chunk, source.num_tuples))
        nthreads = numba.get_num_threads()
        self.nsub = max(1, min(4 * nthreads, self.chunk // 4096 + 1))
        self.pshift, self.nparts = _layout(source.num_vertices, source.num_tuples * (2 if mode == BOTH else 1))
        arcs = self.chunk * (2 if mode == BOTH else 1)
        self.src = np.empty(self.chunk, dtype=np.int64)
        self.dst = np.empty(self.chunk, dtype=np.int64)
        self.arc_s = np.empty(arcs, dtype=idt)
        self.arc_d = np.empty(arcs, dtype=idt)
        self.counts = np.empty((self.nsub, self.nparts), dtype=np.int64)
        self.fill_seconds = 0.0
        self.phase = {"partition": 0.0, "apply": 0.0}

    def run(self, apply, bar):
        """Fill each chunk from the source (timed apart), partition its arcs and ``apply(arc_s,
        arc_d, pstart)``; returns the self-loops seen."""
        m = self.source.num_tuples
        loops = np.zeros(self.nsub, dtype=np.int64)
        targets = apply is not None and apply[1]
        for start in range(0, m, self.chunk):
            stop = min(m, start + self.chunk)
            k = stop - start
            t0 = time.perf_counter()
            self.source.fill(start, stop, self.src, self.dst)
            t1 = time.perf_counter()
            self.fill_seconds += t1 - t0
            _count_parts(self.src, self.dst, k, self.mode, self.pshift, self.counts, loops)
            per_part = self.counts.sum(axis=0)
            pstart = np.zeros(self.nparts + 1, dtype=np.int64)
            np.cumsum(per_part, out=pstart[1:])
            pos = np.cumsum(self.counts, axis=0) - self.counts + pstart[:-1]
            _scatter_parts(self.src, self.dst, k, self.mode, self.pshift, pos, self.arc_s, self.arc_d, targets)
            t2 = time.perf_counter()
            apply[0](self.arc_s, self.arc_d, pstart)
            t3 = time.perf_counter()
            self.phase["partition"] += t2 - t1
            self.phase["apply"] += t3 - t2
            bar.update(k)
        return int(loops.sum())


@njit(parallel=True, cache=True)
def _sum_rows(counts, deg):
    """deg[v] += sum over rows of counts[:, v], in blocks of vertices."""
    n = deg.size
    for b in prange((n + ROW_BLOCK - 1) // ROW_BLOCK):
        for v in range(b * ROW_BLOCK, min(n, (b + 1) * ROW_BLOCK)):
            t = 0
            for r in range(counts.shape[0]):
                t += counts[r, v]
            deg[v] += t


def _fused_count(source, mode, chunk, deg, bar):
    """The count pass as the source's own generate-and-count kernel (``TupleSource.count_arcs``)
    into one counter row per thread, when the rows take no more memory than the arcs' ``indices``
    will (so the build's peak stays where it is); returns the self-loops, or None."""
    m = int(source.num_tuples)
    n = deg.size
    rows = numba.get_num_threads()
    cdt = np.int32 if m < 2**31 else np.int64
    if rows * n * np.dtype(cdt).itemsize > m * (2 if mode == BOTH else 1) * 4:
        return None
    counts = np.zeros((rows, n), dtype=cdt)
    loops = 0
    for start in range(0, m, chunk):
        stop = min(m, start + chunk)
        got = source.count_arcs(start, stop, mode, counts)
        if got is None:
            return None
        loops += got
        bar.update(stop - start)
    _sum_rows(counts, deg)
    return loops


def _check_source(source):
    m = int(source.num_tuples)
    n = int(source.num_vertices)
    if m < 0 or n < 0:
        raise InputError(f"a tuple source needs non-negative sizes, got {m} tuples and {n} vertices")
    return m, n


def stream_csr(source: TupleSource, mode=BOTH, index_dtype=None, *, chunk=CHUNK, progress=None):
    """The CSR of ``source``'s arcs (``mode``: BOTH for an undirected graph, OUT or IN for one side
    of a directed one), built in two streaming passes; see the module docstring.

    Returns (indptr int64, indices, raw degree int64 per vertex (arcs before deduplication), self-loop
    count, seconds) where seconds = {"fill": time spent filling chunks in the count pass (the whole
    count pass when the source generates and counts in one kernel), "refill":
    in the place pass, "build": the rest}. Raises MemoryEstimateError before the big allocations.
    """
    from ..progress import bar as progress_bar

    m, n = _check_source(source)
    idt = choose_index_dtype(n, index_dtype)
    check_fits("building the CSR", stream_build_bytes(n, m, mode != BOTH, np.dtype(idt).itemsize, chunk))
    t_start = time.perf_counter()
    indptr = np.zeros(n + 1, dtype=np.int64)
    deg = indptr[1:]
    ps = _Pass(source, mode, idt, chunk) if m else None
    loops = 0
    fill = refill = 0.0
    if m:
        with progress_bar(m, "streaming build: count", progress, unit="tuples") as bar:
            fused = _fused_count(source, mode, chunk, deg, bar)
            loops = fused if fused is not None else ps.run((lambda s, d, pstart: _add_degrees(s, pstart, deg), False), bar)
        fill = time.perf_counter() - t_start if fused is not None else ps.fill_seconds
    raw = deg.copy()
    total = _exclusive_scan(deg)           # deg[v] = indptr[v + 1] := start of row v
    indices = np.empty(total, dtype=idt)
    if m:
        ps.fill_seconds = 0.0
        with progress_bar(m, "streaming build: place", progress, unit="tuples") as bar:
            ps.run((lambda s, d, pstart: _place(s, d, pstart, deg, indices), True), bar)
        refill = ps.fill_seconds
    ps_phase = ps.phase if ps is not None else None
    del ps                                  # indptr[v + 1] is now the end of row v
    t_sort = time.perf_counter()
    indices = _sort_compact(indptr, indices, n)
    t_end = time.perf_counter()
    seconds = {"fill": fill, "refill": refill, "build": t_end - t_start - fill - refill,
               "sort": t_end - t_sort, **(ps_phase or {})}
    return indptr, indices, raw, int(loops), seconds


class _ArraySource(TupleSource):
    def __init__(self, src, dst, n):
        self._s, self._d = src, dst
        self.num_tuples, self.num_vertices = src.size, n

    def fill(self, start, stop, src, dst):
        src[:stop - start] = self._s[start:stop]
        dst[:stop - start] = self._d[start:stop]


def warm_up():
    """Load (or compile) every kernel of the streaming build, hub paths included, on a tiny graph."""
    src = np.array([0, 0, 1, 2, 2, 3, 3, 3], dtype=np.int64)
    dst = np.array([1, 1, 2, 2, 3, 0, 1, 2], dtype=np.int64)
    for mode in (BOTH, OUT):
        stream_csr(_ArraySource(src, dst, 4), mode, progress=False)
    for par in (True, False):
        indptr = np.array([0, 3, 3, 3, 3], dtype=np.int64)
        _sort_compact(indptr, np.array([2, 1, 2], dtype=np.int32), 4, 1, par)
