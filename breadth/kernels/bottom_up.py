"""Bottom-up BFS step (bitmap frontier), after GAP's ``BUStep`` (Beamer et al., SC'12).

Every unvisited vertex v scans its in-edges and stops at the first neighbour
found in the frontier bitmap, which becomes its parent ("early exit"). Each
parallel block owns whole words of the bitmaps, so no bit is ever written by
two threads and no atomics are needed. Unvisited vertices are found from a
``visited`` bitmap (bits past n count as visited) by iterating its zero bits,
so visited vertices cost nothing: a step reads n / 8 bytes of bitmap instead
of every parent, and deep thin graphs do not pay O(n) per level.

A vertex without in-edges can never be reached (only seeded), so the first
bottom-up step that meets one settles it as unvisited for good: parent and
depth -1 (what ``frontier.mark_unvisited`` would write at the end) and its
visited bit set, so later steps skip it like a visited vertex (Kronecker graphs
have about 40% such vertices, which every later bottom-up level would scan again).

Invariants: on entry ``front`` holds exactly the vertices at depth ``level``,
``visited`` exactly the vertices with ``parent >= 0`` plus vertices without
in-edges whose parent and depth are already -1; on exit ``next_front`` holds
exactly the vertices newly visited at depth ``level + 1`` and ``visited``
includes them and every vertex without in-edges.

Subscripts are unsigned (``atomics.U``): numba's negative-index check would be a large
share of the in-edge scan.

Returns (awake count = size of the next frontier, edges examined).
"""
import numpy as np
from numba import njit, prange

from .atomics import U, cttz
from .frontier import WORD_BLOCK


@njit(cache=True)
def _bu_block(b, in_indptr, in_indices, parent, depth, front, next_front, visited, next_level):
    """Bottom-up over the words of block b; returns (vertices found, edges examined).

    Every index is unsigned (also ``j`` and ``u``), so no subscript pays numba's
    negative-index check."""
    awake = 0
    examined = 0
    for w in range(b * WORD_BLOCK, min(front.size, (b + 1) * WORD_BLOCK)):
        found = U(0)
        settled = U(0)
        todo = ~visited[U(w)]
        while todo:
            bit = cttz(todo)
            todo &= todo - U(1)
            v = U(w * 64) + bit
            j = U(in_indptr[v])
            end = U(in_indptr[v + U(1)])
            if j == end:                     # no in-edges: unreachable, settled now
                parent[v] = -1
                depth[v] = -1
                settled |= U(1) << bit
                continue
            start = j
            while j < end:
                u = U(in_indices[j])
                j += U(1)
                if (front[u >> U(6)] >> (u & U(63))) & U(1):
                    parent[v] = u
                    depth[v] = next_level
                    found |= U(1) << bit
                    awake += 1
                    break
            examined += np.int64(j - start)
        next_front[U(w)] = found
        visited[U(w)] |= found | settled
    return awake, examined


@njit(parallel=True, cache=True)
def bu_step(in_indptr, in_indices, parent, depth, front, next_front, visited, level):
    nblocks = (front.size + WORD_BLOCK - 1) // WORD_BLOCK
    awake = 0
    examined = 0
    for b in prange(nblocks):
        block_awake, block_examined = _bu_block(b, in_indptr, in_indices, parent, depth, front, next_front,
                                                visited, level + 1)
        awake += block_awake
        examined += block_examined
    return awake, examined
