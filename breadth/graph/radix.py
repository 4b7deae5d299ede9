"""Sorted, deduplicated CSR from an edge list by a two-level radix sort (Graph500 kernel 1).

Every arc s -> d (and d -> s when symmetrising; self-loops skipped) is one key
``(s mod 2^shift) << bits | d`` filed under bucket ``s >> shift``, where ``bits``
holds any vertex id and a bucket covers ``2^shift`` consecutive sources. Keys are
32-bit when ``shift + bits <= 32`` (the layout shrinks the buckets to get there while
the bucket count stays within ``MAX_BUCKETS``: up to about 2^22 vertices), else 64-bit.

1. *Partition* (two parallel passes over the edges, the only passes that touch
   memory at random): each chunk of the edge list counts its keys per bucket, the
   counts give every (bucket, chunk) pair a disjoint window laid out bucket-major,
   and each chunk writes its keys into its windows, a few thousand sequential
   streams at most.
2. *Bucket sort* (parallel over buckets, dynamically scheduled since skewed graphs
   make buckets uneven): a least-significant-digit radix sort of the bucket's keys
   (digits of at most 11 bits, a digit shared by every key skipped; insertion sort
   for tiny buckets). A bucket is sized to stay in a core's L2 cache
   (``TARGET_BUCKET`` keys), so this is where the sorting work happens at cache
   speed. Buckets far above the average (a hub's, a star's) are sorted after the
   parallel loop, one at a time, so that per-thread scratch stays bounded. Sorted
   keys are (source, target) in order: duplicates are adjacent and dropped in the
   same pass that counts each source's degree.
3. *Output* (parallel over buckets): every bucket's surviving keys, masked to
   their target, are copied to the final neighbour array at the bucket's offset.

The result depends only on the edge set, never on the thread count or the input
order. Invariants: ``indptr`` int64 non-decreasing from 0; every neighbour list
strictly increasing with no self-loop.
"""
import numba
import numpy as np
from numba import prange

from ..jit import njit
from .memory import check_fits, radix_build_bytes
from .parallel import parallel_chunksize

TARGET_BUCKET = 1 << 16      # keys per bucket: 512 KiB of keys + as much scratch, inside a 2 MiB L2
MAX_BUCKETS = 1 << 12        # partition fan-out cap (write streams per chunk)
DIGIT = 11                   # radix digit width of the in-bucket sort
SMALL = 48                   # buckets up to this size are insertion-sorted
KEY32 = True                 # 32-bit keys whenever (local source, target) fits in 32 bits


def key_layout(n, slots):
    """(bits, shift, number of buckets) for ``n`` vertices and ``slots`` keys."""
    bits = max(1, (max(n, 1) - 1).bit_length())
    want = max(1, min(MAX_BUCKETS, slots // TARGET_BUCKET))
    shift = max(0, bits - (want - 1).bit_length()) if want > 1 else bits
    shift = min(shift, 62 - bits)
    if KEY32 and shift + bits > 32 and bits <= 32 and (max(n, 1) - 1 >> (32 - bits)) < MAX_BUCKETS:
        shift = 32 - bits            # smaller buckets, but 32-bit keys: half the traffic
    return bits, shift, (max(n, 1) - 1 >> shift) + 1


@njit(inline="always", cache=True)
def tally(row, s, d, shift, out_side, in_side):
    """Count arc s->d under row[s >> shift] (``out_side``) and d->s under row[d >> shift]
    (``in_side``); a self-loop counts nothing and returns 1, else 0."""
    if s == d:
        return 1
    if out_side:
        row[s >> shift] += 1
    if in_side:
        row[d >> shift] += 1
    return 0


@njit(parallel=True, cache=True)
def _count(src, dst, symmetric, shift, counts):
    """counts[c, b] += keys chunk c files under bucket b; returns the self-loop count."""
    nchunks = counts.shape[0]
    m = src.size
    loops = 0
    for c in prange(nchunks):
        row = counts[c]
        for e in range(m * c // nchunks, m * (c + 1) // nchunks):
            loops += tally(row, src[e], dst[e], shift, True, symmetric)
    return loops


@njit(parallel=True, cache=True)
def _scatter(src, dst, symmetric, shift, bits, pos, keys):
    """Chunk c writes each of its keys at pos[c, bucket] (then advances it)."""
    nchunks = pos.shape[0]
    m = src.size
    low = (np.int64(1) << shift) - 1
    for c in prange(nchunks):
        row = pos[c]
        for e in range(m * c // nchunks, m * (c + 1) // nchunks):
            s = np.int64(src[e])
            d = np.int64(dst[e])
            if s == d:
                continue
            b = s >> shift
            keys[row[b]] = ((s & low) << bits) | d
            row[b] += 1
            if symmetric:
                b = d >> shift
                keys[row[b]] = ((d & low) << bits) | s
                row[b] += 1


@njit(cache=True)
def _insertion_sort(a):
    for i in range(1, a.size):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True)
def _radix_sort(a, tmp, hist, key_bits):
    """Sort ``a`` (non-negative int64 keys below 2^key_bits) by LSD radix; returns the array holding
    the result (``a`` or ``tmp[:a.size]``). ``hist`` is scratch of shape (passes, 2^DIGIT)."""
    k = a.size
    passes = (key_bits + DIGIT - 1) // DIGIT
    radix = np.int64(1) << DIGIT
    mask = radix - 1
    hist[:passes] = 0
    for j in range(k):
        x = a[j]
        for p in range(passes):
            hist[p, (x >> (p * DIGIT)) & mask] += 1
    cur = a
    other = tmp[:k]
    for p in range(passes):
        h = hist[p]
        if h[(cur[0] >> (p * DIGIT)) & mask] == k:
            continue                       # every key shares this digit
        total = 0
        for r in range(radix):
            c = h[r]
            h[r] = total
            total += c
        sh = p * DIGIT
        for j in range(k):
            x = cur[j]
            r = (x >> sh) & mask
            other[h[r]] = x
            h[r] += 1
        cur, other = other, cur
    return cur


@njit(cache=True)
def _sort_bucket(keys, lo, hi, base, bits, key_bits, tmp, hist, degree):
    """Sort and deduplicate keys[lo:hi] in place (survivors first); degree[base + v] := the
    neighbour count of local source v. Returns the number of survivors."""
    a = keys[lo:hi]
    if hi - lo <= SMALL:
        _insertion_sort(a)
        s = a
    else:
        s = _radix_sort(a, tmp, hist, key_bits)
    prev = -1
    u = 0
    for j in range(hi - lo):
        x = s[j]
        if x != prev:
            a[u] = x
            u += 1
            degree[base + (x >> bits)] += 1
            prev = x
    return u


@njit(parallel=True, cache=True)
def _sort_buckets(keys, bstart, bits, shift, key_bits, rows, cap, unique, degree):
    """Zero every degree; sort and deduplicate each bucket of at most ``cap`` keys (unique[b] := its
    survivors; larger buckets are left, unique[b] = -1, for ``_sort_big``). ``rows``: scratch
    rows, at least the number of threads running the loop."""
    n = degree.size
    nb = bstart.size - 1
    tmp = np.empty((rows, cap), dtype=keys.dtype)
    hists = np.empty((rows, (key_bits + DIGIT - 1) // DIGIT, 1 << DIGIT), dtype=np.int64)
    for b in prange(nb):
        base = b << shift
        for v in range(base, min(n, base + (1 << shift))):
            degree[v] = 0
        lo = bstart[b]
        hi = bstart[b + 1]
        if hi - lo > cap:
            unique[b] = -1
        else:
            t = numba.get_thread_id()
            unique[b] = _sort_bucket(keys, lo, hi, base, bits, key_bits, tmp[t], hists[t], degree)


@njit(cache=True)
def _sort_big(keys, bstart, bits, shift, key_bits, unique, degree, tmp):
    """The buckets ``_sort_buckets`` left, one after another with one scratch array."""
    hist = np.empty(((key_bits + DIGIT - 1) // DIGIT, 1 << DIGIT), dtype=np.int64)
    for b in range(bstart.size - 1):
        if unique[b] < 0:
            unique[b] = _sort_bucket(keys, bstart[b], bstart[b + 1], b << shift, bits, key_bits, tmp, hist, degree)


@njit(parallel=True, cache=True)
def _emit(keys, bstart, ustart, bits, indices):
    """Copy every bucket's surviving keys, masked to their target, to indices[ustart[b]:]."""
    low = (np.int64(1) << bits) - 1
    for b in prange(bstart.size - 1):
        lo = bstart[b]
        o = ustart[b]
        for j in range(ustart[b + 1] - o):
            indices[o + j] = keys[lo + j] & low


def radix_csr(src, dst, n, symmetric, index_dtype):
    """(indptr int64, indices index_dtype, self-loop count) of src -> dst (both ways when
    ``symmetric``): every list sorted, no duplicates, no self-loops. ``src``/``dst`` are checked
    integer arrays with ids in [0, n). Raises MemoryEstimateError before the big allocations
    when they do not fit."""
    m = src.size
    nthreads = numba.get_num_threads()
    nchunks = max(1, min(nthreads, m // 4096 + 1))
    bits, shift, nb = key_layout(n, m * (2 if symmetric else 1))
    counts = np.zeros((nchunks, nb), dtype=np.int64)
    loops = _count(src, dst, symmetric, shift, counts) if m else 0
    per_bucket = counts.sum(axis=0)
    bstart = np.zeros(nb + 1, dtype=np.int64)
    np.cumsum(per_bucket, out=bstart[1:])
    slots = int(bstart[-1])
    maxsize = int(per_bucket.max())
    # per-thread scratch for buckets up to ``cap`` keys (never more than the keys in all);
    # larger buckets are sorted one at a time with one scratch array
    rows = nthreads                  # a loop's thread ids run over [0, get_num_threads())
    cap = min(maxsize, max(8 * TARGET_BUCKET, 4 * (slots // nb + 1)), slots // rows)
    scratch = max(rows * cap, maxsize if maxsize > cap else 0)
    key_size = 4 if KEY32 and shift + bits <= 32 else 8
    check_fits("building the CSR", radix_build_bytes(n, slots, np.dtype(index_dtype).itemsize, scratch, key_size))
    # chunk c's window in bucket b starts after the earlier chunks' keys of b
    pos = np.cumsum(counts, axis=0) - counts + bstart[:-1]
    keys = np.empty(slots, dtype=np.uint32 if key_size == 4 else np.int64)
    if slots:
        _scatter(src, dst, symmetric, shift, bits, pos, keys)
    unique = np.empty(nb, dtype=np.int64)
    degree = np.empty(n, dtype=np.int64)
    with parallel_chunksize(1):      # skewed graphs make some buckets far larger
        _sort_buckets(keys, bstart, bits, shift, shift + bits, rows, cap, unique, degree)
    if maxsize > cap:
        _sort_big(keys, bstart, bits, shift, shift + bits, unique, degree, np.empty(maxsize, dtype=keys.dtype))
    ustart = np.zeros(nb + 1, dtype=np.int64)
    np.cumsum(unique, out=ustart[1:])
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degree, out=indptr[1:])
    indices = np.empty(int(ustart[-1]), dtype=index_dtype)
    _emit(keys, bstart, ustart, bits, indices)
    return indptr, indices, int(loops)
