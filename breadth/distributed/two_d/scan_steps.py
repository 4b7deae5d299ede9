"""Local steps of the 2D bitmap-scan search on one edge block (Fu et al., "Parallel Breadth First
Search on GPU Clusters" -- MapGraph --, Section 3: 2D bitmap frontiers, levels only).

Every rank of processor row i keeps the row range's *visited* bitmap (the same on all of them:
the row contraction gives each the whole row's discoveries) and receives the column range's
frontier as a bitmap. A level's local step writes the block's discoveries as a row-range bitmap
``next_row`` (bit v - row_lo), in either direction:

* top-down (``td_scan``): the shared block walk (``kernels.top_down.walk_block``) over the
  frontier's block rows; an unvisited destination's bit is set (atomically: threads share words);
* bottom-up (``bu_scan``): the shared walk (``kernels.bottom_up.walk_words``): each unvisited
  row-range vertex scans its block in-arcs for a source in the column frontier (one thread per
  word: plain stores).

``settle_piece``: the owner's depths from its piece of the contracted bitmap. ``parent_candidates``
(after the search): for every reached row-range vertex, the smallest block in-neighbour one level
closer -- the row's minimum over its blocks is a BFS parent (levels are exact).
"""
from collections import namedtuple

import numpy as np
from numba import prange

from ...jit import njit
from ...kernels.atomics import set_bit
from ...kernels.bottom_up import FOUND, NONE, first_in_frontier, walk_words
from ...kernels.frontier import WORD_BLOCK
from ...kernels.top_down import TD_EDGE_BLOCK, walk_block
from ..owned.steps import unseen

# the top-down visit's ctx
_TdCtx = namedtuple("_TdCtx", "visited next_row row_lo atomic")


@njit(inline="always", cache=True)
def _visit(ctx, u, v):
    b = v - ctx.row_lo
    if not (ctx.visited[b >> 6] >> np.uint64(b & 63)) & np.uint64(1):
        set_bit(ctx.next_row, b, ctx.atomic)
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def _td_block(b, indptr, indices, queue, qsize, offsets, visited, next_row, row_lo, atomic, out, tail):
    ctx = _TdCtx(visited, next_row, np.int64(row_lo), atomic)
    return walk_block(b, indptr, indices, queue, qsize, offsets, _visit, ctx, out, tail)


@njit(parallel=True, cache=True)
def td_scan(indptr, indices, queue, qsize, offsets, visited, next_row, row_lo, atomic, out, tail):
    """next_row |= unvisited destinations of the block rows queue[:qsize] (offsets: their edge prefix)."""
    nblocks = (offsets[qsize] + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK
    for b in prange(nblocks):
        _td_block(b, indptr, indices, queue, qsize, offsets, visited, next_row, row_lo, atomic, out, tail)


# the bottom-up visit's ctx (``nl`` row-range vertices, ``seen`` their visited bitmap)
_BuCtx = namedtuple("_BuCtx", "in_indptr in_indices nl seen front col_lo next_row")


@njit(inline="always", cache=True)
def _bu_visit(ctx, v):
    u, examined = first_in_frontier(ctx.in_indptr, ctx.in_indices, v, ctx.front, ctx.col_lo)
    return np.int64(FOUND if u >= 0 else NONE), examined, np.int64(0)


@njit(inline="always", cache=True)
def _bu_done(ctx, w, found, settled):
    ctx.next_row[w] = found


@njit(cache=True)
def _bu_block(b, in_indptr, in_indices, nrows, visited, front, col_lo, next_row):
    ctx = _BuCtx(in_indptr, in_indices, np.int64(nrows), visited, front, np.int64(col_lo), next_row)
    _, examined, _ = walk_words(b, WORD_BLOCK, (nrows + 63) // 64, unseen, _bu_visit, _bu_done, ctx)
    return examined


@njit(parallel=True, cache=True)
def bu_scan(in_indptr, in_indices, nrows, visited, front, col_lo, next_row):
    """next_row := unvisited row-range vertices with a block in-neighbour in ``front``
    (``kernels.bottom_up.walk_words``); returns arcs examined."""
    nwords = (nrows + 63) // 64
    examined = 0
    for b in prange((nwords + WORD_BLOCK - 1) // WORD_BLOCK):
        examined += _bu_block(b, in_indptr, in_indices, nrows, visited, front, col_lo, next_row)
    return examined


@njit(parallel=True, cache=True)
def settle_piece(next_row, first_word, depth, level, degree):
    """depth := level + 1 for the owned vertices set in next_row (words from ``first_word``);
    returns (their count, their out-degree sum)."""
    nwords = (depth.size + 63) // 64
    count = 0
    scout = 0
    for w in prange(nwords):
        c, s = _settle_word(w, next_row[first_word + w], depth, level, degree)
        count += c
        scout += s
    return count, scout


@njit(cache=True)
def _settle_word(w, word, depth, level, degree):
    """settle_piece for word w: (vertices set, their out-degree sum)
    (a function of its own so that the prange reduction compiles on Python >= 3.12, numba issue 10132)."""
    c = 0
    s = 0
    if word:
        for bit in range(min(64, depth.size - w * 64)):
            if (word >> np.uint64(bit)) & np.uint64(1):
                loc = w * 64 + bit
                depth[loc] = level + 1
                c += 1
                s += degree[loc]
    return c, s


@njit(parallel=True, cache=True)
def parent_candidates(in_indptr, in_indices, row_lo, depth, none, cand):
    """cand[row] := the smallest block in-neighbour u of v = row_lo + row with depth[u] = depth[v] - 1
    (``none`` when v is a seed, unreached, or has no such in-neighbour in this block)."""
    for row in prange(cand.size):
        v = row_lo + row
        d = depth[v]
        best = none
        if d > 0:
            for k in range(in_indptr[row], in_indptr[row + 1]):
                u = in_indices[k]
                if depth[u] == d - 1 and u < best:
                    best = u
        cand[row] = best
