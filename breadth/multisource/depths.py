"""Depths of a group's instances as bit planes, decoded into the depth matrix once per group.

Writing each new depth into the vertex-major depth matrix at the level it is
found touches a vertex's whole row (|S| bytes, the group's columns scattered
over it) at every level the vertex is reached by some instance: on kron-18 with
1024 sources that is several passes over the 268 MB matrix per group, more
time than the traversal. Instead, identification (``status.record_new``) ORs
the instances newly reached at depth L into *depth plane* p of the vertex for
every bit p of L: plane p holds, per status word, bit p of each instance's
depth (the same W words per vertex as the status array). That is a few word
ORs per vertex and level, on arrays as small as the status array.

At the group's end ``decode`` writes each (vertex, instance) cell once: the
depth from the planes where the final status has the instance's bit, the
dtype's maximum (unreachable) elsewhere, eight instances at a time for uint8
(a byte of each plane spread into eight bytes by a table).

Plane p is first written at depth 2**p; it is cleared just before
(``first_use``), so a traversal that stays shallow touches only the planes it
needs, and ``decode`` reads only planes 0 .. bit_length(deepest depth) - 1.

Vertices without in-edges that are no source (a third of a Graph500 Kronecker
graph's) are unreachable from every source: when the whole depth matrix is
decoded group by group, the first group fills their rows and the others skip
them (``decode_skipping``, ``DepthMatrix.dead``).
"""
import numpy as np
from numba import njit, prange

from ..kernels.atomics import U
from ..kernels.frontier import fill
from .status import ALL

__all__ = ["plane_count", "planes_used", "first_use", "decode", "decode_skipping", "dead_vertices"]

DECODE_BLOCK = 512       # vertices per parallel block of the decode
SPREAD = np.array([sum(((b >> t) & 1) << (8 * t) for t in range(8)) for b in range(256)], dtype=np.uint64)


def plane_count(depth_cap: int) -> int:
    """Planes needed for depths up to ``depth_cap``."""
    return max(1, int(depth_cap).bit_length())


def planes_used(deepest: int) -> int:
    """Planes holding depths up to ``deepest`` (the others were never cleared)."""
    return int(deepest).bit_length()


@njit(cache=True)
def first_use(dplanes, depth):
    """Before depths ``depth`` are recorded: clear the plane first written at this depth, if any."""
    if depth > 0 and depth & (depth - 1) == 0:
        p = 0
        while (1 << (p + 1)) <= depth:
            p += 1
        if p < dplanes.shape[0]:
            fill(dplanes[p], np.uint64(0))


@njit(inline="always", cache=True)
def _decode_vertex8(v, final, dplanes, used, words, g, out, rows, tile, tile64):
    """uint8: eight instances per step into the tile, then one copy into the row."""
    for q in range(words):   # a word every instance reached, a plane word of zeros: nothing to spread
        vq = U(v * words + q)
        s = final[vq]
        if s == ALL:
            for k in range(8):
                tile64[U(q * 8 + k)] = np.uint64(0)
        else:
            for k in range(8):
                tile64[U(q * 8 + k)] = SPREAD[(~s >> np.uint64(8 * k)) & np.uint64(0xFF)] * np.uint64(0xFF)
        for p in range(used):
            w = dplanes[U(p), vq]
            if w:
                for k in range(8):
                    tile64[U(q * 8 + k)] |= SPREAD[(w >> np.uint64(8 * k)) & np.uint64(0xFF)] << np.uint64(p)
    orow = out[U(v)]
    for j in range(g):
        orow[U(rows[U(j)])] = tile[U(j)]


@njit(cache=True)
def _decode_vertex(v, final, dplanes, used, words, g, out, rows, unreach):
    """Any dtype: instance by instance."""
    for q in range(words):
        vq = v * words + q
        s = final[vq]
        for b in range(min(64, g - q * 64)):
            bit = np.uint64(b)
            if (s >> bit) & np.uint64(1):
                dep = 0
                for p in range(used):
                    dep |= int((dplanes[p, vq] >> bit) & np.uint64(1)) << p
                out[v, rows[q * 64 + b]] = dep
            else:
                out[v, rows[q * 64 + b]] = unreach


@njit(parallel=True, cache=True)
def decode_skipping(final, dplanes, used, words, g, out, rows, unreach, dead, fill_dead):
    """``decode``, skipping the vertices with ``dead[v]`` (no in-edge and no source of the
    traversal: no instance of any group reaches them). With ``fill_dead`` their whole rows
    (every group's columns) are set to ``unreach`` instead, which one group does so that the
    others can skip them: a row-long fill costs a fraction of decoding it."""
    n = out.shape[0]
    lanes = unreach == 255
    for b in prange((n + DECODE_BLOCK - 1) // DECODE_BLOCK):
        tile64 = np.empty(words * 8, dtype=np.uint64)
        tile = tile64.view(np.uint8)
        for v in range(b * DECODE_BLOCK, min(n, (b + 1) * DECODE_BLOCK)):
            if dead[v]:
                if fill_dead:
                    orow = out[v]
                    for c in range(orow.size):
                        orow[c] = unreach
                continue
            if lanes:
                _decode_vertex8(v, final, dplanes, used, words, g, out, rows, tile, tile64)
            else:
                _decode_vertex(v, final, dplanes, used, words, g, out, rows, unreach)


@njit(cache=True)
def decode(final, dplanes, used, words, g, out, rows, unreach):
    """out[v, rows[j]] := the depth of v for instance j < g (``unreach`` where ``final`` lacks
    the bit), for every vertex: each cell of the group's columns is written once."""
    decode_skipping(final, dplanes, used, words, g, out, rows, unreach, np.zeros(out.shape[0], dtype=np.bool_),
                    False)


def dead_vertices(in_indptr: np.ndarray, sources: np.ndarray) -> np.ndarray:
    """Vertices without in-edges that are no source (unreachable from every source), as a bool mask."""
    dead = np.diff(in_indptr) == 0
    dead[sources] = False
    return dead
