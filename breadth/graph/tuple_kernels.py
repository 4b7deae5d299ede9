"""The numba kernels that make edge tuples: Graph500 Kronecker (R-MAT) and uniform random.

This module holds the generators' inner loops: the initiator probabilities, the
counter-based hash, the vertex scrambling, the Kronecker tuple and its range,
block-and-count and uniform variants. ``graph/generators.py`` wraps them with argument
checks, slicing and the graph builds. The rules they implement:

Kronecker (Graph500 spec, kernel 0): N = 2^scale vertices, M = edgefactor * N
edge tuples. Each tuple descends ``scale`` levels of the 2x2 initiator
[[A, B], [C, D]] = [[0.57, 0.19], [0.19, 0.05]], most significant bit first,
with the reference code's "clip-and-flip" (on the diagonal a C choice becomes
B, so src <= dst before scrambling). Self-loops and duplicates are produced,
as the spec requires; construction removes them.

Randomness is counter-based: the bits of tuple ``e`` are a hash of
(seed, e, draw number), so tuple e is the same whatever thread or MPI rank makes
it and whatever range is generated -- the property the reference gets from
jumping its MRG ahead by e * 2^64 steps. The generator is therefore
reproducible for a seed regardless of thread count, and any slice
[start, stop) of the tuple list can be made on its own (distributed generation).
It is not bit-compatible with the reference's MRG stream.

Vertex labels are scrambled by a seeded bijection of [0, 2^scale) (add, odd
multiply and bit reversal within ``scale`` bits, twice), as the reference does.
Edge order needs no explicit shuffle: each tuple is drawn independently from
its own counter, so the list order carries no locality (the reference's
argument too).
"""
import numpy as np
from numba import prange

from ..jit import njit
from .radix import tally
from .stream import IN, OUT

A, B, C = 0.57, 0.19, 0.19
_U32 = 4294967296.0
_TB = np.uint64(int(B * _U32))            # [0, B)      -> (0, 1)
_TC = np.uint64(int((B + C) * _U32))      # [B, B+C)    -> (1, 0)
_TA = np.uint64(int((A + B + C) * _U32))  # [B+C, A+B+C) -> (0, 0); rest D -> (1, 1)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
BLOCK = 1 << 10                  # tuples a thread generates at a time before counting them


@njit(inline="always", cache=True)
def _mix(z):
    """splitmix64 finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(inline="always", cache=True)
def _rand(key, counter):
    return _mix(key + _GOLDEN * (counter + np.uint64(1)))


@njit(inline="always", cache=True)
def _bitrev(v, scale):
    """Reverse the low ``scale`` bits of v (scale >= 1)."""
    v = ((v >> np.uint64(1)) & np.uint64(0x5555555555555555)) | ((v & np.uint64(0x5555555555555555)) << np.uint64(1))
    v = ((v >> np.uint64(2)) & np.uint64(0x3333333333333333)) | ((v & np.uint64(0x3333333333333333)) << np.uint64(2))
    v = ((v >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | ((v & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4))
    v = ((v >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | ((v & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    v = ((v >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | ((v & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    v = (v >> np.uint64(32)) | (v << np.uint64(32))
    return v >> np.uint64(64 - scale)


@njit(inline="always", cache=True)
def _scramble(v, scale, mask, k):
    """Seeded bijection of [0, 2^scale): two rounds of add, odd multiply, bit reversal."""
    v = (v + k[0]) & mask
    v = (v * (k[1] | np.uint64(1))) & mask
    v = _bitrev(v, scale)
    v = (v + k[2]) & mask
    v = (v * (k[3] | np.uint64(1))) & mask
    return _bitrev(v, scale)


def _keys(seed, salt):
    s = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    ks = np.empty(5, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(5):
            z = s ^ np.uint64(salt) + _GOLDEN * np.uint64(i + 1)
            z = (z ^ (z >> np.uint64(30))) * _M1
            z = (z ^ (z >> np.uint64(27))) * _M2
            ks[i] = z ^ (z >> np.uint64(31))
    return ks


@njit(inline="always", cache=True)
def _kronecker_tuple(scale, e, edge_key, perm_keys, mask, pairs):
    """Tuple ``e`` (scrambled src, dst). Each level's quadrant is chosen without branches (the
    choice is random, so a branch would be mispredicted about half the time); one 64-bit draw
    serves two levels."""
    u = np.uint64(0)
    v = np.uint64(0)
    diag = np.uint64(1)            # 1 while the tuple is on the diagonal (clip-and-flip applies)
    one = np.uint64(1)
    base = e * np.uint64(pairs)
    for pr in range(pairs):
        r = _rand(edge_key, base + np.uint64(pr))
        for half in range(2):
            level = 2 * pr + half
            if level >= scale:
                break
            x = (r >> np.uint64(32 * half)) & np.uint64(0xFFFFFFFF)
            bit = one << np.uint64(scale - 1 - level)
            b = np.uint64(x < _TB)                     # (0, 1)
            c = np.uint64(x < _TC) & (one - b)         # (1, 0), flipped to (0, 1) on the diagonal
            d = np.uint64(x >= _TA)                    # (1, 1)
            v |= bit * (b | (c & diag) | d)
            u |= bit * ((c & (diag ^ one)) | d)
            diag &= one - (b | c)
    return np.int64(_scramble(u, scale, mask, perm_keys)), np.int64(_scramble(v, scale, mask, perm_keys))


@njit(parallel=True, cache=True)
def _kronecker_range(scale, start, stop, edge_key, perm_keys, src, dst):
    mask = (np.uint64(1) << np.uint64(scale)) - np.uint64(1)
    pairs = (scale + 1) // 2
    for i in prange(stop - start):
        src[i], dst[i] = _kronecker_tuple(scale, np.uint64(start + i), edge_key, perm_keys, mask, pairs)


@njit(cache=True)
def _kronecker_block(scale, start, k, edge_key, perm_keys, mask, pairs, bs, bd):
    """Tuples [start, start + k) into bs, bd (a loop the compiler vectorises)."""
    for i in range(k):
        bs[i], bd[i] = _kronecker_tuple(scale, np.uint64(start + i), edge_key, perm_keys, mask, pairs)


@njit(parallel=True, cache=True)
def _kronecker_count(scale, start, stop, edge_key, perm_keys, mode, counts, loops):
    """counts[t, v] += arcs of source v among tuples [start, stop) (one row per slice of the range,
    so no two threads write one counter); loops[t] += the slice's self-loops. Each slice generates
    cache-sized blocks and counts them."""
    mask = (np.uint64(1) << np.uint64(scale)) - np.uint64(1)
    pairs = (scale + 1) // 2
    nt = counts.shape[0]
    k = stop - start
    for t in prange(nt):
        row = counts[t]
        bs = np.empty(BLOCK, dtype=np.int64)
        bd = np.empty(BLOCK, dtype=np.int64)
        lp = 0
        hi = start + k * (t + 1) // nt
        for lo in range(start + k * t // nt, hi, BLOCK):
            b = min(BLOCK, hi - lo)
            _kronecker_block(scale, lo, b, edge_key, perm_keys, mask, pairs, bs, bd)
            for i in range(b):
                lp += tally(row, bs[i], bd[i], 0, mode != IN, mode != OUT)
        loops[t] += lp


@njit(parallel=True, cache=True)
def _uniform_range(n, start, stop, key, src, dst):
    nn = np.uint64(n)
    for i in prange(stop - start):
        e = np.uint64(start + i)
        src[i] = np.int64(_rand(key, e * np.uint64(2)) % nn)
        dst[i] = np.int64(_rand(key, e * np.uint64(2) + np.uint64(1)) % nn)
