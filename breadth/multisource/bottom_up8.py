"""The W = 8 bottom-up level of bitwise iBFS (Liu, Huang, Hu, SIGMOD'16, section 4): ``bottom_up``'s
level (same invariants, same results) with a vertex's eight status words as one vector.

W = 8 is the default from 449 sources on (groups of 512). What differs from the
general kernel (``bottom_up._bu_block``) is how the time is spent:

* The row is ORed and tested as one 512-bit vector (``kernels.rows8``): eight
  scalars and the idle mask do not fit in the registers.
* The in-neighbour loop depends on the share h of the arcs that leave the
  joint frontier (its scout count over all arcs: about the share of scanned
  in-edges whose source is in the JFQ). Below SPARSE_FRONT (0.9), as on a
  first bottom-up level, the frontier test is hard to predict, so a per-edge
  branch would mispredict; the sparse loop of ``bu_block8`` reads the
  in-neighbours in chunks of CHUNK, gathers the chunk's JFQ members into a
  small buffer without a branch, then ORs their rows and tests early
  termination once per chunk. Dense (h >= 0.9):
  nearly every in-neighbour is in the JFQ and its row is a random 64-byte
  load; the dense loop (``rows8.or_in_rows8``) tests each one and prefetches the
  row of the neighbour PREFETCH_AHEAD edges on.
* Counting the new bits (the per-instance histogram, ``status.record_new``)
  is batched: the new-bit words of TALLY_BATCH vertices go through a
  carry-save tree (Harley-Seal) into a 5-bit count per lane, added into the
  block's bit-sliced counters at once (``_count16``), instead of a ripple-carry
  add per vertex whose loop exit mispredicts.
"""
import numpy as np

from ..jit import njit
from ..kernels.atomics import U
from ..kernels.bottom_up import SETTLED
from ..kernels.rows8 import all_ones8, or_in_rows8, or_row8
from .status import ALL, DEPTH_BASE, PLANES, flush_counts, ripple_add
from .walk import ctx_type, finish, level_ctx, rows, new_counts, walk_block

__all__ = ["bu_block8", "sparse_front"]

SPARSE_FRONT = 0.9       # a JFQ with fewer than this share of the arcs takes the chunked in-neighbour loop
CHUNK = 8                # in-neighbours per chunk of that loop
PREFETCH_AHEAD = 16      # the dense loop prefetches the status row of the in-neighbour this many edges on
TALLY_BATCH = 16         # vertices whose new bits are counted together (_count16)


@njit(inline="always", cache=True)
def _csa(a, b, c):
    """Carry-save adder of three words, lane by lane: (carry, sum) with a + b + c = sum + 2 carry."""
    u = a ^ b
    return (a & b) | (u & c), u ^ c


@njit(inline="always", cache=True)
def _add_stage(planes, q, p, x, carry):
    """planes[q, p] += x + carry, lane by lane (a full adder); returns the carry out."""
    a = planes[q, p]
    u = a ^ x
    planes[q, p] = u ^ carry
    return (a & x) | (u & carry)


@njit(cache=True)
def _count16(batch, planes):
    """Add the new-bit words of TALLY_BATCH (16) vertices (``batch[i, q]``) into the block's
    bit-sliced counters ``planes[q]`` (see ``status.record_new``): per word q, a carry-save
    tree (Harley-Seal) turns the 16 words into a 5-bit count per lane (b0 .. b4), which one
    ripple-carry add puts into the counter, so counting costs a few word operations per
    vertex and no data-dependent branch (record_new's carry loop mispredicts)."""
    for q in range(8):
        t1, s = _csa(batch[0, q], batch[1, q], batch[2, q])
        t2, s = _csa(s, batch[3, q], batch[4, q])
        t3, s = _csa(s, batch[5, q], batch[6, q])
        t4, s = _csa(s, batch[7, q], batch[8, q])
        t5, s = _csa(s, batch[9, q], batch[10, q])
        t6, s = _csa(s, batch[11, q], batch[12, q])
        t7, s = _csa(s, batch[13, q], batch[14, q])
        x = batch[15, q]
        t8, b0 = s & x, s ^ x                    # weight 1: b0 + 2 (t1 + .. + t8)
        u1, s = _csa(t1, t2, t3)
        u2, s = _csa(s, t4, t5)
        u3, s = _csa(s, t6, t7)
        u4, b1 = s & t8, s ^ t8                  # weight 2: b1 + 2 (u1 + .. + u4)
        v1, s = _csa(u1, u2, u3)
        v2, b2 = s & u4, s ^ u4                  # weight 4: b2 + 2 (v1 + v2)
        b4, b3 = v1 & v2, v1 ^ v2                # weight 8 and 16
        carry = _add_stage(planes, q, 0, b0, np.uint64(0))
        carry = _add_stage(planes, q, 1, b1, carry)
        carry = _add_stage(planes, q, 2, b2, carry)
        carry = _add_stage(planes, q, 3, b3, carry)
        carry = _add_stage(planes, q, 4, b4, carry)
        ripple_add(planes, q, 5, carry)


@njit(inline="always", cache=True)
def _flush_batch(batch, nb, planes, tallies):
    """The block's last partial batch (zero-padded) into the counters, then into ``tallies``."""
    if nb:
        for i in range(nb, TALLY_BATCH):
            for q in range(8):
                batch[i, q] = np.uint64(0)
        _count16(batch, planes)
    flush_counts(planes, tallies)


# the W = 8 visit's ctx: its own fields are the in-neighbour loop's choice, the chunk's JFQ members, the
# tally batch and the same batch as one row of words (the depth planes' source)
_Ctx8 = ctx_type("_Ctx8", __name__, ("sparse", "hits", "batch", "news"))
_NB = 2                  # counts[_NB]: the vertices in the tally batch


@njit(inline="always", cache=True)
def _visit8(ctx, v):
    """``bottom_up._visit`` for W = 8 (``walk``'s visit). The vertex's row is accumulated in
    ``acc`` with the idle instances' bits set from the start, so that early termination is
    ``acc`` all ones (``kernels.rows8``); the idle bits v did not have are taken out again
    before it is stored (an idle instance reaches nothing new). Two in-neighbour loops
    (``sparse`` picks, per level): for a dense JFQ every in-neighbour is tested in
    ``rows8.or_in_rows8``, which keeps the row in a vector register and prefetches the
    neighbour PREFETCH_AHEAD edges on; for a sparse JFQ the in-neighbours are read in chunks
    of CHUNK, whose JFQ members are first gathered into ``hits`` without a branch, then their
    rows ORed, with the early-termination test once per chunk."""
    in_indptr, in_indices, prev, status, idle, front = rows(ctx)
    acc = ctx.acc
    v = np.int64(v)
    vb = v * 8
    done = ALL
    for q in range(8):
        a = prev[U(vb + q)] | idle[U(q)]
        acc[q] = a
        done &= a
    if done == ALL:      # settled: the same in both copies from now on
        for q in range(8):
            status[U(vb + q)] = prev[U(vb + q)]
        return np.int64(SETTLED), np.int64(0), np.int64(0)
    examined = 0
    if ctx.sparse:     # some running instance has not reached v yet
        hits = ctx.hits
        end = in_indptr[U(v + 1)]
        j = in_indptr[U(v)]
        while j < end:
            stop = min(j + CHUNK, end)
            k = 0
            for jj in range(j, stop):
                u = in_indices[U(jj)]
                hits[k] = u
                k += (front[U(u >> 6)] >> np.uint64(u & 63)) & np.uint64(1)
            examined += stop - j
            j = stop
            if k:
                for t in range(k):
                    or_row8(acc, 0, prev, hits[t] * 8)
                if all_ones8(acc):
                    break        # early termination
    else:
        examined += or_in_rows8(acc, in_indices, in_indptr[U(v)], in_indptr[U(v + 1)], front, prev, PREFETCH_AHEAD)
    settled = all_ones8(acc)
    batch = ctx.batch
    counts = ctx.counts
    nb = counts[_NB]
    moved = np.uint64(0)
    for q in range(8):
        old = prev[U(vb + q)]
        a = acc[q] ^ (idle[U(q)] & ~old)
        status[U(vb + q)] = a
        d = a ^ old
        batch[nb, q] = d
        moved |= d
    if moved:
        if ctx.write_depth:     # the row into depth plane p for every bit p of the level's code
            dplanes = ctx.dplanes
            bits = ctx.level - DEPTH_BASE
            p = 0
            while bits > 0:
                if bits & 1:
                    or_row8(dplanes[p], vb, ctx.news, nb * 8)
                bits >>= 1
                p += 1
        nb += 1
        if nb == TALLY_BATCH:
            _count16(batch, ctx.counters)
            nb = 0
        counts[_NB] = nb
    return finish(ctx, v, settled, moved != 0, examined)


@njit(cache=True)
def bu_block8(b, indptr, in_indptr, in_indices, prev, status, unfull, idle, front, next_front, tallies, level,
               dplanes, write_depth, sums, sparse):
    """``bottom_up._bu_block`` for W = 8 (the default from 449 sources on): ``_visit8`` over the block."""
    batch = np.empty((TALLY_BATCH, 8), dtype=np.uint64)
    planes = np.zeros((8, PLANES), dtype=np.uint64)
    ctx = level_ctx(_Ctx8, unfull, next_front, indptr, in_indptr, in_indices, prev, status, idle, front, level, dplanes,
                    write_depth, planes, np.empty(8, dtype=np.uint64), new_counts(1),
                    (sparse, np.empty(CHUNK, dtype=np.int64), batch, batch.reshape(-1)))
    walk_block(b, _visit8, ctx, sums)
    # ctx used after the walk: it keeps the block's scratch alive
    _flush_batch(batch, ctx.counts[_NB], planes, tallies)


@njit(inline="always", cache=True)
def sparse_front(front_edges, arcs):
    """The chunked loop pays off: the JFQ's out-edges are under SPARSE_FRONT of all arcs."""
    return front_edges < SPARSE_FRONT * arcs
