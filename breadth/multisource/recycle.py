"""Result memory that comes back: the depth matrix of a run is built in the memory of a dropped one.

A depth matrix is big (|S| x n bytes: 268 MB for 1024 sources on kron-18) and
every cell of it is written (``depths.decode``), so its memory never needs to
be clean. Fresh memory does: the kernel zeroes every page at its first write
(about 12 ms for 268 MB on this 2-core machine, 22 GB/s), and on a virtual
machine whose host backs guest memory lazily a first touch can cost far more
(measured here: 500-575 ms for each of the first two 268 MB matrices of a
process, 18-24 ms for later ones). A loop over batches of sources
(``D = multi_bfs(g, batch)``) pays that on every call, while a search one
source at a time reuses the small arrays malloc hands back.

``pooled_empty`` returns an uninitialised array whose memory is owned by a
``_Lease``: numpy keeps the lease alive for as long as any array or view built
on it lives, and when the last one is gone the lease puts the memory, pages
already faulted in, into the pool. The next request of the same size takes it
instead of allocating. The pool keeps one buffer (the newest) and only while
it takes at most ``KEEP_SHARE`` of the available memory (``keep_share``, the
workspace cache's bound); ``release`` empties it.

Invariant: a buffer is in the pool only when nothing refers to its lease any
more, so a result the caller still holds is never handed out again.
"""
from __future__ import annotations

import numpy as np

from ..graph.memory import available_bytes

__all__ = ["pooled_empty", "release", "KEEP_SHARE", "pooled_bytes"]

KEEP_SHARE = 1 / 16      # the most of the available memory a pooled buffer may hold
ALIGN = 64               # the array's data starts on this boundary (``depths.streamable``)
_POOL: list = []         # at most one raw uint8 buffer


class _Lease:
    """The owner of one pooled array's memory; the array's ``base``."""

    def __init__(self, raw: np.ndarray, shape, dtype: np.dtype):
        self.raw = raw
        self.__array_interface__ = {"data": (raw.ctypes.data + (-raw.ctypes.data % ALIGN), False),
                                    "shape": tuple(shape), "typestr": dtype.str, "version": 3}

    def __del__(self):
        raw, self.raw = self.raw, None
        try:
            _give_back(raw)
        except Exception:        # interpreter shutdown: the module's globals may be gone already
            pass


def _give_back(raw: np.ndarray) -> None:
    if raw is not None and raw.nbytes <= KEEP_SHARE * available_bytes():
        _POOL[:] = [raw]


def pooled_empty(shape, dtype) -> np.ndarray:
    """An uninitialised C-contiguous array, its data on a 64-byte boundary, in the pool's buffer
    when that has exactly the size this needs (else in new memory). Its memory goes back to
    the pool once no array built on it is left."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    need = nbytes + ALIGN
    try:
        raw = _POOL.pop()        # one atomic step: two threads never take the same buffer
    except IndexError:
        raw = None
    if raw is None or raw.nbytes != need:
        raw = np.empty(need, dtype=np.uint8)
    return np.asarray(_Lease(raw, shape, dtype))


def pooled_bytes() -> int:
    """Bytes the pool holds now."""
    return sum(b.nbytes for b in _POOL)


def release() -> None:
    """Free the pooled buffer."""
    _POOL.clear()
