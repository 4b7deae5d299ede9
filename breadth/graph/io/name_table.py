"""Vertex names to dense ids (numba): a hash table over the bytes of the names, filled in order of appearance.

``NameTable.encode(col0, col1)`` takes the two first columns of a batch of rows
(pyarrow string arrays, as ``names`` reads them) and gives the int64 ids of both
ends of every edge row: a name seen before gets its id back, a new one the next
id (so ids follow the order in which names first appear, source before target,
as networkx numbers the nodes of ``read_edgelist``). Rows whose first field
starts with ``#`` or ``%`` are comment lines and are dropped. Spaces around a
name are not part of it. The table keeps each name's bytes once (an arena plus
offsets) and hands them back as a pyarrow string array (``labels``). The loop is
one numba call per batch; it returns early when the table must grow (Python
grows it and calls again), on an empty name, or on a control byte (binary data).
"""
from __future__ import annotations

import numpy as np
from numba import njit

OK, GROW, EMPTY, BINARY = 0, 1, 2, 3
_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(cache=True)
def _trim(data, a, b):
    """(a, b) without the spaces, tabs and CRs at either end of data[a:b]."""
    while a < b and (data[a] == 32 or data[a] == 9 or data[a] == 13):
        a += 1
    while b > a and (data[b - 1] == 32 or data[b - 1] == 9 or data[b - 1] == 13):
        b -= 1
    return a, b


@njit(cache=True)
def _hash(data, a, b):
    """FNV-1a of data[a:b], and whether it holds a control byte (not text)."""
    h = _FNV_OFFSET
    bad = False
    for i in range(a, b):
        c = data[i]
        if c < 32 and c != 9 or c == 127:
            bad = True
        h = (h ^ np.uint64(c)) * _FNV_PRIME
    return h, bad


@njit(cache=True)
def _lookup(data, a, b, h, slots, hashes, starts, arena, state):
    """The id of the name data[a:b] (hash h), added with the next id when new (room checked before)."""
    mask = slots.size - 1
    j = np.int64(h & np.uint64(mask))
    length = b - a
    while True:
        e = slots[j]
        if e < 0:
            e = state[0]
            top = state[1]
            arena[top:top + length] = data[a:b]
            starts[e + 1] = top + length
            hashes[e] = h
            slots[j] = e
            state[0] = e + 1
            state[1] = top + length
            return e
        if hashes[e] == h and starts[e + 1] - starts[e] == length:
            s = starts[e]
            same = True
            for i in range(length):
                if arena[s + i] != data[a + i]:
                    same = False
                    break
            if same:
                return e
        j = (j + 1) & mask


@njit(cache=True)
def _encode(d0, o0, d1, o1, row, slots, hashes, starts, arena, state, out0, out1):
    """Ids of rows row.. of the two columns (data, offsets) into out0/out1 at state[2] onwards.
    Returns (the row reached, status): OK at the end, else the row to report or resume at."""
    rows = o0.size - 1
    while row < rows:
        a0, b0 = _trim(d0, o0[row], o0[row + 1])
        if b0 > a0 and (d0[a0] == 35 or d0[a0] == 37):      # '#' or '%': a comment line
            row += 1
            continue
        a1, b1 = _trim(d1, o1[row], o1[row + 1])
        if b0 == a0 or b1 == a1:
            return row, EMPTY
        if 2 * (state[0] + 2) > slots.size or state[0] + 3 > starts.size \
                or state[1] + (b0 - a0) + (b1 - a1) > arena.size:
            return row, GROW
        h0, bad0 = _hash(d0, a0, b0)
        h1, bad1 = _hash(d1, a1, b1)
        if bad0 or bad1:
            return row, BINARY
        k = state[2]
        out0[k] = _lookup(d0, a0, b0, h0, slots, hashes, starts, arena, state)
        out1[k] = _lookup(d1, a1, b1, h1, slots, hashes, starts, arena, state)
        state[2] = k + 1
        row += 1
    return row, OK


@njit(cache=True)
def _rehash(slots, hashes, count):
    mask = slots.size - 1
    for e in range(count):
        j = np.int64(hashes[e] & np.uint64(mask))
        while slots[j] >= 0:
            j = (j + 1) & mask
        slots[j] = e


def string_column(arr):
    """(data bytes, int64 offsets) of a pyarrow string array (one chunk), without copying the bytes."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = pa.concat_arrays(arr.chunks) if arr.num_chunks != 1 else arr.chunk(0)
    large = pa.types.is_large_string(arr.type)
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32)[arr.offset:arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None and bufs[2].size else np.zeros(0, np.uint8)
    return data, offsets.astype(np.int64)


class NameTable:
    """Every distinct name read so far and its dense id (module notes)."""

    def __init__(self, capacity: int = 1 << 16):
        self.slots = np.full(2 * capacity, -1, dtype=np.int64)
        self.hashes = np.zeros(capacity, dtype=np.uint64)
        self.starts = np.zeros(capacity + 1, dtype=np.int64)
        self.arena = np.zeros(16 * capacity, dtype=np.uint8)
        self.state = np.zeros(3, dtype=np.int64)       # names, arena bytes used, rows written

    def __len__(self) -> int:
        return int(self.state[0])

    def _grow(self, need_bytes: int) -> None:
        count, used = int(self.state[0]), int(self.state[1])
        if 2 * (count + 2) > self.slots.size or count + 3 > self.starts.size:
            cap = 2 * self.hashes.size
            self.hashes = np.concatenate((self.hashes, np.zeros(cap - self.hashes.size, np.uint64)))
            self.starts = np.concatenate((self.starts, np.zeros(cap - self.starts.size + 1, np.int64)))
            self.slots = np.full(2 * cap, -1, dtype=np.int64)
            _rehash(self.slots, self.hashes, count)
        if used + need_bytes > self.arena.size:
            grown = np.zeros(max(2 * self.arena.size, used + need_bytes), dtype=np.uint8)
            grown[:used] = self.arena[:used]
            self.arena = grown

    def encode(self, col0, col1):
        """(src ids, dst ids, None) of a batch's first two columns, or (src, dst, (status, row)) when a
        row holds an empty name or binary data (ids of the rows before it)."""
        d0, o0 = string_column(col0)
        d1, o1 = string_column(col1)
        rows = o0.size - 1
        out0 = np.empty(rows, dtype=np.int64)
        out1 = np.empty(rows, dtype=np.int64)
        self.state[2] = 0
        row = 0
        while True:
            row, status = _encode(d0, o0, d1, o1, row, self.slots, self.hashes, self.starts, self.arena,
                                  self.state, out0, out1)
            if status != GROW:
                break
            self._grow(int(o0[row + 1] - o0[row] + o1[row + 1] - o1[row]))
        k = int(self.state[2])
        return out0[:k], out1[:k], (None if status == OK else (int(status), int(row)))

    def labels(self) -> np.ndarray:
        """The names in id order, as an object array of str."""
        import pyarrow as pa

        count, used = int(self.state[0]), int(self.state[1])
        offsets = self.starts[:count + 1]
        if used < 2**31:
            arr = pa.Array.from_buffers(pa.string(), count, [None, pa.py_buffer(offsets.astype(np.int32)),
                                                             pa.py_buffer(self.arena[:used].copy())])
        else:
            arr = pa.Array.from_buffers(pa.large_string(), count, [None, pa.py_buffer(offsets.copy()),
                                                                   pa.py_buffer(self.arena[:used].copy())])
        return arr.to_numpy(zero_copy_only=False).astype(object, copy=False)
