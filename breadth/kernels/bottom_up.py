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

The walk (``walk_words``, with the in-edge scan ``first_in_frontier``) is the one
implementation of this loop in breadth: the distributed steps call it with their own
per-vertex callees, as the top-down kernels call ``top_down.walk_block``.

Subscripts are unsigned (``atomics.U``): numba's negative-index check would be a large
share of the in-edge scan.

Returns (awake count = size of the next frontier, edges examined).
"""
from typing import NamedTuple

import numpy as np
from numba import prange

from ..jit import njit
from .atomics import U, borrowed, cttz
from .frontier import WORD_BLOCK

NONE, FOUND, SETTLED = 0, 1, 2      # what a bottom-up visit did with its vertex


@njit(inline="always", cache=True)
def first_in_frontier(in_indptr, in_indices, v, front, base):
    """The early-exit in-edge scan: v's first in-neighbour u (row v of ``in_indptr``) whose bit
    ``u - base`` is set in ``front``, or -1; and the in-edges examined."""
    j = U(in_indptr[U(v)])
    end = U(in_indptr[U(v) + U(1)])
    start = j
    while j < end:
        u = U(in_indices[j])
        j += U(1)
        c = u - U(base)
        if (front[c >> U(6)] >> (c & U(63))) & U(1):
            return np.int64(u), np.int64(j - start)
    return np.int64(-1), np.int64(j - start)


@njit(inline="always", cache=True)
def low_bits(count):
    """A word with its ``count`` (<= 64) lowest bits set: the vertices of a last, partial word."""
    return ~U(0) if count >= 64 else (U(1) << U(count)) - U(1)


@njit(inline="always", cache=True)
def walk_words(b, block, nwords, todo, visit, done, ctx):
    """The bottom-up block walk: words [b * block, (b + 1) * block) of a vertex bitmap (of
    ``nwords`` words); the twin of ``top_down.walk_block`` (Ligra's dense edgeMap).

    Every bottom-up kernel of breadth (single-node, distributed) is this walk with its own
    per-vertex callees, module-level ``@njit(inline="always")`` functions:
    ``todo(ctx, w)`` gives word w's vertices to try (its unvisited bits); each, lowest first,
    goes to ``visit(ctx, v)`` (usually ``first_in_frontier`` and what to do with a parent),
    which returns ``(code, examined, weight)``: ``FOUND`` sets v's bit in the word's found
    mask and adds ``weight`` to the walk's sum, ``SETTLED`` its bit in the settled mask (a
    vertex that needs no visit again), ``NONE`` nothing; ``done(ctx, w, found, settled)``
    stores the word's result. One thread owns each word, so neither needs atomics. ``ctx``
    is borrowed as in ``walk_block`` (per-block scratch included). Returns (vertices found,
    in-edges examined, weight sum).
    """
    ctx = borrowed(ctx)
    nfound = 0
    examined = 0
    weight = 0
    for w in range(b * block, min(nwords, (b + 1) * block)):
        todo_bits = todo(ctx, w)
        found = U(0)
        settled = U(0)
        while todo_bits:
            bit = cttz(todo_bits)
            todo_bits &= todo_bits - U(1)
            code, ex, wt = visit(ctx, U(w * 64) + bit)
            examined += ex
            if code == FOUND:
                found |= U(1) << bit
                nfound += 1
                weight += wt
            elif code == SETTLED:
                settled |= U(1) << bit
        done(ctx, w, found, settled)
    return nfound, examined, weight


class _Ctx(NamedTuple):
    """The single-node visit's ctx."""

    in_indptr: np.ndarray
    in_indices: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    front: np.ndarray
    next_front: np.ndarray
    visited: np.ndarray
    next_level: int


@njit(inline="always", cache=True)
def _todo(ctx, w):
    return ~ctx.visited[U(w)]


@njit(inline="always", cache=True)
def _visit(ctx, v):
    """Single-node visit: the first frontier in-neighbour becomes v's parent; no in-edges: settled."""
    in_indptr = ctx.in_indptr
    if in_indptr[v] == in_indptr[v + U(1)]:      # no in-edges: unreachable, settled now
        ctx.parent[v] = -1
        ctx.depth[v] = -1
        return np.int64(SETTLED), np.int64(0), np.int64(0)
    u, examined = first_in_frontier(in_indptr, ctx.in_indices, v, ctx.front, U(0))
    if u >= 0:
        ctx.parent[v] = u
        ctx.depth[v] = ctx.next_level
        return np.int64(FOUND), examined, np.int64(0)
    return np.int64(NONE), examined, np.int64(0)


@njit(inline="always", cache=True)
def _done(ctx, w, found, settled):
    ctx.next_front[U(w)] = found
    ctx.visited[U(w)] |= found | settled


@njit(cache=True)
def _bu_block(b, in_indptr, in_indices, parent, depth, front, next_front, visited, next_level):
    """Bottom-up over the words of block b; returns (vertices found, edges examined)."""
    ctx = _Ctx(in_indptr, in_indices, parent, depth, front, next_front, visited, next_level)
    awake, examined, _ = walk_words(b, WORD_BLOCK, front.size, _todo, _visit, _done, ctx)
    return awake, examined


@njit(parallel=True, cache=True)
def bu_step(in_indptr, in_indices, parent, depth, front, next_front, visited, level):
    nblocks = (front.size + WORD_BLOCK - 1) // WORD_BLOCK
    awake = 0
    examined = 0
    for b in prange(nblocks):
        block_awake, block_examined = _bu_block(np.int64(b), in_indptr, in_indices, parent, depth, front, next_front,
                                                visited, level + 1)
        awake += block_awake
        examined += block_examined
    return awake, examined
