"""Bit-sliced words to bytes: a 64 x 64 bit transpose and an intrinsic that turns bits into byte lanes.

Bit-sliced kernels (many BFS instances per word, one bit each) have to give every
instance its own byte in the end -- the depth matrix of a many-source BFS is bytes.

* ``transpose64(a, o)`` transposes the 64 x 64 bit matrix ``a[o : o + 64]`` (word i,
  bit t) in place: six rounds of block swaps (Hacker's Delight, section 7-3).
* ``depth_lanes`` builds 64 bytes from bit planes: bit p of byte t is bit t of plane p,
  or the whole byte is ``unreach`` where bit t of the "reached" word is clear. Done
  with scalar code, spreading one word into 64 bytes takes eight table lookups and
  shifts per plane; as LLVM vector code each plane is the word reinterpreted as a
  ``<64 x i1>`` mask selecting a splatted byte, which an AVX-512 (BW) core runs as a
  mask move and one masked byte operation on a 64-byte register (other targets get
  LLVM's lowering of the same IR: slower, equally correct). The bytes are stored once,
  optionally with a non-temporal store, which writes the line to memory without first
  reading it into the cache (``store_fence`` orders such stores).
"""
import platform

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .atomics import U

__all__ = ["transpose64", "depth_lanes", "store_fence", "LANES"]

LANES = 64
_X86 = platform.machine().lower() in ("x86_64", "amd64")
_I8 = ir.IntType(8)
_V64 = ir.VectorType(_I8, LANES)
_M64 = ir.VectorType(ir.IntType(1), LANES)


def _splat(builder, value):
    """A <64 x i8> with every lane ``value`` (an i8)."""
    one = builder.insert_element(ir.Constant(_V64, ir.Undefined), value, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(one, ir.Constant(_V64, ir.Undefined),
                                  ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES))


def _lanes_pointer(context, builder, arrty, arr, idx, idxty):
    ary = context.make_array(arrty)(context, builder, arr)
    idx = context.cast(builder, idx, idxty, types.intp)
    ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [idx], wraparound=False)
    return builder.bitcast(ptr, _V64.as_pointer())


def _byte(context, builder, value, valuety):
    return context.cast(builder, value, valuety, types.uint8)


def _checked(dst, idx, *ints):
    return (isinstance(dst, types.Array) and dst.dtype == types.uint8 and dst.ndim == 1
            and all(isinstance(t, types.Integer) for t in (idx,) + ints))


@njit(inline="always", cache=True)
def transpose64(a, o):
    """Transpose the 64 x 64 bit matrix in ``a[o : o + 64]`` (bit t of word i <-> bit i of word t)."""
    j = 32
    m = np.uint64(0x00000000FFFFFFFF)
    while j:
        k = 0
        while k < 64:
            for i in range(k, k + j):
                t = ((a[U(o + i)] >> np.uint64(j)) ^ a[U(o + i + j)]) & m
                a[U(o + i)] ^= t << np.uint64(j)
                a[U(o + i + j)] ^= t
            k += 2 * j
        j >>= 1
        m ^= m << np.uint64(j)


@intrinsic
def depth_lanes(typingctx, dst, idx, words, widx, stride, planes, unreach, stream):
    """Sixty-four bit-sliced depths as bytes: ``dst[idx + t]`` := the depth whose bit p is bit t
    of ``words[widx + (p + 1) * stride]`` (p < ``planes``) where bit t of ``words[widx]`` (reached)
    is set, else ``unreach``. With ``stream`` the 64 bytes go out in one non-temporal store
    (``dst[idx]`` must then be 64-byte aligned), else in one ordinary unaligned store."""
    if not (_checked(dst, idx, widx, stride, planes, unreach) and isinstance(words, types.Array)
            and words.dtype == types.uint64 and words.ndim == 1 and isinstance(stream, types.Boolean)):
        return None
    sig = types.void(dst, idx, words, widx, stride, planes, unreach, stream)

    def codegen(context, builder, sig, args):
        dstty, idxty, wordsty, widxty, stridety, planesty, unreachty, _ = sig.args
        dptr = _lanes_pointer(context, builder, dstty, args[0], args[1], idxty)
        wary = context.make_array(wordsty)(context, builder, args[2])
        i64 = ir.IntType(64)
        widx = context.cast(builder, args[3], widxty, types.intp)
        stride = context.cast(builder, args[4], stridety, types.intp)
        planes = context.cast(builder, args[5], planesty, types.intp)

        def word(index):
            ptr = cgutils.get_item_pointer(context, builder, wordsty, wary, [index], wraparound=False)
            return builder.load(ptr)

        start = builder.select(builder.bitcast(word(widx), _M64), ir.Constant(_V64, None),
                               _splat(builder, _byte(context, builder, args[6], unreachty)))
        entry = builder.block
        head = builder.append_basic_block("lanes.head")
        body = builder.append_basic_block("lanes.body")
        done = builder.append_basic_block("lanes.done")
        builder.branch(head)
        builder.position_at_end(head)
        p = builder.phi(i64)
        acc = builder.phi(_V64)
        p.add_incoming(ir.Constant(i64, 0), entry)
        acc.add_incoming(start, entry)
        builder.cbranch(builder.icmp_signed("<", p, planes), body, done)
        builder.position_at_end(body)
        bits = word(builder.add(widx, builder.mul(builder.add(p, ir.Constant(i64, 1)), stride)))
        value = builder.trunc(builder.shl(ir.Constant(i64, 1), p), _I8)
        grown = builder.or_(acc, builder.select(builder.bitcast(bits, _M64), _splat(builder, value),
                                                ir.Constant(_V64, None)))
        p.add_incoming(builder.add(p, ir.Constant(i64, 1)), body)
        acc.add_incoming(grown, body)
        builder.branch(head)
        builder.position_at_end(done)
        with builder.if_else(args[7]) as (nt, plain):
            with nt:
                st = builder.store(acc, dptr, align=LANES)
                st.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
            with plain:
                builder.store(acc, dptr, align=1)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def store_fence(typingctx):
    """Order the non-temporal stores made so far before any later store (x86 ``sfence``, a full
    fence elsewhere): they bypass the cache and are not ordered by the lock that ends a
    parallel region."""
    sig = types.void()

    def codegen(context, builder, sig, args):
        if _X86:
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                "llvm.x86.sse.sfence")
            builder.call(fn, [])
        else:
            builder.fence("seq_cst")
        return context.get_dummy_value()

    return sig, codegen
