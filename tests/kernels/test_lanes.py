"""kernels.lanes: the 64 x 64 bit transpose and bit planes -> byte lanes."""
import numpy as np
import pytest
from numba import njit

from breadth.kernels.lanes import depth_lanes, store_fence, transpose64
from breadth.multisource.results import aligned_empty


@njit(cache=True)
def _transpose(a, o):
    transpose64(a, o)


@njit(cache=True)
def _lanes(dst, idx, words, widx, stride, planes, unreach, stream):
    depth_lanes(dst, idx, words, widx, stride, planes, unreach, stream)
    if stream:
        store_fence()


def bits(words):
    return np.array([[(int(w) >> t) & 1 for t in range(64)] for w in words], dtype=np.uint8)


def test_transpose64_is_the_bit_matrix_transpose():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2**64, 64 + 70, dtype=np.uint64)
    before = a.copy()
    _transpose(a, 70)
    np.testing.assert_array_equal(bits(a[70:]), bits(before[70:]).T)
    np.testing.assert_array_equal(a[:70], before[:70])       # only the addressed block changes
    _transpose(a, 70)
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("planes", [0, 1, 3, 8])
@pytest.mark.parametrize("stream", [False, True])
def test_depth_lanes(planes, stream):
    rng = np.random.default_rng(planes)
    words = rng.integers(0, 2**64, 9 * 5 + 3, dtype=np.uint64)      # reach word at 3, plane p at 3 + 5 (p + 1)
    dst = aligned_empty((256,), np.uint8)
    dst[:] = 7
    at = 64 if stream else 37          # non-temporal stores need a 64-byte aligned line
    _lanes(dst, at, words, 3, 5, planes, 255, stream)
    reach = bits(words[3:4])[0]
    depth = sum(bits(words[3 + 5 * (p + 1):4 + 5 * (p + 1)])[0].astype(np.int64) << p for p in range(planes))
    want = np.where(reach == 1, depth, 255)
    np.testing.assert_array_equal(dst[at:at + 64], want)
    assert (dst[:at] == 7).all() and (dst[at + 64:] == 7).all()
