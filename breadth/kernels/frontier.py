"""Frontier representations and conversions shared by the BFS kernels.

A frontier is either a *queue* (int64 vertex ids, each once; what top-down
steps read) or a *bitmap* (uint64 words, bit v set when v is in the frontier;
what bottom-up steps test). Parallel loops run over coarse blocks (numba's default
schedule: an even share of the blocks per thread; the distributed drivers and validators
choose dynamic one-block chunks with ``parallel_chunksize``).
"""
import numpy as np
from numba import prange

from ..graph.parallel import parallel_chunksize  # noqa: F401  (the kernels' drivers import it from here)
from ..jit import njit
from .atomics import U, cttz, set_bit

WORD_BLOCK = 16          # bitmap words per parallel block (1024 vertices)
ELEM_BLOCK = 1 << 14     # array elements per parallel block in plain element loops


@njit(cache=True)
def num_words(n):
    return (n + 63) // 64


@njit(parallel=True, cache=True)
def _fill_parallel(a, value):
    for b in prange((a.size + ELEM_BLOCK - 1) // ELEM_BLOCK):
        for i in range(b * ELEM_BLOCK, min(a.size, (b + 1) * ELEM_BLOCK)):
            a[i] = value


@njit(cache=True)
def fill(a, value):
    """a[:] = value: in parallel blocks, or in the calling thread for at most one block.

    A parallel region costs more than a block's stores whenever the worker threads are
    asleep (waking one takes far longer than the stores), and the first region of
    a search usually finds them asleep: a deep graph's search (one bitmap block per 2^20
    vertices) then pays no region before its first level."""
    if a.size <= ELEM_BLOCK:
        a[:] = value
    else:
        _fill_parallel(a, value)


@njit(parallel=True, cache=True)
def copy_into(src, dst):
    """dst[:] = src (cast to dst's type), in parallel: how int32 search results become int64."""
    for b in prange((src.size + ELEM_BLOCK - 1) // ELEM_BLOCK):
        for i in range(b * ELEM_BLOCK, min(src.size, (b + 1) * ELEM_BLOCK)):
            dst[i] = src[i]


@njit(cache=True)
def clear_visited(visited, n):
    """visited := no vertex, with the bits past n set (they are never searched)."""
    fill(visited, np.uint64(0))
    if n % 64:
        visited[n // 64] = ~((np.uint64(1) << np.uint64(n % 64)) - np.uint64(1))


@njit(cache=True)
def _unvisited_words(visited, lo, hi, parent, depth):
    for w in range(lo, hi):
        x = ~visited[w]
        while x:
            v = w * 64 + cttz(x)
            parent[v] = -1
            depth[v] = -1
            x &= x - np.uint64(1)


@njit(parallel=True, cache=True)
def _unvisited_parallel(visited, parent, depth):
    nblocks = (visited.size + ELEM_BLOCK - 1) // ELEM_BLOCK
    for b in prange(nblocks):
        _unvisited_words(visited, b * ELEM_BLOCK, min(visited.size, (b + 1) * ELEM_BLOCK), parent, depth)


@njit(cache=True)
def mark_unvisited(visited, parent, depth):
    """parent[v] = depth[v] = -1 for every v whose visited bit is clear (the others are left alone).

    How a search that writes only what it visits leaves the rest: one pass over the
    bitmap's words plus one store per unvisited vertex, instead of an O(n) fill up front.
    """
    if visited.size <= ELEM_BLOCK:
        _unvisited_words(visited, np.int64(0), visited.size, parent, depth)    # typed: one specialisation
    else:
        _unvisited_parallel(visited, parent, depth)


@njit(parallel=True, cache=True)
def visited_bitmap(parent, visited):
    """visited := {v : parent[v] >= 0}, with the bits past n set (they are never searched).

    For searches that keep parents but no visited bitmap of their own (the 2D fold search
    rebuilds its row piece's bitmap before each bottom-up level)."""
    n = parent.size
    for b in prange((visited.size + WORD_BLOCK - 1) // WORD_BLOCK):
        for w in range(b * WORD_BLOCK, min(visited.size, (b + 1) * WORD_BLOCK)):
            word = np.uint64(0)
            for bit in range(64):
                v = w * 64 + bit
                if v >= n or parent[v] >= 0:
                    word |= np.uint64(1) << np.uint64(bit)
            visited[w] = word


@njit(parallel=True, cache=True)
def queue_to_bitmap(queue, qsize, bitmap, atomic=True):
    """bitmap := the set of queue[:qsize] (``atomic`` False: numba runs one thread, see ``atomics.set_bit``)."""
    fill(bitmap, np.uint64(0))
    for b in prange((qsize + ELEM_BLOCK - 1) // ELEM_BLOCK):
        for i in range(b * ELEM_BLOCK, min(qsize, (b + 1) * ELEM_BLOCK)):
            set_bit(bitmap, queue[i], atomic)


@njit(parallel=True, cache=True)
def claimed_since(before, visited):
    """before := visited XOR before: the vertices visited since ``before`` was copied from
    ``visited`` (``top_down.td_step`` copies it), i.e. the next frontier as a bitmap."""
    for b in prange((before.size + ELEM_BLOCK - 1) // ELEM_BLOCK):
        for w in range(b * ELEM_BLOCK, min(before.size, (b + 1) * ELEM_BLOCK)):
            before[U(w)] ^= visited[U(w)]


@njit(parallel=True, cache=True)
def _block_counts(bitmap, counts):
    nblocks = counts.size
    for b in prange(nblocks):
        c = 0
        for w in range(b * WORD_BLOCK, min(bitmap.size, (b + 1) * WORD_BLOCK)):
            x = bitmap[w]
            while x:
                x &= x - np.uint64(1)
                c += 1
        counts[b] = c


@njit(parallel=True, cache=True)
def _block_write(bitmap, offsets, indptr, queue):
    nblocks = offsets.size - 1
    edges = 0
    for b in prange(nblocks):
        edges += _write_block(np.int64(b), bitmap, offsets, indptr, queue)
    return edges


@njit(cache=True)
def _write_block(b, bitmap, offsets, indptr, queue):
    """_block_write for block b: its vertices into queue from offsets[b]; returns their out-degree sum
    (a function of its own so that the prange reduction compiles on Python >= 3.12, numba issue 10132)."""
    p = offsets[b]
    edges = 0
    for w in range(b * WORD_BLOCK, min(bitmap.size, (b + 1) * WORD_BLOCK)):
        x = bitmap[w]
        while x:
            v = w * 64 + cttz(x)
            queue[p] = v
            edges += indptr[v + 1] - indptr[v]
            p += 1
            x &= x - np.uint64(1)
    return edges


@njit(cache=True)
def bitmap_to_queue(bitmap, indptr, queue):
    """queue[:size] := the vertices set in bitmap, ascending. Returns (size, their degree sum)."""
    nblocks = (bitmap.size + WORD_BLOCK - 1) // WORD_BLOCK
    counts = np.empty(nblocks, dtype=np.int64)
    _block_counts(bitmap, counts)
    offsets = np.empty(nblocks + 1, dtype=np.int64)
    offsets[0] = 0
    for b in range(nblocks):
        offsets[b + 1] = offsets[b] + counts[b]
    edges = _block_write(bitmap, offsets, indptr, queue)
    return offsets[nblocks], edges


@njit(cache=True)
def bytes_from_bits(visited, bytes64):
    """One byte per vertex (0/1) from the bitmap: ``bytes64`` is a uint64 view of 64 bytes per
    bitmap word, written 8 vertices per store (the bits past n come along and stay set)."""
    for w in range(visited.size):
        x = visited[U(w)]
        for k in range(8):
            y = ((x >> np.uint64(8 * k)) & np.uint64(0xFF)) * np.uint64(0x0101010101010101)
            y &= np.uint64(0x8040201008040201)                  # byte i keeps bit i
            bytes64[U(8 * w + k)] = ((y + np.uint64(0x7F7F7F7F7F7F7F7F)) >> np.uint64(7)) & \
                np.uint64(0x0101010101010101)                    # byte i := that bit, as 0/1


@njit(cache=True)
def bits_from_bytes(bytes64, visited):
    """The bitmap from one byte (0/1) per vertex: the inverse of ``bytes_from_bits``."""
    for w in range(visited.size):
        word = np.uint64(0)
        for k in range(8):
            y = bytes64[U(8 * w + k)]
            if y:
                # the multiplier gathers byte i's low bit into bit 56 + i
                word |= ((y * np.uint64(0x0102040810204080)) >> np.uint64(56)) << np.uint64(8 * k)
        visited[U(w)] = word
