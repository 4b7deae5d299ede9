"""The parallel byte-level parser of edge-list text (numba), one block of whole lines at a time.

``parse_block(buf, limit)`` cuts the block into one piece per thread (at line
ends), parses every piece in parallel into its own slice of the int64
``src``/``dst`` output (a data line takes at least 4 bytes, so a piece of b
bytes needs at most b // 4 + 1 slots) and packs the slices together. A piece
that meets bad input stops at it and records the error code and the byte
offset of the offending token; the earliest piece's error is the one
reported, and ``error_message`` finds its line number by counting the
newlines before that offset. Never a Python loop per line.

Syntax of a line: blank; a comment starting with ``#`` or ``%``; or
``source target [anything...]`` with the fields separated by spaces, tabs,
commas (or CR, VT, FF). Ids are non-negative decimal integers below ``limit``.
"""
from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...jit import njit

INT64_MAX = np.iinfo(np.int64).max
OK, NON_NUMERIC, NEGATIVE, ONE_COLUMN, TOO_BIG, BEYOND = 0, 1, 2, 3, 4, 5
NL, HASH, PERCENT, COMMA, MINUS = 10, 35, 37, 44, 45


@njit(cache=True)
def _is_sep(c):
    return c == 32 or c == 9 or c == 44 or c == 13 or c == 11 or c == 12


@njit(cache=True)
def _is_digit(c):
    return 48 <= c <= 57


@njit(cache=True)
def _skip_sep(buf, i, end):
    while i < end and _is_sep(buf[i]):
        i += 1
    return i


@njit(cache=True)
def _piece_starts(buf, npieces):
    """Offsets cutting buf into npieces runs of whole lines (starts[-1] == buf.size)."""
    n = buf.size
    starts = np.empty(npieces + 1, dtype=np.int64)
    starts[0] = 0
    for k in range(1, npieces):
        i = max(n * k // npieces, starts[k - 1])
        while i < n and buf[i] != NL:
            i += 1
        starts[k] = min(i + 1, n)
    starts[npieces] = n
    return starts


@njit(cache=True)
def _checked_value(buf, start, stop):
    """Value of the digits buf[start:stop] with an overflow check (-1 if it exceeds int64)."""
    v = 0
    for j in range(start, stop):
        d = np.int64(buf[j]) - 48
        if v > (INT64_MAX - d) // 10:
            return -1
        v = v * 10 + d
    return v


@njit(cache=True)
def _parse_id(buf, i, end, limit):
    """Parse one id at buf[i]; returns (value, next index, OK) or (0, start of the token, error code)."""
    start = i
    c = buf[i]
    if not _is_digit(c):
        if c == MINUS and i + 1 < end and _is_digit(buf[i + 1]):
            return 0, start, NEGATIVE
        return 0, start, NON_NUMERIC
    v = 0
    while i < end:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            break
        v = v * 10 + d
        i += 1
    if i - start > 18:                  # may have wrapped: redo with the (slower) overflow check
        v = _checked_value(buf, start, i)
        if v < 0:
            return 0, start, TOO_BIG
    if i < end and not (_is_sep(buf[i]) or buf[i] == NL):
        return 0, start, NON_NUMERIC
    if v >= limit:
        return 0, start, BEYOND
    return v, i, OK


@njit(parallel=True, cache=True)
def _parse_lines(buf, starts, offsets, limit, src, dst, counts, newlines, err_code, err_pos, columns):
    """Parse every piece's data lines into src/dst[offsets[p]:] (room for a line per 4 bytes)."""
    for p in prange(starts.size - 1):
        i = starts[p]
        end = starts[p + 1]
        k = offsets[p]
        nl = 0
        code = OK
        pos = -1
        cols = 2
        while i < end:
            line = i
            i = _skip_sep(buf, i, end)
            if i >= end:
                break
            c = buf[i]
            if c == NL:
                nl += 1
                i += 1
                continue
            if c == HASH or c == PERCENT:
                while i < end and buf[i] != NL:
                    i += 1
                if i < end:
                    nl += 1
                i += 1
                continue
            u, i, code = _parse_id(buf, i, end, limit)
            if code != OK:
                pos = i
                break
            i = _skip_sep(buf, i, end)
            if i >= end or buf[i] == NL:
                code = ONE_COLUMN
                pos = line
                break
            v, i, code = _parse_id(buf, i, end, limit)
            if code != OK:
                pos = i
                break
            src[k] = u
            dst[k] = v
            k += 1
            i = _skip_sep(buf, i, end)
            if i < end and buf[i] != NL:
                cols = 3
                while i < end and buf[i] != NL:
                    i += 1
            if i < end:
                nl += 1
            i += 1
        counts[p] = k - offsets[p]
        newlines[p] = nl
        err_code[p] = code
        err_pos[p] = pos
        columns[p] = cols


@njit(cache=True)
def data_line_start(buf, k):
    """Byte offset of the start of the k-th (0-based) data line of ``buf``, skipping blank and
    comment lines as the parser does (buf.size when there are fewer)."""
    i = 0
    n = buf.size
    while i < n:
        j = _skip_sep(buf, i, n)
        if j < n and buf[j] != NL and buf[j] != HASH and buf[j] != PERCENT:
            if k == 0:
                return i
            k -= 1
        while j < n and buf[j] != NL:
            j += 1
        i = j + 1
    return n


@njit(cache=True)
def first_of(buf, a, b, c):
    """Index of the first byte of ``buf`` equal to a, b or c; -1 when there is none."""
    for i in range(buf.size):
        x = buf[i]
        if x == a or x == b or x == c:
            return i
    return -1


_STOPS = np.array([c for c in range(256) if _is_sep.py_func(c)] + [NL], dtype=np.uint8)   # what ends a token


def _token_end(buf, i):
    """The end of the token at ``buf[i]`` (at most 40 bytes: an error message's quote). numpy, not
    numba: the error path must not wait for the compiler (a bad input gives one line at once)."""
    window = np.asarray(buf[i:i + 40])
    stops = np.flatnonzero(np.isin(window, _STOPS))
    return i + (int(stops[0]) if stops.size else window.size)


def parse_block(buf, limit):
    """Parse one block of whole lines. Returns (src, dst, newlines, extra_columns, error or None).

    Each piece parses into its own slice of the output in one pass, and the slices are then
    packed together (np.empty leaves the unused tail of the slices untouched, so it costs no
    memory). ``error`` is (code, byte offset) of the first bad token.
    """
    npieces = max(1, min(4 * numba.get_num_threads(), buf.size // 65536 + 1))
    starts = _piece_starts(buf, npieces)
    offsets = np.zeros(npieces + 1, dtype=np.int64)
    np.cumsum(np.diff(starts) // 4 + 1, out=offsets[1:])
    src_buf = np.empty(int(offsets[-1]), dtype=np.int64)
    dst_buf = np.empty(int(offsets[-1]), dtype=np.int64)
    counts = np.zeros(npieces, dtype=np.int64)
    newlines = np.zeros(npieces, dtype=np.int64)
    err_code = np.zeros(npieces, dtype=np.int64)
    err_pos = np.zeros(npieces, dtype=np.int64)
    columns = np.zeros(npieces, dtype=np.int64)
    _parse_lines(buf, starts, offsets, limit, src_buf, dst_buf, counts, newlines, err_code, err_pos, columns)
    bad = np.flatnonzero(err_code)
    if bad.size:
        p = int(bad[0])
        return None, None, 0, False, (int(err_code[p]), int(err_pos[p]))
    src = np.concatenate([src_buf[offsets[p]:offsets[p] + counts[p]] for p in range(npieces)])
    dst = np.concatenate([dst_buf[offsets[p]:offsets[p] + counts[p]] for p in range(npieces)])
    return src, dst, int(newlines.sum()), bool(columns.max() > 2), None


def error_message(path, buf, code, pos, line_base, limit):
    """The one-line message of a parse error at byte ``pos`` of ``buf`` (lines before it: ``line_base``)."""
    line = line_base + int(np.count_nonzero(buf[:pos] == NL)) + 1
    tok = bytes(buf[pos:_token_end(buf, pos)]).decode("utf-8", "replace")
    where = f"{path}: line {line}"
    if code == NON_NUMERIC:
        return f"{where}: non-numeric vertex id {tok!r} (expected a non-negative integer)"
    if code == NEGATIVE:
        return f"{where}: negative vertex id {tok}"
    if code == ONE_COLUMN:
        return f"{where}: only one column; an edge needs two vertex ids (source target)"
    if code == TOO_BIG:
        return f"{where}: vertex id {tok}... does not fit in int64"
    if code == BEYOND and limit == INT64_MAX:
        return f"{where}: vertex id {tok} is too large (at most {INT64_MAX - 1})"
    if code == BEYOND:
        return f"{where}: vertex id {tok} is beyond the declared vertex count {limit} (ids 0..{limit - 1})"
    return f"{where}: unreadable edge line"  # pragma: no cover - every code is named above
