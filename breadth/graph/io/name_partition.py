"""Vertex names to dense ids for a whole file at once (numba, parallel): hash, partition, number.

The in-memory reader's counterpart of ``name_table.NameTable``, which numbers a
stream batch by batch through one big hash table (every lookup then misses the
cache once the names outgrow it). ``encode_table(chunks)`` takes the first two
columns of every row (pyarrow string arrays, chunk by chunk) and numbers the
name occurrences, two per row, in four parallel passes:

1. *Count*: every occurrence is hashed and counted per (piece of rows,
   partition), its partition being bits 32.. of the hash; comment rows and bad
   names are found here (parallel over pieces).
2. *Scatter*: every occurrence's bytes and position (``2 * row + side``) go to
   its partition's window, one window per (partition, piece) laid out
   partition-major, so each partition holds its occurrences in row order.
3. *Number*: each partition, small enough for a core's cache, numbers its
   distinct names with its own hash table (low bits of the hash) and keeps the
   occurrence where each first appears (parallel over partitions).
4. *Renumber*: the names are ordered by first appearance (row, source before
   target: the ids ``NameTable`` and networkx's ``read_edgelist`` give) and
   every occurrence's id is written to the src/dst arrays.

Rules shared with ``name_table`` (its ``_trim`` and ``_hash``): spaces, tabs
and CRs around a name are not part of it; a row whose first field starts with
``#`` or ``%`` is a comment and is dropped; an empty name or a control byte
(binary data) stops the read at the first such row. Invariant: the ids depend
only on the rows' order, never on the thread count or the partitioning.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...jit import njit
from ..parallel import parallel_chunksize
from .name_table import BINARY, EMPTY, OK, _hash, _trim, string_column, string_objects

PART_VALUES = 1 << 16         # occurrences per partition: its table and bytes stay in cache
MAX_PARTS = 1 << 12           # scatter fan-out cap (write streams per piece)


@njit(cache=True)
def _fields(d0, p0, d1, p1, row):
    """(a, b, c, e, status): the trimmed byte ranges of the row's two names; status -1 for a comment row."""
    a, b = _trim(d0, p0[row], p0[row + 1])
    if b > a and (d0[a] == 35 or d0[a] == 37):       # '#' or '%': a comment line
        return a, b, a, b, -1
    c, e = _trim(d1, p1[row], p1[row + 1])
    if b == a or e == c:
        return a, b, c, e, EMPTY
    return a, b, c, e, OK


@njit(cache=True)
def _count_piece(d0, p0, d1, p1, lo, hi, pmask, nvals, nbytes):
    """Count the piece's occurrences and bytes per partition. Returns (kept rows, first bad row, status)."""
    kept = 0
    for row in range(lo, hi):
        a, b, c, e, status = _fields(d0, p0, d1, p1, row)
        if status == -1:
            continue
        if status != OK:
            return kept, row, status
        h0, bad0 = _hash(d0, a, b)
        h1, bad1 = _hash(d1, c, e)
        if bad0 or bad1:
            return kept, row, BINARY
        q = np.int64((h0 >> np.uint64(32)) & pmask)
        nvals[q] += 1
        nbytes[q] += b - a
        q = np.int64((h1 >> np.uint64(32)) & pmask)
        nvals[q] += 1
        nbytes[q] += e - c
        kept += 1
    return kept, -1, OK


@njit(parallel=True, cache=True)
def _count(d0, p0, d1, p1, bounds, pmask, nvals, nbytes, kept, bad_row, bad_status):
    for k in prange(bounds.size - 1):
        kept[k], bad_row[k], bad_status[k] = _count_piece(d0, p0, d1, p1, bounds[k], bounds[k + 1], pmask,
                                                          nvals[k], nbytes[k])


@njit(cache=True)
def _put(data, a, b, side, row, pmask, vpos, bpos, arena, ends, occ):
    h, _ = _hash(data, a, b)
    q = np.int64((h >> np.uint64(32)) & pmask)
    i = vpos[q]
    j = bpos[q]
    for k in range(b - a):          # names are short: a loop beats a slice copy's call
        arena[j + k] = data[a + k]
    ends[i] = j + b - a
    occ[i] = 2 * row + side
    vpos[q] = i + 1
    bpos[q] = j + b - a


@njit(cache=True)
def _scatter_piece(d0, p0, d1, p1, lo, hi, row, pmask, vpos, bpos, arena, ends, occ):
    for r in range(lo, hi):
        a, b, c, e, status = _fields(d0, p0, d1, p1, r)
        if status == -1:
            continue
        _put(d0, a, b, 0, row, pmask, vpos, bpos, arena, ends, occ)
        _put(d1, c, e, 1, row, pmask, vpos, bpos, arena, ends, occ)
        row += 1


@njit(parallel=True, cache=True)
def _scatter(d0, p0, d1, p1, bounds, rowbase, pmask, vpos, bpos, arena, ends, occ):
    for k in prange(bounds.size - 1):
        _scatter_piece(d0, p0, d1, p1, bounds[k], bounds[k + 1], rowbase[k], pmask, vpos[k], bpos[k],
                       arena, ends, occ)


@njit(cache=True)
def _start(ends, i):
    return ends[i - 1] if i > 0 else 0


@njit(cache=True)
def _same(arena, s, e, t, f):
    if e - s != f - t:
        return False
    for k in range(e - s):
        if arena[s + k] != arena[t + k]:
            return False
    return True


@njit(cache=True)
def _number_part(arena, ends, lo, hi, lid, rep):
    """Number the distinct names of occurrences lo..hi-1 from 0 in order (lid); lo + rep[lo + id] is
    the occurrence where name ``id`` first appears. Returns the partition's distinct count."""
    size = 16
    while size < 2 * (hi - lo):
        size *= 2
    mask = size - 1
    slots = np.full(size, -1, dtype=np.int32)
    hashes = np.empty(hi - lo, dtype=np.uint64)
    count = 0
    for i in range(lo, hi):
        s = _start(ends, i)
        e = ends[i]
        h, _ = _hash(arena, s, e)
        j = np.int64(h & np.uint64(mask))
        while True:
            x = slots[j]
            if x < 0:
                x = count
                slots[j] = x
                hashes[x] = h
                rep[lo + x] = i - lo
                count += 1
                break
            if hashes[x] == h:
                r = lo + rep[lo + x]
                if _same(arena, s, e, _start(ends, r), ends[r]):
                    break
            j = (j + 1) & mask
        lid[i] = x
    return count


@njit(parallel=True, cache=True)
def _number(arena, ends, pstart, lid, rep, distinct):
    for q in prange(pstart.size - 1):
        distinct[q] = _number_part(arena, ends, pstart[q], pstart[q + 1], lid, rep)


@njit(parallel=True, cache=True)
def _firsts(pstart, pbase, rep, occ, first, where):
    """For every global name id (partition base + local id): its first occurrence's position and index."""
    for q in prange(pstart.size - 1):
        for x in range(pbase[q + 1] - pbase[q]):
            i = pstart[q] + rep[pstart[q] + x]
            first[pbase[q] + x] = occ[i]
            where[pbase[q] + x] = i


@njit(parallel=True, cache=True)
def _emit(pstart, pbase, lid, occ, rank, src, dst):
    for q in prange(pstart.size - 1):
        for i in range(pstart[q], pstart[q + 1]):
            g = rank[pbase[q] + lid[i]]
            v = occ[i]
            if v & 1:
                dst[v >> 1] = g
            else:
                src[v >> 1] = g


@njit(parallel=True, cache=True)
def _gather_names(arena, ends, where, offsets, out):
    for r in prange(where.size):
        i = where[r]
        s = _start(ends, i)
        out[offsets[r]:offsets[r + 1]] = arena[s:ends[i]]


def _pieces(rows: int, per: int) -> np.ndarray:
    k = max(1, min(per, rows // 4096 + 1))
    return np.linspace(0, rows, k + 1).astype(np.int64)


def encode_table(chunks):
    with parallel_chunksize(1):         # pieces and partitions handed out one at a time: a busy core takes fewer
        return _encode_table(chunks)


def _encode_table(chunks):
    """(src ids, dst ids, labels, problem) of rows given as (col0, col1) pyarrow string arrays, chunk by
    chunk. ``labels``: the names in id order (object array of str). ``problem``: None, or (status, chunk,
    row) of the first row with an empty name or binary data (then the other results are None)."""
    cols = [(string_column(c0, widen=False), string_column(c1, widen=False)) for c0, c1 in chunks]
    per = 4 * numba.get_num_threads()
    bounds = [_pieces(p0.size - 1, per) for (_, p0), _ in cols]
    values = 2 * sum(p0.size - 1 for (_, p0), _ in cols)
    parts = 1
    while parts < MAX_PARTS and parts * PART_VALUES < values:
        parts *= 2
    pmask = np.uint64(parts - 1)
    npieces = sum(b.size - 1 for b in bounds)
    nvals = np.zeros((npieces, parts), dtype=np.int64)
    nbytes = np.zeros((npieces, parts), dtype=np.int64)
    kept = np.zeros(npieces, dtype=np.int64)
    base = 0
    for chunk, (((d0, p0), (d1, p1)), b) in enumerate(zip(cols, bounds)):      # 1. count
        k = b.size - 1
        bad_row = np.full(k, -1, dtype=np.int64)
        bad_status = np.zeros(k, dtype=np.int64)
        _count(d0, p0, d1, p1, b, pmask, nvals[base:base + k], nbytes[base:base + k], kept[base:base + k],
               bad_row, bad_status)
        hit = np.flatnonzero(bad_row >= 0)
        if hit.size:
            return None, None, None, (int(bad_status[hit[0]]), chunk, int(bad_row[hit[0]]))
        base += k
    # windows, partition-major then piece: occurrence and byte positions of every (piece, partition)
    vstart = np.cumsum(nvals.T.ravel()).reshape(parts, npieces).T - nvals
    bstart = np.cumsum(nbytes.T.ravel()).reshape(parts, npieces).T - nbytes
    pstart = np.zeros(parts + 1, dtype=np.int64)
    np.cumsum(nvals.sum(axis=0), out=pstart[1:])
    rowbase = np.cumsum(kept) - kept
    arena = np.empty(int(nbytes.sum()), dtype=np.uint8)
    ends = np.empty(values, dtype=np.int64)
    occ = np.empty(values, dtype=np.int64)
    base = 0
    for ((d0, p0), (d1, p1)), b in zip(cols, bounds):        # 2. scatter
        k = b.size - 1
        _scatter(d0, p0, d1, p1, b, rowbase[base:base + k], pmask, vstart[base:base + k].copy(),
                 bstart[base:base + k].copy(), arena, ends, occ)
        base += k
    del cols
    used = int(pstart[-1])
    ends, occ = ends[:used], occ[:used]
    lid = np.empty(used, dtype=np.int32)                     # 3. number each partition
    rep = np.empty(used, dtype=np.int32)
    distinct = np.zeros(parts, dtype=np.int64)
    _number(arena, ends, pstart, lid, rep, distinct)
    pbase = np.zeros(parts + 1, dtype=np.int64)
    np.cumsum(distinct, out=pbase[1:])
    names = int(pbase[-1])
    first = np.empty(names, dtype=np.int64)                  # 4. renumber by first appearance
    where = np.empty(names, dtype=np.int64)
    _firsts(pstart, pbase, rep, occ, first, where)
    del rep
    order = np.argsort(first)
    rank = np.empty(names, dtype=np.int64)
    rank[order] = np.arange(names, dtype=np.int64)
    rows = int(kept.sum())
    src = np.empty(rows, dtype=np.int64)
    dst = np.empty(rows, dtype=np.int64)
    _emit(pstart, pbase, lid, occ, rank, src, dst)
    del lid, occ, rank
    where = where[order]
    lengths = ends[where] - np.where(where > 0, ends[np.maximum(where - 1, 0)], 0)
    offsets = np.zeros(names + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.empty(int(offsets[-1]), dtype=np.uint8)
    _gather_names(arena, ends, where, offsets, data)
    return src, dst, string_objects(offsets, data), None
