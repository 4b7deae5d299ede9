"""Atomic read-modify-write on array elements, and bit scanning, for numba CPU kernels.

numba has no CPU atomics of its own; these intrinsics emit LLVM ``cmpxchg`` /
``atomicrmw`` instructions on the address of ``arr[i]`` (monotonic ordering:
the BFS kernels only need each element updated atomically, the level barrier
at the end of every parallel loop orders everything else). They are inlined
into the calling kernel, so they cost what the instruction costs and are
cached with it.

Hazard (numba 0.6x): inside a ``parallel=True`` function, an array
made with ``np.zeros`` that is only ever modified through these intrinsics is
treated as still all-zero, and later reads of it are folded to 0. Kernels
therefore take their atomic targets as arguments, allocated by the caller.

``claim`` and ``set_bit`` are the two updates BFS kernels make on shared state, with
a switch: ``atomic`` False means the kernel runs on a single thread (numba's thread
count is 1, as for an MPI rank per core), where a plain load and store replace the
atomic instruction. All of them are intrinsics: an array passed to a jitted helper
inside a per-edge loop can cost a reference-count update per call, an intrinsic
costs nothing but its instructions.

``borrowed`` lends a kernel's arrays to code that runs once per edge: a tuple of
arrays (and scalars, and nested tuples) whose arrays carry no reference count.
numba counts references to arrays, and a jitted function inlined into a loop
binds its parameters anew on every call; when numba cannot prune the resulting
increments (it often cannot once the loop body branches), every call pays atomic
updates of shared counters, which can triple a top-down step's time. A borrowed view
is valid while the kernel that made it runs (its caller holds the real arrays).

``prefetch_read`` / ``prefetch_write`` hint that an element's cache line will be needed
(``llvm.prefetch``): for passes that make one random access per item, issued some items
ahead so that many misses overlap (``top_down.settle_claims``).

``cttz`` (count trailing zeros) is how the bitmap kernels find the next set bit
of a word: one ``tzcnt``/``bsf`` instruction through LLVM's ``llvm.cttz``. It is
defined here rather than borrowed from numba's internal
``numba.cpython.unsafe.numbers.trailing_zeros``, which is not public API.
"""
import platform

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

U = np.uint64
"""Subscript with ``arr[U(i)]`` in hot loops: numba checks every signed subscript for a
negative value (Python's wraparound), and that check is a large share of a tight edge
loop. An unsigned subscript skips it. Only where ``i`` is a valid index by construction: a negative ``i``
becomes a huge index, so a bug would read out of bounds instead of from the end."""


def _element_pointer(context, builder, arrty, arr, idx, idxty):
    ary = context.make_array(arrty)(context, builder, arr)
    idx = context.cast(builder, idx, idxty, types.intp)
    return cgutils.get_item_pointer(context, builder, arrty, ary, [idx], wraparound=False)


def _int_array(arr) -> bool:
    return isinstance(arr, types.Array) and isinstance(arr.dtype, types.Integer)


def _operands(context, builder, sig, args):
    """The pointer to ``arr[idx]`` (the first two arguments) and the others cast to the element type."""
    arrty, idxty = sig.args[:2]
    ptr = _element_pointer(context, builder, arrty, args[0], args[1], idxty)
    return ptr, [context.cast(builder, v, t, arrty.dtype) for v, t in zip(args[2:], sig.args[2:])]


def _cas(ordering):
    @intrinsic
    def cas(typingctx, arr, idx, expected, new):
        if not _int_array(arr):
            return None
        sig = types.boolean(arr, idx, expected, new)

        def codegen(context, builder, sig, args):
            ptr, (exp_v, new_v) = _operands(context, builder, sig, args)
            return builder.extract_value(builder.cmpxchg(ptr, exp_v, new_v, ordering, ordering), 1)

        return sig, codegen

    return cas


atomic_cas = _cas("monotonic")
"""``arr[idx] = new`` if ``arr[idx] == expected``; True when it swapped."""


def _element_op(result, emit):
    """An intrinsic ``f(arr, idx, val)`` on the element ``arr[idx]`` of an integer array:
    ``emit(context, builder, ptr, val)`` writes its code; ``result(arr)`` is its return type."""
    @intrinsic
    def op(typingctx, arr, idx, val):
        if not _int_array(arr):
            return None
        sig = result(arr)(arr, idx, val)

        def codegen(context, builder, sig, args):
            ptr, (val_v,) = _operands(context, builder, sig, args)
            return emit(context, builder, ptr, val_v)

        return sig, codegen

    return op


def _rmw(op, ordering="monotonic"):
    def emit(context, builder, ptr, val):
        return builder.atomic_rmw(op, ptr, val, ordering)

    return _element_op(lambda arr: arr.dtype, emit)


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



@intrinsic
def claim(typingctx, arr, idx, new, atomic):
    """arr[idx] := new if it is -1; True for the one caller that changed it.

    ``atomic`` (a bool) chooses a compare-and-swap or a plain load and store. An
    intrinsic rather than a jitted helper so that passing the array costs no
    reference counting in the per-edge loops that call it.
    """
    if not _int_array(arr):
        return None
    sig = types.boolean(arr, idx, new, atomic)

    def codegen(context, builder, sig, args):
        ptr, (new_v, _) = _operands(context, builder, sig, args)
        unset = ir.Constant(new_v.type, -1)
        out = cgutils.alloca_once(builder, ir.IntType(1))
        with builder.if_else(context.cast(builder, args[3], sig.args[3], types.boolean)) as (then, otherwise):
            with then:
                res = builder.cmpxchg(ptr, unset, new_v, "monotonic", "monotonic")
                builder.store(builder.extract_value(res, 1), out)
            with otherwise:
                old = builder.load(ptr)
                free = builder.icmp_signed("<", old, ir.Constant(old.type, 0))
                with builder.if_then(free):
                    builder.store(new_v, ptr)
                builder.store(free, out)
        return builder.load(out)

    return sig, codegen


@intrinsic
def set_bit(typingctx, bits, v, atomic):
    """Set bit v of a bitmap of uint64 words; True if it was clear (``atomic`` as in ``claim``)."""
    if not isinstance(bits, types.Array) or bits.dtype != types.uint64:
        return None
    sig = types.boolean(bits, v, atomic)

    def codegen(context, builder, sig, args):
        bitsty, vty, atomicty = sig.args
        bits_v, v_v, atomic_v = args
        v64 = context.cast(builder, v_v, vty, types.int64)
        word = builder.ashr(v64, ir.Constant(v64.type, 6))
        mask = builder.shl(ir.Constant(v64.type, 1), builder.and_(v64, ir.Constant(v64.type, 63)))
        ptr = _element_pointer(context, builder, bitsty, bits_v, word, types.int64)
        out = cgutils.alloca_once(builder, ir.IntType(64))
        with builder.if_else(context.cast(builder, atomic_v, atomicty, types.boolean)) as (then, otherwise):
            with then:
                builder.store(builder.atomic_rmw("or", ptr, mask, "monotonic"), out)
            with otherwise:
                old = builder.load(ptr)
                builder.store(builder.or_(old, mask), ptr)
                builder.store(old, out)
        was = builder.and_(builder.load(out), mask)
        return builder.icmp_unsigned("==", was, ir.Constant(was.type, 0))

    return sig, codegen


def _borrow(context, builder, ty, val):
    if isinstance(ty, types.Array):
        src = context.make_array(ty)(context, builder, val)
        out = context.make_array(ty)(context, builder)
        cgutils.copy_struct(out, src)
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()
    if isinstance(ty, types.BaseTuple):
        for i, item in enumerate(ty):
            val = builder.insert_value(val, _borrow(context, builder, item, builder.extract_value(val, i)), i)
    return val


def _lendable(ty) -> bool:
    if isinstance(ty, types.BaseTuple):
        return all(_lendable(t) for t in ty)
    return isinstance(ty, (types.Array, types.Number, types.Boolean))


@intrinsic
def borrowed(typingctx, ctx):
    """``ctx`` (a tuple of arrays, numbers, booleans, nested tuples) with reference-count-free arrays."""
    if not isinstance(ctx, types.BaseTuple) or not _lendable(ctx):
        return None
    sig = ctx(ctx)

    def codegen(context, builder, sig, args):
        return _borrow(context, builder, sig.args[0], args[0])

    return sig, codegen


# --- synchronisation between the threads of one parallel region (``kernels.thin_levels``) ---
# The BFS kernels above rely on the barrier at the end of each parallel loop; a kernel whose
# threads hand work to each other inside one loop needs ordered loads and stores instead.
# These use sequentially consistent ordering (on x86-64 a load is a plain ``mov``; a store and
# an RMW carry the fence), so data written before a ``store_seq``/``add_seq``/``cas_seq`` is
# visible to a thread that then reads the value with ``load_seq``.


@intrinsic
def load_seq(typingctx, arr, idx):
    """arr[idx], read atomically (never hoisted out of a spin loop, never reordered)."""
    if not _int_array(arr):
        return None
    sig = arr.dtype(arr, idx)

    def codegen(context, builder, sig, args):
        ptr, _ = _operands(context, builder, sig, args)
        return builder.load_atomic(ptr, "seq_cst", context.get_abi_sizeof(ptr.type.pointee))

    return sig, codegen


def _store_seq(context, builder, ptr, val):
    builder.store_atomic(val, ptr, "seq_cst", context.get_abi_sizeof(ptr.type.pointee))
    return context.get_dummy_value()


store_seq = _element_op(lambda arr: types.void, _store_seq)
"""arr[idx] = val, atomically, after every earlier load and store of this thread."""
add_seq = _rmw("add", "seq_cst")
"""``atomic_add`` with sequentially consistent ordering; returns the old value."""
cas_seq = _cas("seq_cst")
"""``atomic_cas`` with sequentially consistent ordering; True when it swapped."""


@intrinsic
def spin_pause(typingctx):
    """One round of a spin-wait: the x86 ``pause`` hint (nothing elsewhere)."""
    sig = types.void()

    def codegen(context, builder, sig, args):
        if platform.machine().lower() in ("x86_64", "amd64"):
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def yield_cpu(typingctx):
    """Give the core to another runnable thread (POSIX ``sched_yield``): how a thread that has
    waited long stops taking CPU time from the processes beside it."""
    sig = types.void()

    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield")
        builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen


# the intrinsic's name: LLVM >= 15 has opaque pointers (``p0``), older ones name the pointee
_PREFETCH = "llvm.prefetch.p0" if llvm.llvm_version_info >= (15,) else "llvm.prefetch.p0i8"


def _prefetcher(rw):
    @intrinsic
    def prefetch(typingctx, arr, idx):
        if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
            return None
        sig = types.void(arr, idx)

        def codegen(context, builder, sig, args):
            ptr = _element_pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                                _PREFETCH)
            # (address, rw, locality 3 = keep in all cache levels, cache type 1 = data)
            builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, rw), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen

    return prefetch


prefetch_read = _prefetcher(0)
"""Hint that ``arr[idx]`` will be read soon (``llvm.prefetch``; no fault, no bounds check)."""
prefetch_write = _prefetcher(1)
"""Hint that ``arr[idx]`` will be written soon (the line is fetched for ownership)."""
