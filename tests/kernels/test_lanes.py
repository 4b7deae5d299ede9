"""kernels.lanes: the 64 x 64 bit transpose and bit planes -> byte lanes."""
import numpy as np
import pytest
from numba import njit

from breadth.kernels.lanes import depth_lanes, gfni_target, store_fence, transpose64, transpose64_gfni, transpose64_swaps
from breadth.multisource.results import aligned_empty


@njit(cache=True)
def _transpose(a, o):
    transpose64(a, o)


@njit(cache=True)
def _transpose_swaps(a, o):
    transpose64_swaps(a, o)


@njit(cache=True)
def _transpose_gfni(a, o):
    transpose64_gfni(a, o)


TRANSPOSES = [_transpose, _transpose_swaps] + ([_transpose_gfni] if gfni_target() else [])


@njit(cache=True)
def _lanes(dst, idx, words, widx, stride, planes, base, unreach, stream):
    depth_lanes(dst, idx, words, widx, stride, planes, base, unreach, stream)
    if stream:
        store_fence()


def bits(words):
    return np.array([[(int(w) >> t) & 1 for t in range(64)] for w in words], dtype=np.uint8)


@pytest.mark.parametrize("transpose", TRANSPOSES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("seed", range(4))
def test_transpose64_is_the_bit_matrix_transpose(transpose, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**64, 64 + 70 + 5, dtype=np.uint64)
    if seed == 3:          # sparse: single bits, so a misplaced bit cannot hide among others
        a = np.uint64(1) << rng.integers(0, 64, a.size, dtype=np.uint64)
    before = a.copy()
    transpose(a, 70)
    np.testing.assert_array_equal(bits(a[70:134]), bits(before[70:134]).T)
    np.testing.assert_array_equal(a[:70], before[:70])       # only the addressed block changes
    np.testing.assert_array_equal(a[134:], before[134:])
    transpose(a, 70)
    np.testing.assert_array_equal(a, before)


def test_gfni_target_follows_the_host():
    import llvmlite.binding as ll
    from numba.core import config
    if config.CPU_NAME is not None:
        pytest.skip("NUMBA_CPU_NAME names the target")
    host = ll.get_host_cpu_features()
    want = all(host.get(f, False) for f in ("avx512f", "avx512bw", "gfni"))
    assert gfni_target() == want
    assert (transpose64 is transpose64_gfni) == want


@pytest.mark.parametrize("planes,base", [(0, 0), (1, 2), (3, 0), (3, 2), (7, 2)])
@pytest.mark.parametrize("stream", [False, True])
def test_depth_lanes(planes, base, stream):
    rng = np.random.default_rng(planes)
    words = rng.integers(0, 2**64, 9 * 5 + 3, dtype=np.uint64)      # reach word at 3, plane p at 3 + 5 (p + 1)
    for p in range(8):
        words[3 + 5 * (p + 1)] &= words[3]       # plane bits only where reached
    dst = aligned_empty((256,), np.uint8)
    dst[:] = 7
    at = 64 if stream else 37          # non-temporal stores need a 64-byte aligned line
    _lanes(dst, at, words, 3, 5, planes, base, 255, stream)
    reach = bits(words[3:4])[0]
    depth = sum(bits(words[3 + 5 * (p + 1):4 + 5 * (p + 1)])[0].astype(np.int64) << p for p in range(planes))
    want = np.where(reach == 1, base + depth, 255)
    assert (reach == 0).any() and (reach == 1).any()
    np.testing.assert_array_equal(dst[at:at + 64], want)
    assert (dst[:at] == 7).all() and (dst[at + 64:] == 7).all()
