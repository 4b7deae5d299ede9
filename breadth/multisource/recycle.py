"""Result memory that comes back: the depth matrix of a run is built in the memory of a dropped one.

A depth matrix is big (|S| x n bytes: 268 MB for 1024 sources on a scale-18 graph)
and every cell of it is written (``depths.decode``), so its memory never needs to
be clean. Fresh memory does: the kernel zeroes every page at its first write, and
on a virtual machine a first touch can cost far more (docs/performance.md,
"Concurrent BFS", has the figures). A loop over batches of sources
(``D = multi_bfs(g, batch)``) pays that on every call, while a search one
source at a time reuses the small arrays malloc hands back.

``pooled_empty`` returns an uninitialised array whose memory is owned by a
``_Lease``: numpy keeps the lease alive for as long as any array or view built
on it lives, and when the last one is gone the lease puts the memory, pages
already faulted in, into the pool of the graph the matrix was computed on. The
next request of the same size on that graph takes it instead of allocating.
The pool keeps one buffer per graph (the newest), weakly keyed like the
workspace cache (``runner.take_workspace``): it goes when the graph goes, and
only while it takes at most ``KEEP_SHARE`` of the available memory;
``release`` empties it.

Invariant: a buffer is in the pool only when nothing refers to its lease any
more, so a result the caller still holds is never handed out again.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..graph.memory import available_bytes

__all__ = ["pooled_empty", "release", "KEEP_SHARE", "pooled_bytes"]

KEEP_SHARE = 1 / 16      # the most of the available memory a pooled buffer (or a kept workspace) may hold
ALIGN = 64               # the array's data starts on this boundary (``depths.streamable``)
_POOL = weakref.WeakKeyDictionary()      # graph -> one raw uint8 buffer


class _Lease:
    """The owner of one pooled array's memory; the array's ``base``."""

    def __init__(self, raw: np.ndarray, shape, dtype: np.dtype, owner):
        self.raw = raw
        self.owner = weakref.ref(owner)
        self.__array_interface__ = {"data": (raw.ctypes.data + (-raw.ctypes.data % ALIGN), False),
                                    "shape": tuple(shape), "typestr": dtype.str, "version": 3}

    def __del__(self):
        raw, self.raw = self.raw, None
        try:
            owner = self.owner()
            if owner is not None and raw is not None and raw.nbytes <= KEEP_SHARE * available_bytes():
                _POOL[owner] = raw
        except Exception:        # interpreter shutdown: the module's globals may be gone already
            pass


def pooled_empty(shape, dtype, owner) -> np.ndarray:
    """An uninitialised C-contiguous array, its data on a 64-byte boundary, in ``owner``'s
    pooled buffer (``owner``: the graph, any object that takes weak references) when that has
    exactly the size this needs, else in new memory. Its memory goes back to ``owner``'s pool
    once no array built on it is left."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    need = nbytes + ALIGN
    raw = _POOL.pop(owner, None)      # one step: two threads never take the same buffer
    if raw is None or raw.nbytes != need:
        raw = np.empty(need, dtype=np.uint8)
    return np.asarray(_Lease(raw, shape, dtype, owner))


def pooled_bytes() -> int:
    """Bytes the pool holds now, over all graphs."""
    return sum(b.nbytes for b in list(_POOL.values()))


def release() -> None:
    """Free every pooled buffer."""
    _POOL.clear()
