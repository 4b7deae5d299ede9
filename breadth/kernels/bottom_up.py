"""Bottom-up BFS step (bitmap frontier), after GAP's ``BUStep`` (Beamer et al., SC'12).

Every unvisited vertex v scans its in-edges and stops at the first neighbour
found in the frontier bitmap, which becomes its parent ("early exit"). Each
parallel block owns whole words of the next-frontier bitmap, so no bit is ever
written by two threads and no atomics are needed.

Invariants: on entry ``front`` holds exactly the vertices at depth ``level``
and ``parent[v] == -1`` iff v is unvisited; on exit ``next_front`` holds
exactly the vertices newly visited at depth ``level + 1``.

Returns (awake count = size of the next frontier, edges examined).
"""
import numpy as np
from numba import njit, prange

from .frontier import WORD_BLOCK


@njit(parallel=True, cache=True)
def bu_step(in_indptr, in_indices, parent, depth, front, next_front, level):
    n = parent.size
    nwords = front.size
    nblocks = (nwords + WORD_BLOCK - 1) // WORD_BLOCK
    awake = 0
    examined = 0
    for b in prange(nblocks):
        block_awake = 0
        block_examined = 0
        for w in range(b * WORD_BLOCK, min(nwords, (b + 1) * WORD_BLOCK)):
            word = np.uint64(0)
            base = w * 64
            for bit in range(min(64, n - base)):
                v = base + bit
                if parent[v] < 0:
                    for j in range(in_indptr[v], in_indptr[v + 1]):
                        u = in_indices[j]
                        block_examined += 1
                        if (front[u >> 6] >> np.uint64(u & 63)) & np.uint64(1):
                            parent[v] = u
                            depth[v] = level + 1
                            word |= np.uint64(1) << np.uint64(bit)
                            block_awake += 1
                            break
            next_front[w] = word
        awake += block_awake
        examined += block_examined
    return awake, examined
