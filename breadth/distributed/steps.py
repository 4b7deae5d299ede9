"""Local BFS steps of the 1D-distributed search (numba), after the single-node kernels.

A rank owns the contiguous vertex range [lo, lo + nl); its CSR rows are local
ids, its columns global ids. Two state layouts, one per exchange:

*Replicated* (ButterFly, Green Alg. 2): ``lvl`` holds the level of every vertex
of the graph on every rank (-1 = unvisited), identical on all ranks between
levels. Top-down (``td_step_replicated``) expands the owned frontier and claims
any unvisited neighbour with a compare-and-swap on ``lvl``, appending winners to
the global queue; bottom-up (``bu_step_replicated``) lets each owned unvisited
vertex look for an in-neighbour in the frontier bitmap (rebuilt on every rank
from the synchronised frontier) and stop at the first. Parents never travel:
a step records the parent of an owned vertex it claims itself, and after the
search ``recover_parents`` gives every other owned vertex at level L > 0 (found
by another rank) its first in-neighbour at level L - 1 (the replicated levels
make that a local scan) -- a valid BFS tree edge by construction.

*Owner* (all-to-all): each rank holds parent and depth only for its own
vertices. Top-down (``td_step_owned``) claims owned neighbours directly and
emits (vertex, parent) candidates for the others, each remote vertex at most
once per search (a ``sent`` bitmap: once sent, its owner will have settled it by
the end of that level). ``apply_received`` settles the candidates routed to this
rank. Bottom-up (``bu_step_owned``) reads the all-gathered global frontier bitmap
and writes only this rank's words of the next one (ranges are 64-aligned).

Work is cut into blocks as in the single-node kernels (frontier out-edges per
block for top-down, bitmap words per block for bottom-up); winners are buffered
per block and flushed with one atomic add. Invariant of every step: on exit,
the vertices it newly settled are exactly those appended to its output queue.
"""
import numpy as np
from numba import njit, prange

from ..kernels.atomics import atomic_add, atomic_cas, atomic_or
from ..kernels.frontier import ELEM_BLOCK, WORD_BLOCK, fill
from ..kernels.top_down import TD_BUFFER, TD_EDGE_BLOCK, block_first_vertex, edge_window, flush_buffer

V_BLOCK = 1024   # owned vertices per parallel block in vertex loops (bottom-up, parent recovery)


@njit(inline="always", cache=True)
def claim(arr, i, new, atomic):
    """arr[i] := new if it is -1; True for the one caller that changed it.

    ``atomic`` False means the kernel runs on a single thread (numba's thread count is 1,
    as for an MPI rank per core): a plain load and store then replace the compare-and-swap.
    """
    if atomic:
        return atomic_cas(arr, i, -1, new)
    if arr[i] < 0:
        arr[i] = new
        return True
    return False


@njit(inline="always", cache=True)
def set_bit(bits, v, atomic):
    """Set bit v; True if it was clear (``atomic`` as in ``claim``)."""
    mask = np.uint64(1) << np.uint64(v & 63)
    if atomic:
        return not (atomic_or(bits, v >> 6, mask) & mask)
    old = bits[v >> 6]
    bits[v >> 6] = old | mask
    return not (old & mask)


@njit(parallel=True, cache=True)
def to_bitmap(vertices, count, bits, atomic):
    """bits := the set vertices[:count] (``kernels.frontier.queue_to_bitmap`` with the ``atomic`` switch)."""
    fill(bits, np.uint64(0))
    for b in prange((count + ELEM_BLOCK - 1) // ELEM_BLOCK):
        for i in range(b * ELEM_BLOCK, min(count, (b + 1) * ELEM_BLOCK)):
            set_bit(bits, vertices[i], atomic)


# ------------------------------------------------------------------ replicated state (ButterFly)
@njit(parallel=True, cache=True)
def td_step_replicated(indptr, indices, queue, qsize, offsets, lvl, level, gqueue, tail, lo, parent, atomic):
    """Expand owned frontier queue[:qsize] (local ids); new vertices (global) go to gqueue.

    An owned vertex claimed here also gets its parent (``parent``: owned, local ids).
    """
    nl = parent.size
    total = offsets[qsize]
    nblocks = (total + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK
    nxt = level + 1
    for b in prange(nblocks):
        buf = np.empty(TD_BUFFER, dtype=gqueue.dtype)
        nbuf = 0
        lo_e = b * TD_EDGE_BLOCK
        hi_e = min(total, lo_e + TD_EDGE_BLOCK)
        i = block_first_vertex(offsets, qsize, lo_e)
        while i < qsize and offsets[i] < hi_e:
            u = queue[i]
            first, last = edge_window(indptr, u, offsets, i, lo_e, hi_e)
            for j in range(first, last):
                v = indices[j]
                if lvl[v] < 0 and claim(lvl, v, nxt, atomic):
                    loc = np.int64(v) - lo
                    if loc >= 0 and loc < nl:
                        parent[loc] = lo + u
                    buf[nbuf] = v
                    nbuf += 1
                    if nbuf == TD_BUFFER:
                        flush_buffer(buf, nbuf, gqueue, tail)
                        nbuf = 0
            i += 1
        flush_buffer(buf, nbuf, gqueue, tail)
    return total


@njit(parallel=True, cache=True)
def bu_step_replicated(in_indptr, in_indices, lo, lvl, front, level, gqueue, tail, parent):
    """Owned unvisited vertices adopt the level after (and as parent) the first in-neighbour in ``front``."""
    nl = in_indptr.size - 1
    nblocks = (nl + V_BLOCK - 1) // V_BLOCK
    nxt = level + 1
    examined = 0
    for b in prange(nblocks):
        buf = np.empty(TD_BUFFER, dtype=gqueue.dtype)
        nbuf = 0
        ex = 0
        for loc in range(b * V_BLOCK, min(nl, (b + 1) * V_BLOCK)):
            v = lo + loc
            if lvl[v] < 0:
                for j in range(in_indptr[loc], in_indptr[loc + 1]):
                    u = in_indices[j]
                    ex += 1
                    if (front[u >> 6] >> np.uint64(u & 63)) & np.uint64(1):
                        lvl[v] = nxt
                        parent[loc] = u
                        buf[nbuf] = v
                        nbuf += 1
                        if nbuf == TD_BUFFER:
                            flush_buffer(buf, nbuf, gqueue, tail)
                            nbuf = 0
                        break
        flush_buffer(buf, nbuf, gqueue, tail)
        examined += ex
    return examined


@njit(parallel=True, cache=True)
def _owned_counts(gqueue, total, lo, hi, degree, counts, scouts):
    nblocks = counts.size
    for b in prange(nblocks):
        c = 0
        sc = 0
        for i in range(b * ELEM_BLOCK, min(total, (b + 1) * ELEM_BLOCK)):
            v = gqueue[i]
            sc += degree[v]
            if v >= lo and v < hi:
                c += 1
        counts[b] = c
        scouts[b] = sc


@njit(parallel=True, cache=True)
def _owned_write(gqueue, total, lo, hi, offsets, out):
    nblocks = offsets.size - 1
    for b in prange(nblocks):
        p = offsets[b]
        for i in range(b * ELEM_BLOCK, min(total, (b + 1) * ELEM_BLOCK)):
            v = gqueue[i]
            if v >= lo and v < hi:
                out[p] = v - lo
                p += 1


@njit(cache=True)
def owned_and_scout(gqueue, total, lo, hi, degree, out):
    """out[:k] = local ids of the gqueue[:total] entries in [lo, hi); returns (k, sum of degree[gqueue[:total]])."""
    nblocks = (total + ELEM_BLOCK - 1) // ELEM_BLOCK
    counts = np.empty(nblocks, dtype=np.int64)
    scouts = np.empty(nblocks, dtype=np.int64)
    _owned_counts(gqueue, total, lo, hi, degree, counts, scouts)
    offsets = np.empty(nblocks + 1, dtype=np.int64)
    offsets[0] = 0
    for b in range(nblocks):
        offsets[b + 1] = offsets[b] + counts[b]
    _owned_write(gqueue, total, lo, hi, offsets, out)
    return offsets[nblocks], scouts.sum()


@njit(parallel=True, cache=True)
def recover_parents(in_indptr, in_indices, lo, lvl, parent, depth, small_range, small):
    """parent/depth of owned vertices from the replicated levels (level-0 vertices are seeds).

    Vertices whose parent the steps recorded (claimed by this rank) keep it; the others
    (found by another rank) get an in-neighbour one level closer: when level d-1 was a
    small frontier (its sorted vertices in small[start:stop], small_range[d-1] = (start, stop),
    kept by the search; (-1, -1) when not kept), each of them is looked up by binary search in
    the sorted neighbour list if that is cheaper than a scan; otherwise, or if the list is not
    sorted, the first neighbour at level d-1 in a scan.
    """
    nl = in_indptr.size - 1
    nsmall = small_range.shape[0]
    for b in prange((nl + V_BLOCK - 1) // V_BLOCK):
        for loc in range(b * V_BLOCK, min(nl, (b + 1) * V_BLOCK)):
            v = lo + loc
            d = lvl[v]
            depth[loc] = d
            p = -1
            if d == 0:
                p = v
            elif d > 0 and parent[loc] >= 0:
                p = parent[loc]
            elif d > 0 and d - 1 < nsmall and small_range[d - 1, 0] >= 0:
                a = in_indptr[loc]
                z = in_indptr[loc + 1]
                f0 = small_range[d - 1, 0]
                f1 = small_range[d - 1, 1]
                if (f1 - f0) * 32 < z - a:
                    for k0 in range(f0, f1):
                        s = small[k0]
                        k = a + np.searchsorted(in_indices[a:z], s)
                        if k < z and in_indices[k] == s:
                            p = s
                            break
            if d > 0 and p < 0:
                for j in range(in_indptr[loc], in_indptr[loc + 1]):
                    u = in_indices[j]
                    if lvl[u] == d - 1:
                        p = u
                        break
            parent[loc] = p


# ------------------------------------------------------------------ owner state (all-to-all)
@njit(inline="always", cache=True)
def _flush_pairs(bv, bp, count, out_v, out_p, tail):
    start = atomic_add(tail, 0, count)
    for k in range(count):
        out_v[start + k] = bv[k]
        out_p[start + k] = bp[k]


@njit(parallel=True, cache=True)
def td_step_owned(indptr, indices, queue, qsize, offsets, lo, parent, depth, level, sent,
                  next_queue, ntail, cand_v, cand_p, ctail, atomic):
    """Expand owned frontier queue[:qsize]: settle owned neighbours, emit (vertex, parent) for remote ones.

    Returns the scout count (out-degree sum) of the owned vertices settled here.
    """
    nl = parent.size
    total = offsets[qsize]
    nblocks = (total + TD_EDGE_BLOCK - 1) // TD_EDGE_BLOCK
    nxt = level + 1
    scouts = np.zeros(nblocks, dtype=np.int64)   # per block (a scalar reduction here trips numba's parfor pass)
    for b in prange(nblocks):
        nbuf = np.empty(TD_BUFFER, dtype=np.int64)
        nn = 0
        cbv = np.empty(TD_BUFFER, dtype=np.int64)
        cbp = np.empty(TD_BUFFER, dtype=np.int64)
        nc = 0
        sc = 0
        lo_e = b * TD_EDGE_BLOCK
        hi_e = min(total, lo_e + TD_EDGE_BLOCK)
        i = block_first_vertex(offsets, qsize, lo_e)
        while i < qsize and offsets[i] < hi_e:
            u = queue[i]
            gu = lo + u
            first, last = edge_window(indptr, u, offsets, i, lo_e, hi_e)
            for j in range(first, last):
                v = np.int64(indices[j])
                loc = v - lo
                if loc >= 0 and loc < nl:
                    if parent[loc] < 0 and claim(parent, loc, gu, atomic):
                        depth[loc] = nxt
                        sc += indptr[loc + 1] - indptr[loc]
                        nbuf[nn] = loc
                        nn += 1
                        if nn == TD_BUFFER:
                            flush_buffer(nbuf, nn, next_queue, ntail)
                            nn = 0
                else:
                    bit = np.uint64(1) << np.uint64(v & 63)
                    if not (sent[v >> 6] & bit) and set_bit(sent, v, atomic):
                        cbv[nc] = v
                        cbp[nc] = gu
                        nc += 1
                        if nc == TD_BUFFER:
                            _flush_pairs(cbv, cbp, nc, cand_v, cand_p, ctail)
                            nc = 0
            i += 1
        flush_buffer(nbuf, nn, next_queue, ntail)
        _flush_pairs(cbv, cbp, nc, cand_v, cand_p, ctail)
        scouts[b] = sc
    return scouts.sum()


@njit(parallel=True, cache=True)
def apply_received(pairs, npairs, lo, indptr, parent, depth, level, next_queue, ntail, atomic):
    """Settle received (vertex, parent) pairs for owned vertices; returns the new vertices' scout count."""
    nblocks = (npairs + ELEM_BLOCK - 1) // ELEM_BLOCK
    nxt = level + 1
    scout = 0
    for b in prange(nblocks):
        buf = np.empty(TD_BUFFER, dtype=np.int64)
        nn = 0
        sc = 0
        for i in range(b * ELEM_BLOCK, min(npairs, (b + 1) * ELEM_BLOCK)):
            loc = np.int64(pairs[2 * i]) - lo
            if parent[loc] < 0 and claim(parent, loc, np.int64(pairs[2 * i + 1]), atomic):
                depth[loc] = nxt
                sc += indptr[loc + 1] - indptr[loc]
                buf[nn] = loc
                nn += 1
                if nn == TD_BUFFER:
                    flush_buffer(buf, nn, next_queue, ntail)
                    nn = 0
        flush_buffer(buf, nn, next_queue, ntail)
        scout += sc
    return scout


@njit(parallel=True, cache=True)
def bu_step_owned(in_indptr, in_indices, indptr, lo, parent, depth, front, next_words, level):
    """Bottom-up over owned vertices against the global frontier bitmap ``front``.

    ``next_words`` are this rank's words of the next frontier (local bit = local id).
    Returns (awake count, edges examined, scout count of the awake vertices).
    """
    nl = parent.size
    nwords = next_words.size
    nblocks = (nwords + WORD_BLOCK - 1) // WORD_BLOCK
    nxt = level + 1
    awake = 0
    examined = 0
    scout = 0
    for b in prange(nblocks):
        aw = 0
        ex = 0
        sc = 0
        for w in range(b * WORD_BLOCK, min(nwords, (b + 1) * WORD_BLOCK)):
            word = np.uint64(0)
            base = w * 64
            for bit in range(min(64, nl - base)):
                loc = base + bit
                if parent[loc] < 0:
                    for j in range(in_indptr[loc], in_indptr[loc + 1]):
                        u = in_indices[j]
                        ex += 1
                        if (front[u >> 6] >> np.uint64(u & 63)) & np.uint64(1):
                            parent[loc] = u
                            depth[loc] = nxt
                            word |= np.uint64(1) << np.uint64(bit)
                            aw += 1
                            sc += indptr[loc + 1] - indptr[loc]
                            break
            next_words[w] = word
        awake += aw
        examined += ex
        scout += sc
    return awake, examined, scout
