"""A software prefetch hint for the bottom-up kernels (``llvm.prefetch``).

``prefetch(arr, i)`` asks the CPU to bring the cache line holding ``arr[i]``
into cache (read, high locality) and returns at once; it never faults, so an
index whose load is not needed yet (or at all) is harmless. The iBFS bottom-up
level reads the status row of every in-neighbour that is in the joint frontier:
a random 64-byte row per edge, whose latency a hint issued a few edges ahead
hides (``bottom_up``).
"""
from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch"]

# the intrinsic's name: LLVM >= 15 has opaque pointers (``p0``), older ones name the pointee
_NAME = "llvm.prefetch.p0" if llvm.llvm_version_info >= (15,) else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, arr, idx):
    """Prefetch the cache line of ``arr[idx]`` for reading (no bounds check, no load)."""
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None
    sig = types.void(arr, idx)

    def codegen(context, builder, sig, args):
        arrty, idxty = sig.args
        ary = context.make_array(arrty)(context, builder, args[0])
        i = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, arrty, ary, [i], wraparound=False)
        i32 = ir.IntType(32)
        byte_ptr = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _NAME)
        # rw = 0 (read), locality = 3 (keep in all cache levels), cache type = 1 (data)
        builder.call(fn, [byte_ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
