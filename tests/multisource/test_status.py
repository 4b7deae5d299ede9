"""status: the bit-sliced counters' flush into per-thread tallies (``flush_counts``)."""
import numpy as np
import pytest
from numba import njit, prange

from breadth.multisource.status import PLANES, flush_counts, new_tallies, sum_tallies


@njit(parallel=True)
def _flush_all(planes, tallies):
    for b in prange(planes.shape[0]):
        flush_counts(planes[b], tallies)


def _expected(planes):
    """Lane b of word q counts sum_p bit b of planes[q, p] * 2**p, summed over blocks."""
    bits = np.unpackbits(planes.view(np.uint8).reshape(planes.shape + (8,)), axis=-1, bitorder="little")
    weights = (1 << np.arange(PLANES, dtype=np.int64))[None, None, :, None]
    return (bits.astype(np.int64) * weights).sum(axis=2).sum(axis=0).reshape(-1)


@pytest.mark.parametrize("rows", ["per-thread", "one"])
@pytest.mark.parametrize("words", [1, 3, 8])
def test_flush_counts_sums_every_block(rows, words):
    rng = np.random.default_rng(words)
    planes = rng.integers(0, 2**63, size=(300, words, PLANES), dtype=np.int64).astype(np.uint64)
    planes[:, :, 9:] = 0             # counts of one block stay below 512
    planes[::7, 0, :] = 0            # words with no count at all
    tallies = new_tallies(words)         # one row: every thread adds atomically into it
    if rows == "one":
        tallies = np.zeros((1, 64 * words), dtype=np.int64)
    _flush_all(planes, tallies)
    counts = np.zeros(64 * words, dtype=np.int64)
    sum_tallies(tallies, counts)
    np.testing.assert_array_equal(counts, _expected(planes))
    assert not tallies.any()
