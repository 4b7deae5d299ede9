"""Sort, deduplicate and compact the rows of a CSR whose rows hold unsorted targets in place (the
last step of the streaming build, ``graph/stream.py``).

Every row is sorted in place (parallel over blocks of rows, dynamically scheduled: insertion sort,
quicksort or LSD radix sort by row size); rows above ``HUB`` entries are radix-sorted afterwards,
several at a time when their scratch fits. Each block then moves its rows' distinct prefixes
together, the blocks move down to be contiguous, and the unused tail of ``indices`` is given back.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ..jit import njit
from .parallel import parallel_chunksize
from .radix import _insertion_sort, _radix_sort, DIGIT, SMALL

HUB = 1 << 16            # rows above this are radix-sorted after the block loop
RADIX_ROW = 1 << 8       # rows above this are radix-sorted (quicksort below)
ROW_BLOCK = 1 << 12      # rows per block of the sort and compaction loops


@njit(cache=True)
def _dedupe(a):
    """Number of distinct values of the sorted ``a``, moved to its front."""
    if a.size == 0:
        return 0
    u = 1
    for j in range(1, a.size):
        if a[j] != a[u - 1]:
            a[u] = a[j]
            u += 1
    return u


@njit(parallel=True, cache=True)
def _sort_rows(indptr, indices, uniq, hub, key_bits, tmp):
    """Sort and deduplicate every row of at most ``hub`` entries in place (uniq[v] := its distinct
    count): insertion sort up to SMALL entries, quicksort up to RADIX_ROW, LSD radix sort above
    (with this thread's row of ``tmp``). Larger rows get uniq[v] = -1, left for ``_sort_hubs``."""
    n = indptr.size - 1
    hists = np.empty((tmp.shape[0], (key_bits + DIGIT - 1) // DIGIT, 1 << DIGIT), dtype=np.int64)
    for b in prange((n + ROW_BLOCK - 1) // ROW_BLOCK):
        t = numba.get_thread_id()
        for v in range(b * ROW_BLOCK, min(n, (b + 1) * ROW_BLOCK)):
            lo = indptr[v]
            hi = indptr[v + 1]
            if hi - lo > hub:
                uniq[v] = -1
                continue
            a = indices[lo:hi]
            if hi - lo <= SMALL:
                _insertion_sort(a)
            elif hi - lo <= RADIX_ROW:
                a.sort()
            else:
                a[:] = _radix_sort(a, tmp[t], hists[t], key_bits)
            uniq[v] = _dedupe(a)


@njit(cache=True)
def _sort_hub(a, tmp, hist, key_bits):
    s = _radix_sort(a, tmp, hist, key_bits)
    a[:] = s                  # the sorted keys may have ended in tmp (a self-copy otherwise)
    return _dedupe(a)


@njit(parallel=True, cache=True)
def _sort_hubs(indptr, indices, hubs, uniq, tmp, key_bits):
    """Radix-sort and deduplicate the rows ``hubs``, one per thread with its row of ``tmp``."""
    hist = np.empty((tmp.shape[0], (key_bits + DIGIT - 1) // DIGIT, 1 << DIGIT), dtype=np.int64)
    for i in prange(hubs.size):
        v = hubs[i]
        t = numba.get_thread_id()
        uniq[v] = _sort_hub(indices[indptr[v]:indptr[v + 1]], tmp[t], hist[t], key_bits)


@njit(cache=True)
def _sort_hubs_serial(indptr, indices, hubs, uniq, tmp, key_bits):
    """``_sort_hubs`` one row after another with one scratch array."""
    hist = np.empty(((key_bits + DIGIT - 1) // DIGIT, 1 << DIGIT), dtype=np.int64)
    for v in hubs:
        uniq[v] = _sort_hub(indices[indptr[v]:indptr[v + 1]], tmp, hist, key_bits)


@njit(parallel=True, cache=True)
def _compact_blocks(indptr, indices, uniq, blen):
    """Within each block of rows, move the rows' distinct prefixes together to the block's start."""
    n = indptr.size - 1
    for b in prange(blen.size):
        v0 = b * ROW_BLOCK
        w = indptr[v0]
        for v in range(v0, min(n, v0 + ROW_BLOCK)):
            lo = indptr[v]
            u = uniq[v]
            if w != lo:
                for j in range(u):
                    indices[w + j] = indices[lo + j]
            w += u
        blen[b] = w - indptr[v0]


@njit(cache=True)
def _move_blocks(indptr, indices, blen):
    """Move the compacted blocks down to be contiguous (front to back: a move never overwrites
    entries not yet moved)."""
    w = 0
    for b in range(blen.size):
        src = indptr[b * ROW_BLOCK]
        if src != w:
            for j in range(blen[b]):
                indices[w + j] = indices[src + j]
        w += blen[b]
    return w


def sort_compact(indptr, indices, n, hub=HUB, parallel_hubs=None, id_bound=None):
    """Sort and deduplicate the n rows of (indptr, indices) and compact them; fixes indptr in place and
    returns indices shrunk to the surviving entries (the same buffer, its tail given back).
    ``hub`` and ``parallel_hubs`` (None: by scratch size) choose how rows are sorted; ``id_bound``
    (default n) bounds the entries, for a block of rows whose neighbours are any vertex of a larger graph."""
    uniq = np.empty(n, dtype=np.int64)
    key_bits = max(1, (max(n if id_bound is None else id_bound, 1) - 1).bit_length())
    tmp = np.empty((numba.get_num_threads(), min(hub, indices.size)), dtype=indices.dtype)
    with parallel_chunksize(1):            # hubs make some blocks far costlier
        _sort_rows(indptr, indices, uniq, hub, key_bits, tmp)
    del tmp
    hubs = np.flatnonzero(uniq < 0)
    if hubs.size:
        sizes = indptr[hubs + 1] - indptr[hubs]
        biggest = int(sizes.max())
        rows = min(numba.get_num_threads(), hubs.size)
        # hubs in parallel when their scratch is small next to the graph, else one at a time
        if rows > 1 and numba.get_num_threads() * biggest > max(1 << 24, indices.size // 16):
            rows = 1
        if parallel_hubs is not None:
            rows = numba.get_num_threads() if parallel_hubs else 1
        if rows > 1:
            tmp = np.empty((numba.get_num_threads(), biggest), dtype=indices.dtype)
            with parallel_chunksize(1):
                _sort_hubs(indptr, indices, hubs, uniq, tmp, key_bits)
        else:
            tmp = np.empty(biggest, dtype=indices.dtype)
            _sort_hubs_serial(indptr, indices, hubs, uniq, tmp, key_bits)
        del tmp
    nblocks = max(1, (n + ROW_BLOCK - 1) // ROW_BLOCK)
    blen = np.empty(nblocks, dtype=np.int64)
    _compact_blocks(indptr, indices, uniq, blen)
    kept = _move_blocks(indptr, indices, blen)
    np.cumsum(uniq, out=indptr[1:])
    del uniq
    if kept != indices.size:
        if indices.base is None and indices.flags.owndata:
            indices.resize(kept, refcheck=False)   # realloc: the tail goes back without a copy
        else:
            indices = indices[:kept].copy()
    return indices
