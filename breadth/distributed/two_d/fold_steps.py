"""Local steps of the 2D search on one edge block (Beamer, Buluç et al., Section III-B, Algorithm 4).

Top-down needs no kernel of its own: ``owned.steps.td_step`` walks the block's out-arcs
from the expanded column frontier with an empty owner map (``empty_map``: this rank
settles nothing itself), so every newly seen destination becomes a (vertex, parent)
candidate for the fold, each at most once per search per rank (its ``sent`` bitmap).

Bottom-up (``bu_piece``, the shared walk ``kernels.bottom_up.walk_words``): one sub-step on
one owner piece of the row range. For every
vertex of the piece not yet *completed* (visited before this level, or found by an
earlier sub-step of this level on another rank of the processor row), the block's
in-arcs are scanned against the expanded column frontier bitmap; the first frontier
source becomes the parent candidate, the vertex's completed bit is set (so the ranks
after this one skip it) and so is its ``sent`` bit (top-down will not offer it again).
The piece is 64-aligned, so one thread owns each completed word and ``sent`` word.

Invariant: on exit the candidates appended are exactly the piece's vertices whose
completed bit this call set.
"""
from collections import namedtuple

import numpy as np
from numba import prange

from ...jit import njit
from ...kernels.bottom_up import FOUND, NONE, first_in_frontier, walk_words
from ...kernels.frontier import WORD_BLOCK
from ..owned.partition import RangeMap
from ..owned.steps import flush_pairs, unseen


def empty_map(bounds, col_lo) -> RangeMap:
    """A kernel map owning nothing whose ``global_of`` turns block rows (column-range offsets) into ids."""
    return RangeMap(bounds, int(col_lo), int(col_lo))


# the bottom-up visit's ctx: the piece (``nl`` vertices, ``seen`` its completed bitmap), then this block's
# candidate buffers
_BuCtx = namedtuple("_BuCtx", "in_indptr in_indices row_off first nl seen front col_lo sent buf_v buf_p nbuf")


@njit(inline="always", cache=True)
def _visit(ctx, v):
    """A piece vertex not yet completed: its first block in-neighbour in the column frontier is its
    parent candidate, buffered with the vertex."""
    u, examined = first_in_frontier(ctx.in_indptr, ctx.in_indices, ctx.row_off + np.int64(v),
                                    ctx.front, ctx.col_lo)
    if u < 0:
        return np.int64(NONE), examined, np.int64(0)
    nb = ctx.nbuf
    ctx.buf_v[nb[0]] = ctx.first + np.int64(v)
    ctx.buf_p[nb[0]] = u
    nb[0] += 1
    return np.int64(FOUND), examined, np.int64(0)


@njit(inline="always", cache=True)
def _done(ctx, w, found, settled):
    if found:
        ctx.seen[w] |= found
        ctx.sent[(ctx.first + w * 64) >> 6] |= found


@njit(cache=True)
def _bu_block(b, in_indptr, in_indices, row_off, first, nverts, completed, front, col_lo, sent, cand_v, cand_p,
              ctail):
    buf_v = np.empty(WORD_BLOCK * 64, dtype=np.int64)
    buf_p = np.empty(WORD_BLOCK * 64, dtype=np.int64)
    nb = np.zeros(1, dtype=np.int64)
    ctx = _BuCtx(in_indptr, in_indices, np.int64(row_off), np.int64(first), np.int64(nverts), completed, front,
           np.int64(col_lo), sent, buf_v, buf_p, nb)
    _, examined, _ = walk_words(b, WORD_BLOCK, (nverts + 63) // 64, unseen, _visit, _done, ctx)
    flush_pairs(buf_v, buf_p, nb[0], cand_v, cand_p, ctail)
    return examined


@njit(parallel=True, cache=True)
def bu_piece(in_indptr, in_indices, row_off, first, nverts, completed, front, col_lo, sent, cand_v, cand_p, ctail):
    """Bottom-up over the piece [first, first + nverts) (block rows row_off ...) against ``front``
    (bit u - col_lo: u is in the frontier; ``kernels.bottom_up.walk_words``). Returns the in-arcs examined."""
    nwords = (nverts + 63) // 64
    examined = 0
    for b in prange((nwords + WORD_BLOCK - 1) // WORD_BLOCK):
        examined += _bu_block(b, in_indptr, in_indices, row_off, first, nverts, completed, front, col_lo, sent,
                              cand_v, cand_p, ctail)
    return examined
