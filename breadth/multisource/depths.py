"""Depths of a group's instances as bit planes, decoded into the depth matrix once per group.

Writing each new depth into the depth matrix at the level it is found touches
a row of every instance that reached the vertex, at every level: on kron-18 with
1024 sources that is several passes over the 268 MB matrix per group, more time
than the traversal. Instead, identification (``status.record_new``) ORs the
instances newly reached at depth L into *depth plane* p of the vertex for every
bit p of L's code: plane p holds, per status word, bit p of each instance's code
(the same W words per vertex as the status array). That is a few word ORs per
vertex and level, on arrays as small as the status array.

The code of depth L is L - DEPTH_BASE (2). On a small-world graph depth 2 (and
then 3) is where most vertices are reached: as code 0 it writes no plane at all,
depth 3 one plane instead of two (on a Kronecker graph this writes about half the
plane rows a code of d itself would). Depths 0
and 1 have no code: they are the sources and their out-neighbours, written from
the adjacency after the decode (``_near``), a few cells per source.

The planes are zero when a group starts: the workspace allocates them zeroed and
``decode``, which reads planes 0 .. bit_length(deepest depth) - 1 (the only ones
a group can have written), zeroes each word after reading it, in the cache line
it just loaded, so no group pays a memset (and its page faults) per plane.

At the group's end ``decode`` writes each (instance, vertex) cell of the
source-major matrix (row = instance) once, a tile of 64 vertices x 64 instances
(one status word) at a time: the tile's final-status word and plane words are
transposed as 64 x 64 bit matrices (``kernels.lanes.transpose64``), so word j
then holds instance j's bits for the 64 vertices, and each instance's 64 bytes
are built in a vector register from those words (``kernels.lanes.depth_lanes``)
and written as one cache line (DEPTH_BASE + code where reached), with a
non-temporal store when the matrix rows
are 64-byte aligned (``streamable``): the line is not read first, and nothing of
the matrix is left to crowd the status arrays out of the cache. RUN (32) tiles
side by side are transposed first, then each instance's RUN lines are stored
one after the other, so a row gets 2 KB of consecutive lines at a time instead
of one line before the store moves to another row 256 KB away.
"""
import numpy as np
from numba import prange

from ..jit import njit
from ..kernels.atomics import U
from ..kernels.lanes import LANES, depth_lanes, store_fence, transpose64
from .status import DEPTH_BASE

__all__ = ["plane_count", "planes_used", "decode", "streamable", "RUN"]

RUN = 32                 # tiles decoded together, so each row gets RUN consecutive lines (2 KB) at a time


def plane_count(depth_cap: int) -> int:
    """Planes needed for depths up to ``depth_cap``."""
    return max(1, max(0, int(depth_cap) - DEPTH_BASE).bit_length())


def planes_used(deepest: int) -> int:
    """Planes holding depths up to ``deepest`` (a traversal that deep wrote no other plane)."""
    return max(0, int(deepest) - DEPTH_BASE).bit_length()


def streamable(out: np.ndarray) -> bool:
    """Whether ``decode`` may write ``out``'s tiles with non-temporal stores: uint8 rows that
    start on 64-byte boundaries (such a store of a misaligned line would fault)."""
    return (out.dtype == np.uint8 and out.ndim == 2 and out.flags.c_contiguous
            and out.shape[1] % LANES == 0 and out.ctypes.data % LANES == 0)


@njit(inline="always", cache=True)
def _load_tile(src, v0, nv, words, q, buf, o, clear):
    """buf[o + i] := src[(v0 + i) * words + q] for the tile's nv vertices, zeros after;
    with ``clear`` the words read are set to zero in ``src``. Returns the OR of the words."""
    seen = np.uint64(0)
    for i in range(LANES):
        if i < nv:
            at = U((v0 + i) * words + q)
            x = src[at]
            buf[U(o + i)] = x
            seen |= x
            if clear:
                src[at] = np.uint64(0)
        else:
            buf[U(o + i)] = np.uint64(0)
    return seen


@njit(inline="always", cache=True)
def _store_run(bufs, planes, at, j, flat, n, t0, t1, unreach, stream, tmp):
    """Instance j's bytes of tiles t0 .. t1 - 1 (``bufs[t - t0]``, transposed: reach bits at j,
    plane p at 64 (p + 1) + j), one line per tile, consecutive in its row starting at ``at``
    (the row's offset of vertex 64 t0)."""
    for t in range(t0, t1):
        b = bufs[t - t0]
        nv = min(LANES, n - t * LANES)
        if nv == LANES:
            depth_lanes(flat, at, b, j, LANES, planes[t - t0], DEPTH_BASE, unreach, stream)
        else:            # the last, partial tile: through a buffer
            depth_lanes(tmp, 0, b, j, LANES, planes[t - t0], DEPTH_BASE, unreach, False)
            for i in range(nv):
                flat[U(at + i)] = tmp[i]
        at += LANES


@njit(inline="always", cache=True)
def _store_tile_any(buf, planes, rows, first, count, out, v0, nv, unreach):
    """``_store_tile`` for any dtype, cell by cell."""
    for j in range(count):
        orow = out[rows[U(first + j)]]
        reached = buf[U(j)]
        for i in range(nv):
            bit = np.uint64(i)
            if (reached >> bit) & np.uint64(1):
                code = 0
                for p in range(planes):
                    code |= int((buf[U(LANES * (p + 1) + j)] >> bit) & np.uint64(1)) << p
                orow[v0 + i] = DEPTH_BASE + code
            else:
                orow[v0 + i] = unreach


@njit(inline="always", cache=True)
def _transposed_tile(final, dplanes, used, words, q, v0, nv, buf):
    """Word q of the tile's vertices, transposed: buf[j] = instance 64 q + j's reach bits over
    the 64 vertices, buf[64 (p + 1) + j] its plane p bits; the plane words read are zeroed.
    Returns the planes to read (0 when no instance reached any vertex of the tile: then only
    buf[:64] is set, to zeros, and the tile's plane words are zero already)."""
    if not _load_tile(final, v0, nv, words, q, buf, 0, False):
        return 0
    transpose64(buf, 0)
    for p in range(used):
        if _load_tile(dplanes[p], v0, nv, words, q, buf, LANES * (p + 1), True):
            transpose64(buf, LANES * (p + 1))       # (a zero block is its own transpose)
    return used


@njit(parallel=True, cache=True)
def _decode8(final, dplanes, used, words, g, out, rows, unreach, stream):
    n = out.shape[1]
    flat = out.reshape(-1)
    ntiles = (n + LANES - 1) // LANES
    for r in prange((ntiles + RUN - 1) // RUN):
        bufs = np.empty((RUN, LANES * (used + 1)), dtype=np.uint64)
        planes = np.empty(RUN, dtype=np.int64)
        tmp = np.empty(LANES, dtype=np.uint8)
        t0 = r * RUN
        t1 = min(ntiles, t0 + RUN)
        for q in range((g + LANES - 1) // LANES):
            for t in range(t0, t1):
                planes[t - t0] = _transposed_tile(final, dplanes, used, words, q, t * LANES,
                                                  min(LANES, n - t * LANES), bufs[t - t0])
            for j in range(min(LANES, g - q * LANES)):
                _store_run(bufs, planes, rows[U(q * LANES + j)] * n + t0 * LANES, j, flat, n, t0, t1, unreach,
                           stream, tmp)
        if stream:
            store_fence()


@njit(parallel=True, cache=True)
def _decode_any(final, dplanes, used, words, g, out, rows, unreach):
    n = out.shape[1]
    for tb in prange((n + LANES - 1) // LANES):
        buf = np.empty(LANES * (used + 1), dtype=np.uint64)
        v0 = tb * LANES
        nv = min(LANES, n - v0)
        for q in range((g + LANES - 1) // LANES):
            planes = _transposed_tile(final, dplanes, used, words, q, v0, nv, buf)
            _store_tile_any(buf, planes, rows, q * LANES, min(LANES, g - q * LANES), out, v0, nv, unreach)


@njit(parallel=True, cache=True)
def _near(indptr, indices, sources, out, rows, unreach):
    """The depths below DEPTH_BASE, which have no code (decoded as DEPTH_BASE): 1 on the
    reached out-neighbours of instance j's source, then 0 on the source."""
    for j in prange(sources.size):
        orow = out[rows[j]]
        s = sources[j]
        for e in range(indptr[s], indptr[s + 1]):
            v = indices[e]
            if orow[v] != unreach:       # not reached: the search stopped at depth 0
                orow[v] = 1
        orow[s] = 0


def decode(final, dplanes, used, words, out, rows, unreach, stream, indptr, indices, sources) -> None:
    """out[rows[j], v] := the depth of v for instance j (the BFS from ``sources[j]`` in the graph
    ``indptr``/``indices``; ``unreach`` where ``final`` lacks the bit), for every vertex v: each
    cell of the group's rows is written once, then the few of depth 0 and 1 again. ``out`` is
    C-contiguous (rows x n); ``stream``: write its uint8 tiles with non-temporal stores (only
    where ``streamable(out)``). Leaves planes 0 .. used - 1 zero for the next group."""
    g = sources.size
    if out.dtype == np.uint8:
        _decode8(final, dplanes, used, words, g, out, rows, unreach, bool(stream))
    else:
        _decode_any(final, dplanes, used, words, g, out, rows, unreach)
    _near(indptr, indices, sources, out, rows, out.dtype.type(unreach))
