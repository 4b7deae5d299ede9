"""Per-level statistics of the BFS kernels: rows of named int64 columns plus a seconds array.

Every driver (single-node, distributed, multi-source) records one row per level;
the columns are ``LEVEL_FIELDS`` and code reads and writes them by the index
constants below, never by bare position, so a field can be added without
shifting anyone's numbers. ``BFSResult.from_kernel`` turns rows into
``LevelStats`` by these names; the multi-source traversal appends its own field
(``joint_frontier``) after them.

``direction`` holds ``policy.TD`` or ``policy.BU``. The arrays start small and
double when full (``room_for``; ``grown`` for one array), so a deep, thin graph costs no up-front O(depth).

Level times are taken with ``ticks()``: the CPU's time-stamp counter on x86-64
(``llvm.readcyclecounter``: one instruction, no call out of compiled code), elsewhere
``time.perf_counter_ns`` through numba's object mode (much dearer: it takes the GIL).
Kernels keep tick differences; Python turns them into seconds with
``seconds_per_tick()`` (measured once per process against ``time.perf_counter``),
so a high-diameter search (thousands of levels) does not pay microseconds per
level for its clock.
"""
import functools
import platform
import time
import types as pytypes

import numpy as np
from llvmlite import ir
from numba import objmode, types

from ..jit import njit
from numba.core import cgutils
from numba.extending import intrinsic

LEVEL_FIELDS = ("level", "direction", "frontier", "edges_examined", "discovered")
LEVEL, DIRECTION, FRONTIER, EDGES_EXAMINED, DISCOVERED = range(len(LEVEL_FIELDS))
INITIAL_ROWS = 64


TSC = platform.machine().lower() in ("x86_64", "amd64")


@intrinsic
def _cycle_counter(typingctx):
    sig = types.int64()

    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                            "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


@njit(cache=True)
def _tsc_ticks():
    return _cycle_counter()


@njit(cache=True)
def _clock_ticks():
    with objmode(t="int64"):
        t = time.perf_counter_ns()
    return t


ticks = _tsc_ticks if TSC else _clock_ticks
ticks.__doc__ = "A monotonic tick count from inside a jitted function (``seconds_per_tick()`` converts)."


@functools.cache
def seconds_per_tick() -> float:
    """Seconds per ``ticks()`` unit: 1e-9 for the clock fallback, else measured over ~5 ms."""
    if not TSC:
        return 1e-9
    ticks()                                     # load / compile before measuring
    c0, t0 = ticks(), time.perf_counter()
    while time.perf_counter() - t0 < 0.005:
        pass
    c1, t1 = ticks(), time.perf_counter()
    return (t1 - t0) / max(c1 - c0, 1)


@njit(cache=True)
def grown(a, nrows):
    """``a`` while it has a row ``nrows``, else a copy of its first ``nrows`` rows with twice the room."""
    if nrows < a.shape[0]:
        return a
    out = np.zeros((2 * a.shape[0],) + a.shape[1:], dtype=a.dtype)
    src, dst = a.reshape(a.size), out.reshape(out.size)     # C order: the first rows lead the flat arrays
    for i in range(nrows * (a.size // max(a.shape[0], 1))):   # a loop: a slice copy compiles numba's shape-error code
        dst[i] = src[i]
    return out


@njit(cache=True)
def new_level_stats(ncols):
    """Empty (stats, times) arrays for ``ncols`` fields (times in ticks)."""
    return np.zeros((INITIAL_ROWS, ncols), dtype=np.int64), np.zeros(INITIAL_ROWS, dtype=np.int64)


@njit(cache=True)
def room_for(stats, times, nrows):
    """(stats, times) with at least ``nrows`` rows: the arrays themselves, or copies that keep their
    rows with the room doubled until it suffices (one function for both arrays: each compiled
    function adds to a first call's compile time)."""
    size = max(stats.shape[0], 1)
    while size < nrows:
        size *= 2
    if size == stats.shape[0]:
        return stats, times
    new_stats = np.zeros((size, stats.shape[1]), dtype=np.int64)
    new_times = np.zeros(size, dtype=np.int64)
    for i in range(stats.shape[0]):
        for j in range(stats.shape[1]):
            new_stats[i, j] = stats[i, j]
        new_times[i] = times[i]
    return new_stats, new_times


@njit(inline="always", cache=True)
def record(stats, times, nlev, level, direction, frontier, examined, discovered, elapsed):
    """Append one level's row and its ``ticks()`` difference; returns (stats, times, nlev + 1)
    (the arrays may have grown). Inlined into the level loop: a level of a deep, thin graph
    must not pay a call that passes and returns arrays."""
    if nlev == stats.shape[0]:
        stats, times = room_for(stats, times, nlev + 1)
    stats[nlev, LEVEL] = level
    stats[nlev, DIRECTION] = direction
    stats[nlev, FRONTIER] = frontier
    stats[nlev, EDGES_EXAMINED] = examined
    stats[nlev, DISCOVERED] = discovered
    times[nlev] = elapsed
    return stats, times, nlev + 1


def bind_steps(loop, steps_module, name: str):
    """``loop`` (a level loop that calls its steps as ``steps.<name>(...)``) as a new function
    ``name`` whose ``steps`` is ``steps_module``. One loop serves two engines this way: numba
    compiles the copy bound to numba steps (the steps are its globals; numba caches it under
    ``name``), Python runs the copy bound to steps that launch GPU kernels."""
    fn = pytypes.FunctionType(loop.__code__, {**loop.__globals__, "steps": steps_module}, name, loop.__defaults__)
    fn.__qualname__ = name
    fn.__doc__ = loop.__doc__
    return fn
