"""Parallel text formatting of integer columns (numba): what every text writer emits.

``format_rows(cols, sep)`` turns a (k, n) int64 array into the ASCII lines
``c0<sep>c1...<sep>ck-1\\n``, one per column of the array, in two parallel
passes: the length of every line (digit counts), then, after a prefix sum gives
each line its offset, the digits themselves. No Python loop per line; the
output is one uint8 array ready to be written. Used by edge lists, Matrix
Market files and BFS result CSVs.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from ...jit import njit

NL, MINUS = 10, 45


@njit(cache=True)
def _ndigits(x):
    if x < 0:
        return 1 + _ndigits(-x)
    d = 1
    while x >= 10:
        x //= 10
        d += 1
    return d


@njit(parallel=True, cache=True)
def _row_lengths(cols, lengths):
    k, n = cols.shape
    for i in prange(n):
        total = k                       # k - 1 separators + newline
        for j in range(k):
            total += _ndigits(cols[j, i])
        lengths[i] = total


@njit(cache=True)
def _put_int(out, p, x):
    if x < 0:
        out[p] = MINUS
        p += 1
        x = -x
    d = _ndigits(x)
    q = p + d - 1
    while True:
        out[q] = 48 + x % 10
        x //= 10
        q -= 1
        if x == 0:
            break
    return p + d


@njit(parallel=True, cache=True)
def _write_rows(cols, ends, sep, out):
    k, n = cols.shape
    for i in prange(n):
        p = 0 if i == 0 else ends[i - 1]
        for j in range(k):
            p = _put_int(out, p, cols[j, i])
            out[p] = sep if j < k - 1 else NL
            p += 1


def format_rows(cols, sep: str) -> np.ndarray:
    """ASCII text of the rows of a (k, n) int64 array: k columns joined by ``sep``, one line each."""
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    n = cols.shape[1]
    if n == 0:
        return np.zeros(0, dtype=np.uint8)
    lengths = np.empty(n, dtype=np.int64)
    _row_lengths(cols, lengths)
    ends = np.cumsum(lengths)
    out = np.empty(int(ends[-1]), dtype=np.uint8)
    _write_rows(cols, ends, np.uint8(ord(sep)), out)
    return out
