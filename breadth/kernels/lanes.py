"""Bit-sliced words to bytes: a 64 x 64 bit transpose and an intrinsic that turns bits into byte lanes.

Bit-sliced kernels (many BFS instances per word, one bit each) have to give every
instance its own byte in the end -- the depth matrix of a many-source BFS is bytes.

* ``transpose64(a, o)`` transposes the 64 x 64 bit matrix ``a[o : o + 64]`` (word i,
  bit t) in place. Where the compilation target has AVX-512 (BW) and GFNI it is
  ``transpose64_gfni``, 8x8 blocks on 512-bit registers: the matrix is eight registers
  of eight words; a byte shuffle per register gathers each 8 x 8 bit block into one
  64-bit lane, one ``vgf2p8affineqb`` per register transposes all eight blocks in their
  lanes (an affine map over GF(2) with the block as the matrix and unit bytes as the
  input returns the block's columns), a three-stage 8 x 8 lane transpose puts block
  (R, C) where block (C, R) was, and a byte shuffle per register puts the bytes back
  in row order: about 60 vector operations, an order of magnitude faster than the portable
  ``transpose64_swaps`` (six rounds of block swaps on words, Hacker's Delight,
  section 7-3), which every other target gets.
* ``depth_lanes`` builds 64 bytes from bit planes: byte t is ``base`` plus the number
  whose bit p is bit t of plane p, or ``unreach`` where bit t of the "reached" word is
  clear (the planes are clear there). Done
  with scalar code, spreading one word into 64 bytes takes eight table lookups and
  shifts per plane; as LLVM vector code each plane is the word reinterpreted as a
  ``<64 x i1>`` mask selecting a splatted byte to add, which an AVX-512 (BW) core runs as a
  mask move and one masked byte operation on a 64-byte register (other targets get
  LLVM's lowering of the same IR: slower, equally correct). The bytes are stored once,
  optionally with a non-temporal store, which writes the line to memory without first
  reading it into the cache (``store_fence`` orders such stores).
"""
import platform

import llvmlite.binding as ll
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic

from ..jit import njit
from .atomics import U
from .ir_loop import loop_head

__all__ = ["transpose64", "transpose64_gfni", "transpose64_swaps", "gfni_target", "depth_lanes", "store_fence",
           "LANES"]

LANES = 64
_X86 = platform.machine().lower() in ("x86_64", "amd64")
_I8 = ir.IntType(8)
_V64 = ir.VectorType(_I8, LANES)
_M64 = ir.VectorType(ir.IntType(1), LANES)
_I32 = ir.IntType(32)
_Q8 = ir.VectorType(ir.IntType(64), 8)


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


def gfni_target() -> bool:
    """Whether numba compiles for a CPU with AVX-512 BW and GFNI (the host's, unless
    NUMBA_CPU_NAME / NUMBA_CPU_FEATURES name another target)."""
    if not _X86:
        return False
    if config.CPU_NAME is None:
        features = {k for k, on in ll.get_host_cpu_features().items() if on}
    else:
        features = {f[1:] for f in (config.CPU_FEATURES or "").split(",") if f.startswith("+")}
    return {"avx512f", "avx512bw", "gfni"} <= features


@njit(inline="always", cache=True)
def transpose64_swaps(a, o):
    """``transpose64`` on any target: six rounds of swaps of ever smaller blocks."""
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


def _shuffle(values):
    return ir.Constant(ir.VectorType(_I32, len(values)), list(values))


# Register R holds words 8R .. 8R + 7, byte C of word r = bits 8C .. 8C + 7 of row 8R + r.
_GATHER = _shuffle([8 * r + c for c in range(8) for r in reversed(range(8))])    # lane c: byte c of rows 7 .. 0
_SCATTER = _shuffle([8 * r + k for k in range(8) for r in range(8)])             # the 8 x 8 byte transpose
_UNIT = ir.Constant(_V64, [1 << (j & 7) for j in range(LANES)])                  # byte j of a lane: bit j
_LANE_STAGES = ((1, _shuffle([0, 8, 2, 10, 4, 12, 6, 14]), _shuffle([1, 9, 3, 11, 5, 13, 7, 15])),
                (2, _shuffle([0, 1, 8, 9, 4, 5, 12, 13]), _shuffle([2, 3, 10, 11, 6, 7, 14, 15])),
                (4, _shuffle([0, 1, 2, 3, 8, 9, 10, 11]), _shuffle([4, 5, 6, 7, 12, 13, 14, 15])))


@intrinsic
def transpose64_gfni(typingctx, a, o):
    """``transpose64`` for AVX-512 BW + GFNI targets (``gfni_target``); see the module notes."""
    if not (isinstance(a, types.Array) and a.dtype == types.uint64 and a.ndim == 1
            and isinstance(o, types.Integer)):
        return None
    sig = types.void(a, o)

    def codegen(context, builder, sig, args):
        arrty, oty = sig.args
        ary = context.make_array(arrty)(context, builder, args[0])
        at = context.cast(builder, args[1], oty, types.intp)
        base = builder.bitcast(cgutils.get_item_pointer(context, builder, arrty, ary, [at], wraparound=False),
                               _Q8.as_pointer())
        affine = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V64, [_V64, _V64, _I8]),
                                                "llvm.x86.vgf2p8affineqb.512")
        undef = ir.Constant(_V64, ir.Undefined)
        regs = []
        for r in range(8):     # lane C of register R := block (R, C), rows reversed, then transposed
            row = builder.bitcast(builder.load(builder.gep(base, [ir.Constant(_I32, r)]), align=8), _V64)
            blocks = builder.shuffle_vector(row, undef, _GATHER)
            regs.append(builder.bitcast(builder.call(affine, [_UNIT, blocks, ir.Constant(_I8, 0)]), _Q8))
        for step, low, high in _LANE_STAGES:      # lane C of register R <-> lane R of register C
            nxt = list(regs)
            for r in range(8):
                if not r & step:
                    nxt[r] = builder.shuffle_vector(regs[r], regs[r + step], low)
                    nxt[r + step] = builder.shuffle_vector(regs[r], regs[r + step], high)
            regs = nxt
        for c in range(8):
            out = builder.shuffle_vector(builder.bitcast(regs[c], _V64), undef, _SCATTER)
            builder.store(builder.bitcast(out, _Q8), builder.gep(base, [ir.Constant(_I32, c)]), align=8)
        return context.get_dummy_value()

    return sig, codegen


transpose64 = transpose64_gfni if gfni_target() else transpose64_swaps
"""Transpose the 64 x 64 bit matrix in ``a[o : o + 64]`` (bit t of word i <-> bit i of word t),
in place; inlined into numba code."""


@intrinsic
def depth_lanes(typingctx, dst, idx, words, widx, stride, planes, base, unreach, stream):
    """Sixty-four bit-sliced depths as bytes: ``dst[idx + t]`` := ``base`` + the number whose bit
    p is bit t of ``words[widx + (p + 1) * stride]`` (p < ``planes``) where bit t of
    ``words[widx]`` (reached) is set, else ``unreach`` (the plane bits must be clear there).
    With ``stream`` the 64 bytes go out in one non-temporal store (``dst[idx]`` must then be
    64-byte aligned), else in one ordinary unaligned store."""
    if not (_checked(dst, idx, widx, stride, planes, base, unreach) and isinstance(words, types.Array)
            and words.dtype == types.uint64 and words.ndim == 1 and isinstance(stream, types.Boolean)):
        return None
    sig = types.void(dst, idx, words, widx, stride, planes, base, unreach, stream)

    def codegen(context, builder, sig, args):
        dstty, idxty, wordsty, widxty, stridety, planesty, basety, unreachty, _ = sig.args
        dptr = _lanes_pointer(context, builder, dstty, args[0], args[1], idxty)
        wary = context.make_array(wordsty)(context, builder, args[2])
        i64 = ir.IntType(64)
        widx = context.cast(builder, args[3], widxty, types.intp)
        stride = context.cast(builder, args[4], stridety, types.intp)
        planes = context.cast(builder, args[5], planesty, types.intp)

        def word(index):
            ptr = cgutils.get_item_pointer(context, builder, wordsty, wary, [index], wraparound=False)
            return builder.load(ptr)

        start = builder.select(builder.bitcast(word(widx), _M64),
                               _splat(builder, _byte(context, builder, args[6], basety)),
                               _splat(builder, _byte(context, builder, args[7], unreachty)))
        p, acc, blocks = loop_head(builder, "lanes", ir.Constant(i64, 0), planes, start)
        body = builder.block
        bits = word(builder.add(widx, builder.mul(builder.add(p, ir.Constant(i64, 1)), stride)))
        value = builder.trunc(builder.shl(ir.Constant(i64, 1), p), _I8)
        grown = builder.add(acc, builder.select(builder.bitcast(bits, _M64), _splat(builder, value),
                                                ir.Constant(_V64, None)))
        p.add_incoming(builder.add(p, ir.Constant(i64, 1)), body)
        acc.add_incoming(grown, body)
        builder.branch(blocks["head"])
        builder.position_at_end(blocks["done"])
        with builder.if_else(args[8]) as (nt, plain):
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
