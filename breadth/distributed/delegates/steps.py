"""Local visits of the delegates search (Pan, Pearce, Owens, IPDPS'18, Sec. IV): the nd, dd and
dn subgraphs in either direction (the nn subgraph reuses ``owned.steps.td_step`` and
``apply_received``: top-down only, Sec. IV-B).

State read: the normal frontier (queue of local ids, or ``nfront`` its bitmap over local
ids), the delegate frontier (``dfront``: a bitmap over delegate numbers, the same on every
rank, or ``dqueue`` its list) and ``dvisited`` (delegates reached in earlier levels).
State written: ``dnew`` (this rank's bits of delegates it found this level; OR-reduced by
the search afterwards), ``dcand[j]`` (the parent this rank found for delegate j: written
only by the thread that set j's bit in ``dnew``, so a set bit always has its parent) and,
for dn, the local normals' parent/depth and the next normal queue.

Forward visits use the shared block walk (``kernels.top_down.walk_block``), balanced by
edges (delegates' dn/dd lists are long); reverse visits the shared bottom-up walk
(``kernels.bottom_up.walk_words``) over the unvisited targets, stopping at the first parent found. Every kernel returns the edges it examined.
``atomic`` False means one numba thread (``kernels.atomics``).
"""
from collections import namedtuple

import numpy as np
from numba import prange

from ...jit import njit
from ...kernels.atomics import U, claim, cttz, set_bit
from ...kernels.bottom_up import FOUND, NONE, first_in_frontier, low_bits, walk_words
from ...kernels.frontier import ELEM_BLOCK
from ...kernels.top_down import TD_BUFFER, TD_EDGE_BLOCK, flush_buffer, push, walk_block
from ..owned.steps import every_vertex, no_words, settle_first


@njit(inline="always", cache=True)
def has_bit(bits, j):
    j = np.int64(j)
    return (bits[j >> 6] >> np.uint64(j & 63)) & np.uint64(1) != np.uint64(0)


# ---------------------------------------------------------------- forward (top-down)
# the forward mask visit's ctx
_MaskCtx = namedtuple("_MaskCtx", "dvisited dnew dcand ids lo atomic")


@njit(inline="always", cache=True)
def _visit_mask(ctx, u, j):
    """Edge u -> delegate j: mark j found (parent: u's global id) unless already reached."""
    if not has_bit(ctx.dvisited, j) and not has_bit(ctx.dnew, j) and set_bit(ctx.dnew, np.int64(j), ctx.atomic):
        ids = ctx.ids
        ctx.dcand[j] = ids[u] if ids.size else np.int64(u) + ctx.lo
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def _mask_block(b, ip, ix, queue, qsize, offsets, dvisited, dnew, dcand, ids, lo, atomic, out, tail):
    return walk_block(b, ip, ix, queue, qsize, offsets, _visit_mask,
                      _MaskCtx(dvisited, dnew, dcand, ids, lo, atomic), out, tail)


@njit(parallel=True, cache=True)
def mask_td(ip, ix, queue, qsize, offsets, dvisited, dnew, dcand, ids, lo, atomic, out, tail):
    """Forward nd (queue: local normals, ``ids`` empty: parent = lo + u) or dd (queue: delegates,
    ``ids`` = delegate global ids) visit; ``offsets`` from ``frontier_edge_offsets``."""
    nblocks = (offsets[qsize] + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK
    for b in prange(nblocks):
        _mask_block(b, ip, ix, queue, qsize, offsets, dvisited, dnew, dcand, ids, lo, atomic, out, tail)
    return offsets[qsize]


# the forward dn visit's ctx
_DnCtx = namedtuple("_DnCtx", "parent depth dels next_level atomic")


@njit(inline="always", cache=True)
def _visit_dn(ctx, j, v):
    """Edge delegate j -> local normal v: claim v."""
    if ctx.parent[v] < 0 and claim(ctx.parent, np.int64(v), ctx.dels[j], ctx.atomic):
        ctx.depth[v] = ctx.next_level
        return np.int64(v), np.int64(0)
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def _dn_block(b, ip, ix, dqueue, qsize, offsets, parent, depth, dels, nxt, atomic, next_queue, tail):
    return walk_block(b, ip, ix, dqueue, qsize, offsets, _visit_dn, _DnCtx(parent, depth, dels, nxt, atomic),
                      next_queue, tail)


@njit(parallel=True, cache=True)
def dn_td(ip, ix, dqueue, qsize, offsets, parent, depth, dels, level, atomic, next_queue, tail):
    """Forward dn visit from the frontier delegates ``dqueue[:qsize]``; new normals go to next_queue."""
    nblocks = (offsets[qsize] + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK
    for b in prange(nblocks):
        _dn_block(b, ip, ix, dqueue, qsize, offsets, parent, depth, dels, level + 1, atomic, next_queue, tail)
    return offsets[qsize]


# ---------------------------------------------------------------- reverse (bottom-up)
MASK_BLOCK = 512          # delegates per parallel block of the reverse mask visits (prange over single
                          # delegates costs a scheduling round each under chunksize 1)


# the reverse mask visit's ctx (``d``: the delegate count)
_MaskBuCtx = namedtuple("_MaskBuCtx", "tip tix sfront dvisited dnew dcand ids lo d")


@njit(inline="always", cache=True)
def _mask_todo(ctx, w):
    return ~(ctx.dvisited[w] | ctx.dnew[w]) & low_bits(ctx.d - w * 64)


@njit(inline="always", cache=True)
def _mask_visit(ctx, k):
    """An unreached delegate k: its first source in the frontier becomes its parent candidate."""
    s, examined = first_in_frontier(ctx.tip, ctx.tix, k, ctx.sfront, U(0))
    if s < 0:
        return np.int64(NONE), examined, np.int64(0)
    ids = ctx.ids
    ctx.dcand[np.int64(k)] = ids[s] if ids.size else s + ctx.lo
    return np.int64(FOUND), examined, np.int64(0)


@njit(inline="always", cache=True)
def _mask_done(ctx, w, found, settled):
    ctx.dnew[w] |= found


@njit(cache=True)
def _mask_bu_block(b, tip, tix, sfront, dvisited, dnew, dcand, ids, lo):
    d = tip.size - 1
    ctx = _MaskBuCtx(tip, tix, sfront, dvisited, dnew, dcand, ids, np.int64(lo), np.int64(d))
    _, examined, _ = walk_words(b, MASK_BLOCK // 64, (d + 63) // 64, _mask_todo, _mask_visit, _mask_done, ctx)
    return examined


@njit(parallel=True, cache=True)
def mask_bu(tip, tix, sfront, dvisited, dnew, dcand, ids, lo):
    """Reverse nd (``tix``: local normals, ``sfront`` the normal frontier bitmap) or dd (``tix``:
    delegates, ``sfront`` = dfront) visit: each unreached delegate looks for one frontier source
    (``kernels.bottom_up.walk_words``; a block's words are its own, so ``dnew`` takes plain stores)."""
    nblocks = (tip.size - 1 + MASK_BLOCK - 1) // MASK_BLOCK
    examined = 0
    for b in prange(nblocks):
        examined += _mask_bu_block(b, tip, tix, sfront, dvisited, dnew, dcand, ids, lo)
    return examined


# the reverse dn visit's ctx (``nl``: the local normal count, see ``owned.steps.every_vertex``)
_DnBuCtx = namedtuple("_DnBuCtx", "nl tip tix dfront parent depth dels next_level buf nbuf next_queue tail")


@njit(inline="always", cache=True)
def _dn_visit(ctx, v):
    """An unreached local normal: its first frontier delegate in-neighbour becomes its parent."""
    loc = np.int64(v)
    j, examined = settle_first(ctx.parent, ctx.depth, loc, ctx.next_level, ctx.tip, ctx.tix,
                               ctx.dfront, ctx.dels)
    if j < 0:
        return np.int64(NONE), examined, np.int64(0)
    nb = ctx.nbuf
    nb[0] = push(ctx.buf, nb[0], loc, ctx.next_queue, ctx.tail)
    return np.int64(FOUND), examined, np.int64(0)


@njit(cache=True)
def _dn_bu_block(b, tip, tix, dfront, parent, depth, dels, nxt, next_queue, tail):
    nl = tip.size - 1
    buf = np.empty(TD_BUFFER, dtype=next_queue.dtype)
    nb = np.zeros(1, dtype=np.int64)
    ctx = _DnBuCtx(np.int64(nl), tip, tix, dfront, parent, depth, dels, nxt, buf, nb, next_queue, tail)
    _, examined, _ = walk_words(b, ELEM_BLOCK // 64, (nl + 63) // 64, every_vertex, _dn_visit, no_words, ctx)
    flush_buffer(buf, nb[0], next_queue, tail)
    return examined


@njit(parallel=True, cache=True)
def dn_bu(tip, tix, dfront, parent, depth, dels, level, next_queue, tail):
    """Reverse dn visit: each unreached local normal looks for a frontier delegate in-neighbour
    (``kernels.bottom_up.walk_words``)."""
    nblocks = (tip.size - 1 + ELEM_BLOCK - 1) // ELEM_BLOCK
    examined = 0
    for b in prange(nblocks):
        examined += _dn_bu_block(b, tip, tix, dfront, parent, depth, dels, level + 1, next_queue, tail)
    return examined


@njit(cache=True)
def degree_sum(ip, items, count):
    """Sum of the row lengths of items[:count]."""
    total = 0
    for i in range(count):
        u = items[i]
        total += ip[u + 1] - ip[u]
    return total


@njit(cache=True)
def owner_parents(mine, ddepth, dcand, dd_ip, dd_ix, use_dd, ddT_ip, ddT_ix, ndT_ip, ndT_ix, depth, lo, dels, out):
    """Parents of this rank's reached delegates ``mine`` (numbers) found without communication:
    its own candidate, else an in-neighbour one level up among the sources of its local dd arcs
    into the delegate (``ddT``; ``use_dd`` also scans the dd row itself, valid only where every
    dd arc's reverse is local too), else among its local normals with an nd arc to the delegate. out[i] = -1 where none is known here."""
    for i in range(mine.size):
        j = mine[i]
        want = ddepth[j] - 1
        p = dcand[j]
        if p < 0 and use_dd:
            for e in range(dd_ip[j], dd_ip[j + 1]):
                if ddepth[dd_ix[e]] == want:
                    p = dels[dd_ix[e]]
                    break
        if p < 0:
            for e in range(ddT_ip[j], ddT_ip[j + 1]):
                if ddepth[ddT_ix[e]] == want:
                    p = dels[ddT_ix[e]]
                    break
        if p < 0:
            for e in range(ndT_ip[j], ndT_ip[j + 1]):
                if depth[ndT_ix[e]] == want:
                    p = np.int64(ndT_ix[e]) + lo
                    break
        out[i] = p


@njit(cache=True)
def bits_to_list(mask, d, out):
    """out[:k] := the delegate numbers (< d) whose bits are set in ``mask``, ascending; returns k."""
    k = 0
    for w in range(mask.size):
        word = mask[w]
        while word != np.uint64(0):
            low = word & (~word + np.uint64(1))          # lowest set bit
            j = w * 64 + np.int64(cttz(low))
            if j < d:
                out[k] = j
                k += 1
            word ^= low
    return k
