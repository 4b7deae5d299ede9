"""Eight-word rows as one 512-bit vector: numba intrinsics for bit-sliced status rows.

The bitwise iBFS status of a vertex at W = 8 is eight uint64 words, one cache
line. As eight scalars, the row and the idle mask (16 words) with the loop's
indices and pointers need more than the x86-64 registers, so the bottom-up
in-neighbour loop would spill them on every edge. Here the row is an LLVM
``<8 x i64>`` value: one 64-byte load and OR per
in-neighbour, and "every bit set" is one vector compare (AVX-512: ``vporq`` and
``vpcmpeqq`` into a mask register; other targets get LLVM's lowering of the same
IR). The accumulated row lives in a caller's 8-word array between calls.

* ``or_row8(dst, i, src, k)``: ``dst[i : i + 8] |= src[k : k + 8]``.
* ``all_ones8(acc)``: every bit of ``acc[0:8]`` set.
* ``or_in_rows8(acc, in_indices, j0, j1, front, rows, ahead)``: the dense
  bottom-up loop of iBFS over in-edges ``j0 <= j < j1``: for each in-neighbour
  u whose bit is set in the bitmap ``front``, ``acc |= rows[8u : 8u + 8]``,
  stopping after the one that sets every bit (early termination); the row of
  the neighbour ``ahead`` edges on is prefetched. The row stays in a vector
  register for the whole loop. Returns the in-edges examined (up to and
  including the one that stopped it).

No bounds checks: callers pass valid rows and indices.
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .atomics import _PREFETCH
from .ir_loop import loop_head

__all__ = ["or_row8", "all_ones8", "or_in_rows8"]

_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_V8 = ir.VectorType(_I64, 8)
_ONES = ir.Constant(_V8, [(1 << 64) - 1] * 8)


def _word_array(t) -> bool:
    return isinstance(t, types.Array) and t.ndim == 1 and t.dtype == types.uint64


def _item(context, builder, arrty, ary, idx):
    return cgutils.get_item_pointer(context, builder, arrty, ary, [idx], wraparound=False)


def _row(context, builder, arrty, arr, idx):
    """Pointer to the <8 x i64> at ``arr[idx]`` (idx an i64 value)."""
    ary = context.make_array(arrty)(context, builder, arr)
    return builder.bitcast(_item(context, builder, arrty, ary, idx), _V8.as_pointer())


def _all_ones(builder, row):
    mask = builder.bitcast(builder.icmp_unsigned("==", row, _ONES), ir.IntType(8))
    return builder.icmp_unsigned("==", mask, ir.Constant(ir.IntType(8), 0xFF))


@intrinsic
def or_row8(typingctx, dst, i, src, k):
    """``dst[i : i + 8] |= src[k : k + 8]``."""
    if not (_word_array(dst) and _word_array(src) and isinstance(i, types.Integer) and isinstance(k, types.Integer)):
        return None
    sig = types.void(dst, i, src, k)

    def codegen(context, builder, sig, args):
        dstp = _row(context, builder, sig.args[0], args[0], context.cast(builder, args[1], sig.args[1], types.int64))
        srcp = _row(context, builder, sig.args[2], args[2], context.cast(builder, args[3], sig.args[3], types.int64))
        builder.store(builder.or_(builder.load(dstp, align=8), builder.load(srcp, align=8)), dstp, align=8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def all_ones8(typingctx, acc):
    """Every bit of ``acc[0:8]`` is set."""
    if not _word_array(acc):
        return None
    sig = types.boolean(acc)

    def codegen(context, builder, sig, args):
        return _all_ones(builder, builder.load(_row(context, builder, sig.args[0], args[0], ir.Constant(_I64, 0)),
                                               align=8))

    return sig, codegen


@intrinsic
def or_in_rows8(typingctx, acc, in_indices, j0, j1, front, rows, ahead):
    """The dense bottom-up in-neighbour loop (see the module docstring); returns the edges examined."""
    if not (_word_array(acc) and _word_array(front) and _word_array(rows) and isinstance(in_indices, types.Array)
            and isinstance(in_indices.dtype, types.Integer) and in_indices.ndim == 1
            and all(isinstance(t, types.Integer) for t in (j0, j1, ahead))):
        return None
    sig = types.int64(acc, in_indices, j0, j1, front, rows, ahead)

    def codegen(context, builder, sig, args):
        accty, inty, j0ty, j1ty, frontty, rowsty, aheadty = sig.args
        ind = context.make_array(inty)(context, builder, args[1])
        fr = context.make_array(frontty)(context, builder, args[4])
        rw = context.make_array(rowsty)(context, builder, args[5])
        j0 = context.cast(builder, args[2], j0ty, types.int64)
        j1 = context.cast(builder, args[3], j1ty, types.int64)
        ahead = context.cast(builder, args[6], aheadty, types.int64)
        accp = _row(context, builder, accty, args[0], ir.Constant(_I64, 0))
        start = builder.load(accp, align=8)
        total = builder.sub(j1, j0)
        last = builder.sub(j1, ir.Constant(_I64, 1))
        prefetch = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [_I8P, _I32, _I32, _I32]),
                                                  _PREFETCH)

        def neighbour(j):
            u = builder.load(_item(context, builder, inty, ind, j))
            return builder.sext(u, _I64) if inty.dtype.bitwidth < 64 else u

        def row_of(u):
            return _item(context, builder, rowsty, rw, builder.mul(u, ir.Constant(_I64, 8)))

        j, acc, blocks = loop_head(builder, "rows8", j0, j1, start, inner=("hit", "step", "stop"))
        head, body, hit, step, stop, done = (blocks[part] for part in ("head", "body", "hit", "step", "stop", "done"))
        # the body: prefetch the row `ahead` edges on (the last one near the end)
        later = builder.add(j, ahead)
        later = builder.select(builder.icmp_signed("<", later, j1), later, last)
        builder.call(prefetch, [builder.bitcast(row_of(neighbour(later)), _I8P), ir.Constant(_I32, 0),
                                ir.Constant(_I32, 3), ir.Constant(_I32, 1)])
        u = neighbour(j)
        word = builder.load(_item(context, builder, frontty, fr, builder.ashr(u, ir.Constant(_I64, 6))))
        bit = builder.and_(builder.lshr(word, builder.and_(u, ir.Constant(_I64, 63))), ir.Constant(_I64, 1))
        builder.cbranch(builder.icmp_unsigned("!=", bit, ir.Constant(_I64, 0)), hit, step)

        builder.position_at_end(hit)
        grown = builder.or_(acc, builder.load(builder.bitcast(row_of(u), _V8.as_pointer()), align=8))
        builder.cbranch(_all_ones(builder, grown), stop, step)

        builder.position_at_end(step)
        kept = builder.phi(_V8)
        kept.add_incoming(acc, body)
        kept.add_incoming(grown, hit)
        j.add_incoming(builder.add(j, ir.Constant(_I64, 1)), step)
        acc.add_incoming(kept, step)
        builder.branch(head)

        builder.position_at_end(stop)
        stopped = builder.sub(builder.add(j, ir.Constant(_I64, 1)), j0)
        builder.branch(done)

        builder.position_at_end(done)
        examined = builder.phi(_I64)
        final = builder.phi(_V8)
        examined.add_incoming(total, head)
        examined.add_incoming(stopped, stop)
        final.add_incoming(acc, head)
        final.add_incoming(grown, stop)
        builder.store(final, accp, align=8)
        return examined

    return sig, codegen
