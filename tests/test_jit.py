"""breadth.jit: compiling is done before the clock starts, or left out of it, and announced once."""
import logging

import numpy as np
from numba import njit

from breadth import jit


def _fresh_kernel(module="tests.fresh"):
    """A new numba function (never cached): its first call compiles."""
    def add_one(a):
        out = np.empty_like(a)
        for i in range(a.size):
            out[i] = a[i] + 1
        return out

    add_one.__module__ = module
    return njit(add_one)


def test_stopwatch_leaves_compiling_out():
    f = _fresh_kernel()
    with jit.Stopwatch() as clock:
        f(np.arange(4))
    assert clock.compile_seconds > 0.02              # compiling happened inside the block
    assert clock.seconds < clock.compile_seconds / 4  # and is not in the work's time
    with jit.Stopwatch() as again:
        f(np.arange(4))
    assert again.compile_seconds == 0.0


def test_prepare_compiles_the_overload_the_call_uses():
    f = _fresh_kernel()
    a = np.arange(5, dtype=np.int32)
    assert jit.prepare(f, a) > 0
    assert jit.is_ready(f, jit.signature(f, (a,)))
    assert jit.prepare(f, a) == 0.0
    with jit.Stopwatch() as clock:
        f(a)
    assert clock.compile_seconds == 0.0              # the call found its overload ready
    assert jit.prepare(f, a.astype(np.float64)) > 0  # another type: another overload


def test_announces_the_first_compilation_of_a_breadth_kernel_once(caplog, monkeypatch):
    monkeypatch.setattr(jit, "_announced", [False])
    with caplog.at_level(logging.INFO, logger="breadth.jit"):
        _fresh_kernel("tests.fresh")(np.arange(3))           # not breadth's: no note
        assert not caplog.records
        _fresh_kernel("breadth.fresh")(np.arange(3))
        _fresh_kernel("breadth.fresh")(np.arange(3))
    notes = [r.getMessage() for r in caplog.records]
    assert len(notes) == 1 and notes[0].startswith("compiling breadth's kernels for this machine (first run only")


def test_compile_events_records_nesting():
    inner = _fresh_kernel()

    def outer(a):
        return inner(a)

    outer.__module__ = "tests.fresh"
    outer = njit(outer)
    with jit.compile_events() as rows:
        outer(np.arange(3))
    names = [r[0] for r in rows]
    assert names[0].endswith("outer") and any(n.endswith("add_one") for n in names[1:])
    assert rows[0][3] == 0 and all(r[3] >= 1 for r in rows[1:])
    assert rows[0][2] >= max(r[2] for r in rows[1:])
