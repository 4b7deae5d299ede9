"""Atomic read-modify-write on array elements, and bit scanning, for numba CPU kernels.

numba has no CPU atomics of its own; these intrinsics emit LLVM ``cmpxchg`` /
``atomicrmw`` instructions on the address of ``arr[i]`` (monotonic ordering:
the BFS kernels only need each element updated atomically, the level barrier
at the end of every parallel loop orders everything else). They are inlined
into the calling kernel, so they cost what the instruction costs and are
cached with it.

Hazard (numba 0.6x, seen here): inside a ``parallel=True`` function, an array
made with ``np.zeros`` that is only ever modified through these intrinsics is
treated as still all-zero, and later reads of it are folded to 0. Kernels
therefore take their atomic targets as arguments, allocated by the caller.

``claim`` and ``set_bit`` are the two updates BFS kernels make on shared state, with
a switch: ``atomic`` False means the kernel runs on a single thread (numba's thread
count is 1, as for an MPI rank per core), where a plain load and store replace the
atomic instruction.

``cttz`` (count trailing zeros) is how the bitmap kernels find the next set bit
of a word: one ``tzcnt``/``bsf`` instruction through LLVM's ``llvm.cttz``. It is
defined here rather than borrowed from numba's internal
``numba.cpython.unsafe.numbers.trailing_zeros``, which is not public API.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


def _element_pointer(context, builder, arrty, arr, idx, idxty):
    ary = context.make_array(arrty)(context, builder, arr)
    idx = context.cast(builder, idx, idxty, types.intp)
    return cgutils.get_item_pointer(context, builder, arrty, ary, [idx], wraparound=False)


@intrinsic
def atomic_cas(typingctx, arr, idx, expected, new):
    """``arr[idx] = new`` if ``arr[idx] == expected``; True when it swapped."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
        return None
    sig = types.boolean(arr, idx, expected, new)

    def codegen(context, builder, sig, args):
        arrty, idxty, expty, newty = sig.args
        arr_v, idx_v, exp_v, new_v = args
        ptr = _element_pointer(context, builder, arrty, arr_v, idx_v, idxty)
        exp_v = context.cast(builder, exp_v, expty, arrty.dtype)
        new_v = context.cast(builder, new_v, newty, arrty.dtype)
        res = builder.cmpxchg(ptr, exp_v, new_v, "monotonic", "monotonic")
        return builder.extract_value(res, 1)

    return sig, codegen


def _rmw(op):
    @intrinsic
    def rmw(typingctx, arr, idx, val):
        if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
            return None
        sig = arr.dtype(arr, idx, val)

        def codegen(context, builder, sig, args):
            arrty, idxty, valty = sig.args
            arr_v, idx_v, val_v = args
            ptr = _element_pointer(context, builder, arrty, arr_v, idx_v, idxty)
            val_v = context.cast(builder, val_v, valty, arrty.dtype)
            return builder.atomic_rmw(op, ptr, val_v, "monotonic")

        return sig, codegen

    return rmw


atomic_add = _rmw("add")
"""``old = arr[idx]; arr[idx] += val; return old`` atomically."""
atomic_or = _rmw("or")
"""``old = arr[idx]; arr[idx] |= val; return old`` atomically."""


@intrinsic
def cttz(typingctx, x):
    """Number of trailing zero bits of the integer ``x`` (the index of its lowest set bit).

    ``x == 0`` gives the bit width; the kernels only call it on non-zero words.
    """
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(inline="always", cache=True)
def claim(arr, i, new, atomic):
    """arr[i] := new if it is -1; True for the one caller that changed it."""
    if atomic:
        return atomic_cas(arr, i, -1, new)
    if arr[i] < 0:
        arr[i] = new
        return True
    return False


@njit(inline="always", cache=True)
def set_bit(bits, v, atomic):
    """Set bit v of a bitmap of uint64 words; True if it was clear."""
    mask = np.uint64(1) << np.uint64(v & 63)
    if atomic:
        return not (atomic_or(bits, v >> 6, mask) & mask)
    old = bits[v >> 6]
    bits[v >> 6] = old | mask
    return not (old & mask)
