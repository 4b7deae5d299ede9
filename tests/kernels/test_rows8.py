"""kernels.rows8: the 512-bit status-row intrinsics against plain numpy/queue loops."""
import numpy as np
import pytest
from numba import njit

from breadth.kernels.rows8 import all_ones8, or_in_rows8, or_row8

ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def _dense(acc, in_indices, j0, j1, front, rows):
    return or_in_rows8(acc, in_indices, j0, j1, front, rows, 16)


@njit(cache=True)
def _or_then_test(acc, rows, i):
    or_row8(acc, 0, rows, i)
    return all_ones8(acc)


def reference(acc, in_indices, j0, j1, front, rows):
    """The loop or_in_rows8 stands for, one word at a time."""
    examined = 0
    for j in range(j0, j1):
        u = int(in_indices[j])
        examined += 1
        if not (int(front[u >> 6]) >> (u & 63)) & 1:
            continue
        acc |= rows[8 * u:8 * u + 8]
        if (acc == ALL).all():
            break
    return examined


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dense_rows", [False, True])     # True: rows nearly full, so early termination fires
def test_or_in_rows8_matches_the_loop(dtype, dense_rows):
    rng = np.random.default_rng(7 + dense_rows)
    n = 300
    for trial in range(200):
        rows = rng.integers(0, 2**64, 8 * n, dtype=np.uint64)
        if dense_rows:
            for _ in range(3):
                rows |= rng.integers(0, 2**64, 8 * n, dtype=np.uint64)
        in_indices = rng.integers(0, n, 50).astype(dtype)
        front = rng.integers(0, 2**64, (n + 63) // 64, dtype=np.uint64)
        j0, j1 = sorted(rng.integers(0, 51, 2))
        start = rng.integers(0, 2**64, 8, dtype=np.uint64) | (ALL if trial % 7 == 0 else np.uint64(0))
        want, got = start.copy(), start.copy()
        assert _dense(got, in_indices, j0, j1, front, rows) == reference(want, in_indices, j0, j1, front, rows)
        np.testing.assert_array_equal(got, want)


def test_or_row8_and_all_ones8():
    rows = np.array([ALL] * 7 + [np.uint64(5)] + [np.uint64(0)] * 7 + [ALL ^ np.uint64(5)], dtype=np.uint64)
    acc = np.zeros(8, dtype=np.uint64)
    assert not _or_then_test(acc, rows, 0)
    np.testing.assert_array_equal(acc, rows[:8])
    assert _or_then_test(acc, rows, 8)
    assert (acc == ALL).all()
    dst = np.zeros(24, dtype=np.uint64)
    _or_at(dst, 9, rows, 3)
    np.testing.assert_array_equal(dst[9:17], rows[3:11])
    assert not dst[:9].any() and not dst[17:].any()


@njit(cache=True)
def _or_at(dst, i, src, k):
    or_row8(dst, i, src, k)
