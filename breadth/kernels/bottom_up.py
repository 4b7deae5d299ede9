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
have ~40% such vertices: kron-22's later bottom-up levels took a third longer
scanning them).

Invariants: on entry ``front`` holds exactly the vertices at depth ``level``,
``visited`` exactly the vertices with ``parent >= 0`` plus vertices without
in-edges whose parent and depth are already -1; on exit ``next_front`` holds
exactly the vertices newly visited at depth ``level + 1`` and ``visited``
includes them and every vertex without in-edges.

Returns (awake count = size of the next frontier, edges examined).
"""
import numpy as np
from numba import njit, prange

from .atomics import cttz
from .frontier import WORD_BLOCK


@njit(cache=True)
def _bu_block(b, in_indptr, in_indices, parent, depth, front, next_front, visited, next_level):
    """Bottom-up over the words of block b; returns (vertices found, edges examined).

    Indices are unsigned: numba then emits no negative-index wraparound per array access
    (measured: kron-22's first bottom-up level 44 -> 38 ms, urand-22's 48 -> 44 ms)."""
    awake = 0
    examined = 0
    for w in range(b * WORD_BLOCK, min(front.size, (b + 1) * WORD_BLOCK)):
        found = np.uint64(0)
        settled = np.uint64(0)
        todo = ~visited[w]
        while todo:
            bit = cttz(todo)
            todo &= todo - np.uint64(1)
            v = np.uint64(w * 64) + bit
            j = np.uint64(in_indptr[v])
            end = np.uint64(in_indptr[v + np.uint64(1)])
            if j == end:                     # no in-edges: unreachable, settled now
                parent[v] = -1
                depth[v] = -1
                settled |= np.uint64(1) << bit
                continue
            start = j
            while j < end:
                u = np.uint64(in_indices[j])
                j += np.uint64(1)
                if (front[u >> np.uint64(6)] >> (u & np.uint64(63))) & np.uint64(1):
                    parent[v] = u
                    depth[v] = next_level
                    found |= np.uint64(1) << bit
                    awake += 1
                    break
            examined += np.int64(j - start)
        next_front[w] = found
        visited[w] |= found | settled
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
