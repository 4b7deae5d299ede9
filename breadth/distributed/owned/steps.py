"""Local BFS steps on *owner* state (the all-to-all exchange): each rank holds parent and depth
of its own vertices only (Buluç & Madduri, SC'11, 1D algorithm; the pattern ButterFly replaces).

Rows are local ids, columns global ids; ownership is asked of the partition's kernel map
(``owned.partition.local_of`` / ``global_of``), so the steps serve any layout whose ranks hold
the rows of the vertices they own.

* top-down (``td_step``): the shared block walk (``kernels.top_down.walk_block``) over
  the owned frontier. An owned neighbour is claimed directly; for a remote one a
  (vertex, parent) candidate is emitted, each remote vertex at most once per search
  (the ``sent`` bitmap: once sent, its owner will have settled it by the end of that
  level). Candidates are buffered per block and flushed with one atomic add;
* ``apply_received``: the owner settles the candidates routed to it;
* bottom-up (``bu_step``): the shared bottom-up walk (``kernels.bottom_up.walk_words``):
  owned unvisited vertices read the all-gathered global frontier bitmap; each rank writes only its own words of the next one (bit = local
  id: the partition's ranges are 64-aligned, see ``Partition.word_counts``).

``atomic`` False means numba runs one thread (``kernels.atomics.claim``). Invariant of
every step: on exit, the vertices it newly settled are exactly those appended to its
output queue, and each returns their scout count (out-degree sum).
"""
from collections import namedtuple

import numpy as np
from numba import prange

from ...jit import njit
from ...kernels.atomics import U, atomic_add, claim, set_bit
from ...kernels.bottom_up import FOUND, NONE, first_in_frontier, low_bits, walk_words
from ...kernels.frontier import ELEM_BLOCK, WORD_BLOCK
from ...kernels.top_down import TD_BUFFER, TD_EDGE_BLOCK, flush_buffer, push, walk_block
from .partition import global_of, local_of

# the top-down visit's ctx: shared state, then this block's candidate buffers and the shared candidate lists
_TdCtx = namedtuple("_TdCtx", "parent depth indptr pmap sent next_level atomic buf_v buf_p nbuf cand_v cand_p ctail")


@njit(cache=True)
def local_id(pmap, v):
    """``partition.local_of`` for a visit: called, not inlined, since numba's overload inlining in a kernel
    runs a dead-code pass that drops stores through a named-tuple ctx built there (its alias analysis
    does not follow the attribute reads); the compiler still inlines the call."""
    return local_of(pmap, v)


@njit(cache=True)
def global_id(pmap, local):
    """``partition.global_of`` for a visit (see ``local_id``)."""
    return global_of(pmap, local)


@njit(cache=True)
def flush_pairs(bv, bp, count, out_v, out_p, tail):
    """Append the pairs (bv[k], bp[k]), k < count, to the shared lists (one atomic add on ``tail[0]``)."""
    if count == 0:
        return
    start = atomic_add(tail, 0, count)
    for k in range(count):
        out_v[start + k] = bv[k]
        out_p[start + k] = bp[k]


@njit(inline="always", cache=True)
def _visit(ctx, u, v):
    """Claim an owned v for parent u (a local row), or emit the candidate (v, parent) for its owner."""
    loc = local_id(ctx.pmap, v)
    if loc >= 0:
        if ctx.parent[loc] < 0 and claim(ctx.parent, loc, global_id(ctx.pmap, u), ctx.atomic):
            ctx.depth[loc] = ctx.next_level
            return loc, ctx.indptr[loc + 1] - ctx.indptr[loc]
    elif not (ctx.sent[v >> 6] & (np.uint64(1) << np.uint64(v & 63))) and set_bit(ctx.sent, v, ctx.atomic):
        k = ctx.nbuf[0]
        ctx.buf_v[k] = v
        ctx.buf_p[k] = global_id(ctx.pmap, u)
        ctx.nbuf[0] = k + 1
        if k + 1 == TD_BUFFER:
            flush_pairs(ctx.buf_v, ctx.buf_p, TD_BUFFER, ctx.cand_v, ctx.cand_p, ctx.ctail)
            ctx.nbuf[0] = 0
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def _td_block(b, indptr, indices, queue, qsize, offsets, pmap, parent, depth, level, sent, next_queue, ntail,
              cand_v, cand_p, ctail, atomic):
    buf_v = np.empty(TD_BUFFER, dtype=np.int64)
    buf_p = np.empty(TD_BUFFER, dtype=np.int64)
    nbuf = np.zeros(1, dtype=np.int64)
    ctx = _TdCtx(parent, depth, indptr, pmap, sent, level + 1, atomic, buf_v, buf_p, nbuf, cand_v, cand_p, ctail)
    scout = walk_block(b, indptr, indices, queue, qsize, offsets, _visit, ctx, next_queue, ntail)
    flush_pairs(buf_v, buf_p, nbuf[0], cand_v, cand_p, ctail)
    return scout


@njit(parallel=True, cache=True)
def td_step(indptr, indices, queue, qsize, offsets, pmap, parent, depth, level, sent, next_queue, ntail,
            cand_v, cand_p, ctail, atomic):
    """Expand owned frontier queue[:qsize]: settle owned neighbours (into next_queue, local ids),
    emit (vertex, parent) candidates for remote ones (into cand_v/cand_p, global ids).

    Returns the scout count (out-degree sum) of the owned vertices settled here.
    """
    nblocks = (offsets[qsize] + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK
    scout = 0
    for b in prange(nblocks):
        scout += _td_block(b, indptr, indices, queue, qsize, offsets, pmap, parent, depth, level, sent, next_queue,
                           ntail, cand_v, cand_p, ctail, atomic)
    return scout


@njit(parallel=True, cache=True)
def apply_received(pairs, npairs, pmap, indptr, parent, depth, level, next_queue, ntail, atomic):
    """Settle received (vertex, parent) pairs for owned vertices; returns the new vertices' scout count."""
    nblocks = (npairs + ELEM_BLOCK - 1) // ELEM_BLOCK
    nxt = level + 1
    scout = 0
    for b in prange(nblocks):
        scout += _apply_block(b, pairs, npairs, pmap, indptr, parent, depth, nxt, next_queue, ntail, atomic)
    return scout


@njit(cache=True)
def _apply_block(b, pairs, npairs, pmap, indptr, parent, depth, nxt, next_queue, ntail, atomic):
    """apply_received over block b; returns its scout count
    (a function of its own so that the prange reduction compiles on Python >= 3.12, numba issue 10132)."""
    buf = np.empty(TD_BUFFER, dtype=np.int64)
    nn = 0
    sc = 0
    for i in range(b * ELEM_BLOCK, min(npairs, (b + 1) * ELEM_BLOCK)):
        loc = local_of(pmap, pairs[2 * i])
        if parent[loc] < 0 and claim(parent, loc, np.int64(pairs[2 * i + 1]), atomic):
            depth[loc] = nxt
            sc += indptr[loc + 1] - indptr[loc]
            nn = push(buf, nn, loc, next_queue, ntail)
    flush_buffer(buf, nn, next_queue, ntail)
    return sc


# the bottom-up visit's ctx (``nl`` first: the owned vertex count, see ``every_vertex``)
_BuCtx = namedtuple("_BuCtx", "nl in_indptr in_indices indptr parent depth front next_words next_level")


# ---------------------------------------------------------------- the owned bottom-up walks' parts
# (here, ``one_d.replicated_steps``, ``delegates.steps`` and ``two_d``'s; their ctx has the vertex count ``nl``):
# every vertex below ``nl`` is a candidate (or those not yet ``seen``), a settled one examines nothing, an
# unsettled one takes its first in-neighbour in the frontier.
@njit(inline="always", cache=True)
def every_vertex(ctx, w):
    """The walk's candidate bits of word ``w``: every vertex below ``ctx.nl`` (the visit skips settled ones)."""
    return low_bits(ctx.nl - w * 64)


@njit(inline="always", cache=True)
def unseen(ctx, w):
    """The walk's candidate bits of word ``w``: the vertices below ``ctx.nl`` whose ``ctx.seen`` bit is clear."""
    return ~ctx.seen[w] & low_bits(ctx.nl - w * 64)


@njit(inline="always", cache=True)
def probe(settled, in_indptr, in_indices, v, front):
    """Vertex v's first in-neighbour in ``front`` (-1: none, or v is ``settled``) and the in-edges examined."""
    if settled:
        return np.int64(-1), np.int64(0)
    return first_in_frontier(in_indptr, in_indices, v, front, U(0))


NO_NAMES = np.empty(0, dtype=np.int64)     # ``settle_first``'s names when in-neighbours are named by their ids


@njit(inline="always", cache=True)
def settle_first(parent, depth, loc, nxt, in_indptr, in_indices, front, names):
    """Owned vertex ``loc`` (row ``loc`` of ``in_indptr``), unless settled: its first in-neighbour u
    in ``front`` becomes its parent (``names[u]``, or u itself with ``NO_NAMES``) at depth ``nxt``.
    Returns (u, or -1 if none or settled; the in-edges examined)."""
    u, examined = probe(parent[loc] >= 0, in_indptr, in_indices, loc, front)
    if u >= 0:
        parent[loc] = names[u] if names.size else u
        depth[loc] = nxt
    return u, examined


@njit(inline="always", cache=True)
def no_words(ctx, w, found, settled):
    """A walk that writes no bitmap of what it found (its visits queue the vertices)."""


@njit(inline="always", cache=True)
def _bu_visit(ctx, v):
    """An unsettled owned vertex takes its first in-neighbour in the global frontier as parent."""
    loc = np.int64(v)
    u, examined = settle_first(ctx.parent, ctx.depth, loc, ctx.next_level, ctx.in_indptr,
                               ctx.in_indices, ctx.front, NO_NAMES)
    if u < 0:
        return np.int64(NONE), examined, np.int64(0)
    indptr = ctx.indptr
    return np.int64(FOUND), examined, np.int64(indptr[loc + 1] - indptr[loc])


@njit(inline="always", cache=True)
def _bu_done(ctx, w, found, settled):
    ctx.next_words[w] = found


@njit(cache=True)
def _bu_block(b, in_indptr, in_indices, indptr, parent, depth, front, next_words, nxt):
    ctx = _BuCtx(np.int64(parent.size), in_indptr, in_indices, indptr, parent, depth, front, next_words, nxt)
    return walk_words(b, WORD_BLOCK, next_words.size, every_vertex, _bu_visit, _bu_done, ctx)


@njit(parallel=True, cache=True)
def bu_step(in_indptr, in_indices, indptr, parent, depth, front, next_words, level):
    """Bottom-up over owned vertices against the global frontier bitmap ``front``
    (``kernels.bottom_up.walk_words``).

    ``next_words`` are this rank's words of the next frontier (local bit = local id).
    Returns (awake count, edges examined, scout count of the awake vertices).
    """
    nblocks = (next_words.size + WORD_BLOCK - 1) // WORD_BLOCK
    awake = 0
    examined = 0
    scout = 0
    for b in prange(nblocks):
        aw, ex, sc = _bu_block(b, in_indptr, in_indices, indptr, parent, depth, front, next_words, level + 1)
        awake += aw
        examined += ex
        scout += sc
    return awake, examined, scout
