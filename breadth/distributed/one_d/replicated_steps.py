"""Local BFS steps on *replicated* state (the ButterFly exchange, Green, "ButterFly BFS", Alg. 2).

Every rank keeps ``lvl``, the level of every vertex of the graph (-1 = unvisited),
identical on all ranks between levels, and the CSR rows of the vertices it owns
(local ids; columns global ids). Ownership is asked of the partition's kernel map
(``owned.partition.local_of`` / ``global_of``), so the steps serve any layout.

* top-down (``td_step``): the shared block walk (``kernels.top_down.walk_block``)
  over the owned frontier, claiming any unvisited neighbour with a compare-and-swap
  on ``lvl`` and appending winners to the global queue;
* bottom-up (``bu_step``, the shared walk ``kernels.bottom_up.walk_words``): each owned
  unvisited vertex looks for an in-neighbour in the frontier bitmap (rebuilt on every rank from the synchronised frontier) and
  stops at the first;
* ``owned_and_scout``: after the exchange, the owned part of the global frontier
  (the next top-down queue) and the frontier's scout count from replicated degrees;
* ``recover_parents``: parents never travel. A step records the parent of an owned
  vertex it claims itself; after the search every other owned vertex at level L > 0
  (found by another rank) gets an in-neighbour at level L - 1 -- the replicated
  levels make that a local scan, and it is a BFS tree edge by construction.

``atomic`` False means numba runs one thread (an MPI rank per core): plain stores
replace the atomics (``kernels.atomics.claim``). Work is cut into blocks as in the
single-node kernels; winners are buffered per block and flushed with one atomic add.
Invariant of every step: on exit, the vertices it newly settled are exactly those
appended to its output queue.
"""
from collections import namedtuple

import numpy as np
from numba import prange

from ...jit import njit
from ...kernels.atomics import claim
from ...kernels.bottom_up import FOUND, NONE, walk_words
from ...kernels.frontier import ELEM_BLOCK, WORD_BLOCK
from ...kernels.top_down import TD_BUFFER, TD_EDGE_BLOCK, flush_buffer, push, walk_block
from ..owned.partition import global_of, local_of
from ..owned.steps import every_vertex, global_id, local_id, no_words, probe

V_BLOCK = 1024   # owned vertices per parallel block in vertex loops (bottom-up, parent recovery)

# the top-down visit's ctx
_TdCtx = namedtuple("_TdCtx", "lvl parent pmap next_level atomic")


@njit(inline="always", cache=True)
def _visit(ctx, u, v):
    """Claim v's level; an owned v also records its parent (u is a local row)."""
    if ctx.lvl[v] < 0 and claim(ctx.lvl, v, ctx.next_level, ctx.atomic):
        loc = local_id(ctx.pmap, v)
        if loc >= 0:
            ctx.parent[loc] = global_id(ctx.pmap, u)
        return np.int64(v), np.int64(0)
    return np.int64(-1), np.int64(0)


@njit(cache=True)
def _td_block(b, indptr, indices, queue, qsize, offsets, lvl, level, gqueue, tail, pmap, parent, atomic):
    walk_block(b, indptr, indices, queue, qsize, offsets, _visit, _TdCtx(lvl, parent, pmap, level + 1, atomic),
               gqueue, tail)


@njit(parallel=True, cache=True)
def td_step(indptr, indices, queue, qsize, offsets, lvl, level, gqueue, tail, pmap, parent, atomic):
    """Expand owned frontier queue[:qsize] (local ids); new vertices (global ids) go to gqueue.

    Returns the edges examined (the frontier's out-edges).
    """
    total = offsets[qsize]
    for b in prange((total + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK):
        _td_block(b, indptr, indices, queue, qsize, offsets, lvl, level, gqueue, tail, pmap, parent, atomic)
    return total


# the bottom-up visit's ctx (``nl``: the owned vertex count, see ``owned.steps.every_vertex``)
_BuCtx = namedtuple("_BuCtx", "nl in_indptr in_indices pmap lvl front next_level parent buf nbuf gqueue tail")


@njit(inline="always", cache=True)
def _bu_visit(ctx, v):
    """An owned vertex without a level takes the next one from its first frontier in-neighbour
    (its parent); it joins the global queue through the block's buffer."""
    loc = np.int64(v)
    g = global_id(ctx.pmap, loc)
    lvl = ctx.lvl
    u, examined = probe(lvl[g] >= 0, ctx.in_indptr, ctx.in_indices, v, ctx.front)
    if u < 0:
        return np.int64(NONE), examined, np.int64(0)
    lvl[g] = ctx.next_level
    ctx.parent[loc] = u
    nbuf = ctx.nbuf
    nbuf[0] = push(ctx.buf, nbuf[0], g, ctx.gqueue, ctx.tail)
    return np.int64(FOUND), examined, np.int64(0)


@njit(cache=True)
def _bu_block(b, in_indptr, in_indices, pmap, lvl, front, nxt, parent, gqueue, tail):
    buf = np.empty(TD_BUFFER, dtype=gqueue.dtype)
    nbuf = np.zeros(1, dtype=np.int64)
    nl = in_indptr.size - 1
    ctx = _BuCtx(np.int64(nl), in_indptr, in_indices, pmap, lvl, front, nxt, parent, buf, nbuf, gqueue, tail)
    _, examined, _ = walk_words(b, WORD_BLOCK, (nl + 63) // 64, every_vertex, _bu_visit, no_words, ctx)
    flush_buffer(buf, nbuf[0], gqueue, tail)
    return examined


@njit(parallel=True, cache=True)
def bu_step(in_indptr, in_indices, pmap, lvl, front, level, gqueue, tail, parent):
    """Owned unvisited vertices adopt the level after (and as parent) the first in-neighbour in ``front``
    (``kernels.bottom_up.walk_words``). Returns the edges examined.
    """
    nwords = (in_indptr.size - 1 + 63) // 64
    examined = 0
    for b in prange((nwords + WORD_BLOCK - 1) // WORD_BLOCK):
        examined += _bu_block(b, in_indptr, in_indices, pmap, lvl, front, level + 1, parent, gqueue, tail)
    return examined


@njit(parallel=True, cache=True)
def _owned_counts(gqueue, total, pmap, degree, counts, scouts):
    nblocks = counts.size
    for b in prange(nblocks):
        c = 0
        sc = 0
        for i in range(b * ELEM_BLOCK, min(total, (b + 1) * ELEM_BLOCK)):
            v = gqueue[i]
            sc += degree[v]
            if local_of(pmap, v) >= 0:
                c += 1
        counts[b] = c
        scouts[b] = sc


@njit(parallel=True, cache=True)
def _owned_write(gqueue, total, pmap, offsets, out):
    nblocks = offsets.size - 1
    for b in prange(nblocks):
        p = offsets[b]
        for i in range(b * ELEM_BLOCK, min(total, (b + 1) * ELEM_BLOCK)):
            loc = local_of(pmap, gqueue[i])
            if loc >= 0:
                out[p] = loc
                p += 1


@njit(cache=True)
def owned_and_scout(gqueue, total, pmap, degree, out):
    """out[:k] = local ids of the owned entries of gqueue[:total]; returns (k, sum of degree[gqueue[:total]])."""
    nblocks = (total + ELEM_BLOCK - 1) // ELEM_BLOCK
    counts = np.empty(nblocks, dtype=np.int64)
    scouts = np.empty(nblocks, dtype=np.int64)
    _owned_counts(gqueue, total, pmap, degree, counts, scouts)
    offsets = np.empty(nblocks + 1, dtype=np.int64)
    offsets[0] = 0
    for b in range(nblocks):
        offsets[b + 1] = offsets[b] + counts[b]
    _owned_write(gqueue, total, pmap, offsets, out)
    return offsets[nblocks], scouts.sum()


@njit(inline="always", cache=True)
def _in_sorted(in_indices, a, z, small, f0, f1):
    """The first of small[f0:f1] in the sorted list in_indices[a:z] (binary searches), or -1."""
    for k0 in range(f0, f1):
        s = small[k0]
        k = a + np.searchsorted(in_indices[a:z], s)
        if k < z and in_indices[k] == s:
            return s
    return -1


@njit(parallel=True, cache=True)
def recover_parents(in_indptr, in_indices, pmap, lvl, parent, depth, small_range, small):
    """parent/depth of owned vertices from the replicated levels (level-0 vertices are seeds).

    Vertices whose parent the steps recorded (claimed by this rank) keep it; the others
    (found by another rank) get an in-neighbour one level closer: when level d-1 was a
    small frontier (its sorted vertices in small[start:stop], small_range[d-1] = (start, stop),
    kept by the search; (-1, -1) when not kept), each of them is looked up by binary search in
    the sorted neighbour list if that is cheaper than a scan; otherwise, or if none is found,
    the first neighbour at level d-1 in a scan.
    """
    nl = in_indptr.size - 1
    nsmall = small_range.shape[0]
    for b in prange((nl + V_BLOCK - 1) // V_BLOCK):
        for loc in range(b * V_BLOCK, min(nl, (b + 1) * V_BLOCK)):
            v = global_of(pmap, loc)
            d = lvl[v]
            depth[loc] = d
            p = -1
            a = in_indptr[loc]
            z = in_indptr[loc + 1]
            if d == 0:
                p = v
            elif d > 0 and parent[loc] >= 0:
                p = parent[loc]
            elif d > 0 and d - 1 < nsmall and small_range[d - 1, 0] >= 0:
                f0 = small_range[d - 1, 0]
                f1 = small_range[d - 1, 1]
                if (f1 - f0) * 32 < z - a:
                    p = _in_sorted(in_indices, a, z, small, f0, f1)
            if d > 0 and p < 0:
                for j in range(a, z):
                    if lvl[in_indices[j]] == d - 1:
                        p = in_indices[j]
                        break
            parent[loc] = p
