"""Vertex names to dense ids (numba): a hash table over the bytes of the names, filled in order of appearance.

``NameTable.encode(col0, col1)`` takes the two first columns of a batch of rows
(pyarrow string arrays, as ``names`` streams them for the bounded-memory reader;
the in-memory reader numbers a whole file with ``name_partition``) and gives the int64 ids of both
ends of every edge row: a name seen before gets its id back, a new one the next
id (so ids follow the order in which names first appear, source before target,
as networkx numbers the nodes of ``read_edgelist``). Each column is first
dictionary-encoded by pyarrow (``pyarrow.compute.dictionary_encode``, C++), so
the table hashes each distinct name of a batch once; the pass over the rows
then maps the batch's codes to ids with integer lookups. Rows whose first field
starts with ``#`` or ``%`` are comment lines and are dropped. Spaces around a
name are not part of it. The table keeps each name's bytes once (an arena plus
offsets) and hands them back as an object array of str (``labels``). The loop is
one numba call per batch; it returns early when the table must grow (Python
grows it and calls again), on an empty name, or on a control byte (binary data).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...jit import njit

OK, GROW, EMPTY, BINARY = 0, 1, 2, 3
COMMENT = -2                 # the id given to the first field of a comment line
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
    """A hash of data[a:b] (FNV-1a, then mixed), and whether it holds a control byte (not text)."""
    h = _FNV_OFFSET
    bad = False
    for i in range(a, b):
        c = data[i]
        if c < 32 and c != 9 or c == 127:
            bad = True
        h = (h ^ np.uint64(c)) * _FNV_PRIME
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)     # splitmix64's finaliser: FNV's
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)     # low bits cluster in a linear probe
    return h ^ (h >> np.uint64(31)), bad


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
def _name_id(data, a, b, first, slots, hashes, starts, arena, state):
    """(id of the name data[a:b], status): COMMENT for a first field starting a comment line."""
    a, b = _trim(data, a, b)
    if first and b > a and (data[a] == 35 or data[a] == 37):      # '#' or '%': a comment line
        return COMMENT, OK
    if b == a:
        return -1, EMPTY
    if 2 * (state[0] + 1) > slots.size or state[0] + 2 > starts.size or state[1] + (b - a) > arena.size:
        return -1, GROW
    h, bad = _hash(data, a, b)
    if bad:
        return -1, BINARY
    return _lookup(data, a, b, h, slots, hashes, starts, arena, state), OK


@njit(cache=True)
def _encode(c0, c1, base1, u, p, m, row, slots, hashes, starts, arena, state, out0, out1):
    """Ids of rows row.. into out0/out1 at state[2] onwards. A row is the codes of its two fields in
    the batch's dictionaries, joined into one (bytes u, offsets p; the second column's codes start
    at ``base1``); m maps codes to ids (-1: not yet).
    Returns (the row reached, status): OK at the end, else the row to report or resume at."""
    rows = c0.size
    while row < rows:
        x = np.int64(COMMENT)
        for field in range(2):
            a = c0[row] if field == 0 else c1[row] + base1
            y = m[a]
            if y == -1:
                y, status = _name_id(u, p[a], p[a + 1], field == 0, slots, hashes, starts, arena, state)
                if status != OK:
                    return row, status
                m[a] = y
            if field == 0:
                x = y
                if x == COMMENT:
                    break
            else:
                k = state[2]
                out0[k] = x
                out1[k] = y
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


def string_column(arr, widen=True):
    """(data bytes, offsets) of a pyarrow string array (one chunk), without copying the bytes; the
    offsets int64 (a copy) when ``widen``, else the array's own int32 (int64 for large strings)."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = pa.concat_arrays(arr.chunks) if arr.num_chunks != 1 else arr.chunk(0)
    large = pa.types.is_large_string(arr.type)
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32)[arr.offset:arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None and bufs[2].size else np.zeros(0, np.uint8)
    return data, (offsets.astype(np.int64) if widen else offsets)


def string_objects(offsets, data) -> np.ndarray:
    """The strings data[offsets[i]:offsets[i + 1]] (UTF-8), as an object array of str."""
    import pyarrow as pa

    count = offsets.size - 1
    if data.size < 2**31:
        arr = pa.Array.from_buffers(pa.string(), count, [None, pa.py_buffer(offsets.astype(np.int32)),
                                                         pa.py_buffer(data)])
    else:
        arr = pa.Array.from_buffers(pa.large_string(), count, [None, pa.py_buffer(offsets.astype(np.int64)),
                                                               pa.py_buffer(data)])
    return arr.to_numpy(zero_copy_only=False).astype(object, copy=False)


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
        import pyarrow.compute as pc

        rows = len(col0)
        codes, names = [], []
        with ThreadPoolExecutor(2) as pool:         # pyarrow lets go of the GIL: both columns at once
            encoded = list(pool.map(pc.dictionary_encode, (col0, col1)))
        for enc in encoded:
            if hasattr(enc, "combine_chunks"):
                enc = enc.combine_chunks()
            codes.append(enc.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False))
            names.append(string_column(enc.dictionary))
        (c0, c1), ((u0, p0), (u1, p1)) = codes, names
        # one dictionary: the second column's names after the first's
        u = np.concatenate((u0[p0[0]:p0[-1]], u1[p1[0]:p1[-1]]))
        p = np.concatenate((p0 - p0[0], p1[1:] - p1[0] + (p0[-1] - p0[0])))
        base1 = p0.size - 1
        m = np.full(p.size - 1, -1, dtype=np.int64)
        out0 = np.empty(rows, dtype=np.int64)
        out1 = np.empty(rows, dtype=np.int64)
        self.state[2] = 0
        row = 0
        while True:
            row, status = _encode(c0, c1, base1, u, p, m, row, self.slots, self.hashes, self.starts, self.arena,
                                  self.state, out0, out1)
            if status != GROW:
                break
            a, b = c0[row], c1[row] + base1
            self._grow(int(p[a + 1] - p[a] + p[b + 1] - p[b]))
        k = int(self.state[2])
        return out0[:k], out1[:k], (None if status == OK else (int(status), int(row)))

    def labels(self) -> np.ndarray:
        """The names in id order, as an object array of str."""
        count, used = int(self.state[0]), int(self.state[1])
        return string_objects(self.starts[:count + 1], self.arena[:used].copy())
