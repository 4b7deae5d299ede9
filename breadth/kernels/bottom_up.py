"""Bottom-up BFS step (bitmap frontier), after GAP's ``BUStep`` (Beamer et al., SC'12).

Every unvisited vertex v scans its in-edges and stops at the first neighbour
found in the frontier bitmap, which becomes its parent ("early exit"). Each
parallel block owns whole words of the bitmaps, so no bit is ever written by
two threads and no atomics are needed. Unvisited vertices are found from a
``visited`` bitmap (bits past n count as visited) by iterating its zero bits,
so visited vertices cost nothing: a step reads n / 8 bytes of bitmap instead
of every parent, and deep thin graphs do not pay O(n) per level.

Invariants: on entry ``front`` holds exactly the vertices at depth ``level``,
``visited`` exactly the vertices with ``parent >= 0``; on exit ``next_front``
holds exactly the vertices newly visited at depth ``level + 1`` and
``visited`` includes them.

Subscripts are unsigned (``atomics.U``): numba's negative-index check costs ~25% here.

Returns (awake count = size of the next frontier, edges examined).
"""
import numpy as np
from numba import njit, prange

from .atomics import U, cttz
from .frontier import WORD_BLOCK


@njit(parallel=True, cache=True)
def bu_step(in_indptr, in_indices, parent, depth, front, next_front, visited, level):
    nwords = front.size
    nblocks = (nwords + WORD_BLOCK - 1) // WORD_BLOCK
    awake = 0
    examined = 0
    for b in prange(nblocks):
        block_awake = 0
        block_examined = 0
        for w in range(b * WORD_BLOCK, min(nwords, (b + 1) * WORD_BLOCK)):
            word = np.uint64(0)
            todo = ~visited[U(w)]
            while todo:
                bit = cttz(todo)
                todo &= todo - np.uint64(1)
                v = w * 64 + bit
                for j in range(in_indptr[U(v)], in_indptr[U(v + 1)]):
                    u = in_indices[U(j)]
                    block_examined += 1
                    if (front[U(u >> 6)] >> np.uint64(u & 63)) & np.uint64(1):
                        parent[U(v)] = u
                        depth[U(v)] = level + 1
                        word |= np.uint64(1) << np.uint64(bit)
                        block_awake += 1
                        break
            next_front[U(w)] = word
            visited[U(w)] |= word
        awake += block_awake
        examined += block_examined
    return awake, examined
