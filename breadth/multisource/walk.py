"""The block walk shared by the bottom-up kernels of bitwise iBFS (``bottom_up``, ``bottom_up8``).

Both are ``kernels.bottom_up.walk_words`` over the words of ``unfull`` (the vertices that
may still change), with their own per-vertex visit; what the walk does around the visit is
here: which vertices to try (``_todo``), where a word's result goes (``_done``: the moved
vertices are the next JFQ word, the settled ones leave ``unfull``) and the block's sums.

A visit gets ``ctx`` (``level_ctx``: a named tuple of the kernel's own type, ``ctx_type``: the
level's arrays, the block's scratch, and the kernel's own items, all read by name) and returns
``kernels.bottom_up``'s (code, examined, weight): ``SETTLED`` for a vertex settled on entry (it
leaves ``unfull``), else what ``finish`` makes of it: ``FOUND`` for a vertex whose row moved
(weight: its out-degree, the scout count), ``NONE`` otherwise.
"""
from collections import namedtuple

import numpy as np

from ..jit import njit
from ..kernels.atomics import U
from ..kernels.bottom_up import FOUND, NONE, walk_words
from ..kernels.frontier import WORD_BLOCK

__all__ = ["EXAMINED", "NEXT_FRONT", "SCOUT", "UNFULL", "UNEXPLORED", "ctx_type", "level_ctx", "rows", "finish",
           "walk_block"]

EXAMINED, NEXT_FRONT, SCOUT, UNFULL, UNEXPLORED = range(5)     # the per-block sums
# the fields of every visit's ctx (``level_ctx``), before the kernel's own
CTX_FIELDS = ("unfull", "next_front", "indptr", "in_indptr", "in_indices", "prev", "status", "idle", "front", "level",
                "dplanes", "write_depth", "counters", "acc", "counts")
UNFULL_COUNT, UNEXPLORED_COUNT = 0, 1                         # the visits' counters (``counts``)


def ctx_type(name, module, own):
    """The named tuple of a kernel's visit ctx: CTX_FIELDS, then the kernel's ``own`` fields
    (kept flat: with the in-neighbour loop's arrays in a tuple nested in ctx, the W = 8 kernel
    tallied wrong counts through ``atomics.borrowed``). ``module``: where it is bound to ``name``
    (numba's cache pickles the type by that name)."""
    return namedtuple(name, CTX_FIELDS + tuple(own), module=module)


@njit(inline="always", cache=True)
def _todo(ctx, w):
    return ctx.unfull[U(w)]


@njit(inline="always", cache=True)
def _done(ctx, w, found, settled):
    ctx.next_front[U(w)] = found
    ctx.unfull[U(w)] &= ~settled


@njit(inline="always", cache=True)
def level_ctx(ctx_cls, unfull, next_front, indptr, in_indptr, in_indices, prev, status, idle, front, level, dplanes,
              write_depth, counters, acc, counts, own):
    """A visit's ctx of type ``ctx_cls`` (``ctx_type``): the level's arrays, the block's scratch (the tally
    ``counters``, the row ``acc``, the visits' ``counts``) and the items of ``own``, the kernel's own fields."""
    return ctx_cls(*((unfull, next_front, indptr, in_indptr, in_indices, prev, status, idle, front, level, dplanes,
                      write_depth, counters, acc, counts) + own))


@njit(inline="always", cache=True)
def rows(ctx):
    """The arrays of a visit's in-neighbour loop: ``in_indptr, in_indices, prev, status, idle, front``."""
    return ctx.in_indptr, ctx.in_indices, ctx.prev, ctx.status, ctx.idle, ctx.front


@njit(inline="always", cache=True)
def finish(ctx, v, settled, moved, examined):
    """A visit's result for a vertex v that was not settled on entry: ``settled`` now or not
    (counted in ``counts`` if not), its row ``moved`` or not, ``examined`` in-edges."""
    in_indptr = ctx.in_indptr
    if not settled:
        counts = ctx.counts
        counts[UNFULL_COUNT] += 1
        counts[UNEXPLORED_COUNT] += in_indptr[U(v + 1)] - in_indptr[U(v)]
    if moved:
        indptr = ctx.indptr
        return np.int64(FOUND), np.int64(examined), np.int64(indptr[U(v + 1)] - indptr[U(v)])
    return np.int64(NONE), np.int64(examined), np.int64(0)


@njit(inline="always", cache=True)
def walk_block(b, visit, ctx, sums):
    """Block b of the level: ``visit`` over its unfull vertices; ``sums[b]`` gets the block's sums.
    The walk borrows ctx's arrays (``atomics.borrowed``): the caller uses ``ctx`` after the
    call, so that numba does not free scratch arrays that only the tuple holds during the walk."""
    counts = ctx.counts
    nchanged, examined, scout = walk_words(b, WORD_BLOCK, ctx.unfull.size, _todo, visit, _done, ctx)
    sums[b, EXAMINED] = examined
    sums[b, NEXT_FRONT] = nchanged
    sums[b, SCOUT] = scout
    sums[b, UNFULL] = counts[UNFULL_COUNT]
    sums[b, UNEXPLORED] = counts[UNEXPLORED_COUNT]


@njit(inline="always", cache=True)
def new_counts(extra):
    """The visits' counters, zero, with ``extra`` more slots for the kernel's own state."""
    return np.zeros(2 + extra, dtype=np.int64)
