"""Local steps of the 2D search on one edge block (Beamer, Buluç et al., Section III-B, Algorithm 4).

Top-down needs no kernel of its own: ``one_d.owned_steps.td_step`` walks the block's out-arcs
from the expanded column frontier with an empty owner map (``empty_map``: this rank
settles nothing itself), so every newly seen destination becomes a (vertex, parent)
candidate for the fold, each at most once per search per rank (its ``sent`` bitmap).

Bottom-up (``bu_piece``): one sub-step on one owner piece of the row range. For every
vertex of the piece not yet *completed* (visited before this level, or found by an
earlier sub-step of this level on another rank of the processor row), the block's
in-arcs are scanned against the expanded column frontier bitmap; the first frontier
source becomes the parent candidate, the vertex's completed bit is set (so the ranks
after this one skip it) and so is its ``sent`` bit (top-down will not offer it again).
The piece is 64-aligned, so one thread owns each completed word and ``sent`` word.

Invariant: on exit the candidates appended are exactly the piece's vertices whose
completed bit this call set.
"""
import numpy as np
from numba import njit, prange

from ...kernels.frontier import WORD_BLOCK
from ..one_d.owned_steps import flush_pairs
from ..partition import RangeMap


def empty_map(bounds, col_lo) -> RangeMap:
    """A kernel map owning nothing whose ``global_of`` turns block rows (column-range offsets) into ids."""
    return RangeMap(bounds, int(col_lo), int(col_lo))


@njit(parallel=True, cache=True)
def bu_piece(in_indptr, in_indices, row_off, first, nverts, completed, front, col_lo, sent, cand_v, cand_p, ctail):
    """Bottom-up over the piece [first, first + nverts) (block rows row_off ...) against ``front``
    (bit u - col_lo: u is in the frontier). Returns the in-arcs examined."""
    nwords = (nverts + 63) // 64
    nblocks = (nwords + WORD_BLOCK - 1) // WORD_BLOCK
    examined = 0
    for b in prange(nblocks):
        buf_v = np.empty(WORD_BLOCK * 64, dtype=np.int64)
        buf_p = np.empty(WORD_BLOCK * 64, dtype=np.int64)
        nb = 0
        ex = 0
        for w in range(b * WORD_BLOCK, min(nwords, (b + 1) * WORD_BLOCK)):
            word = completed[w]
            found = np.uint64(0)
            base = w * 64
            for bit in range(min(64, nverts - base)):
                if (word >> np.uint64(bit)) & np.uint64(1):
                    continue
                row = row_off + base + bit
                for k in range(in_indptr[row], in_indptr[row + 1]):
                    u = in_indices[k]
                    ex += 1
                    c = u - col_lo
                    if (front[c >> 6] >> np.uint64(c & 63)) & np.uint64(1):
                        found |= np.uint64(1) << np.uint64(bit)
                        buf_v[nb] = first + base + bit
                        buf_p[nb] = u
                        nb += 1
                        break
            if found:
                completed[w] = word | found
                sw = (first + base) >> 6
                sent[sw] |= found
        flush_pairs(buf_v, buf_p, nb, cand_v, cand_p, ctail)
        examined += ex
    return examined
