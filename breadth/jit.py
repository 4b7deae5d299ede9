"""Compilation out of the way: numba's compiling and cache loading is never counted as search time.

numba compiles a kernel for the argument types of its first call and keeps the machine
code in an on-disk cache (``cache.py`` chooses where); a later process loads it from
there. Both happen inside the first call, so breadth's timed entry points do two things:

* ``prepare(kernel, *args)`` before the clock starts, where one kernel does the work
  (``breadth.bfs``): it compiles, or loads, exactly the specialisation the call will use
  and returns the seconds that took;
* ``Stopwatch`` around work that runs many kernels (the many-source searches, the
  Graph500 kernels): its ``seconds`` are the wall time less the time this thread spent
  holding numba's compiler lock inside the block, which numba takes for every compilation
  and every cache load; ``compile_seconds`` are those.

Either way the result reports the compile time apart (``compile_seconds``).

The first real compilation of a breadth kernel in a process (not a cache load: numba found
no cached copy, so the call will wait seconds) is announced once on the ``breadth.jit``
logger at WARNING level, so it reaches stderr whether or not stderr is a terminal: the
command line shows it unless ``--quiet``, and a library user sees it through Python's
last-resort handler when logging is not configured.
``compile_events()`` records every compilation numba runs, with its nesting, for
``bench/compile_times.py``.
"""
from __future__ import annotations

import contextlib
import logging
import threading
import time

from numba.core import event
from numba.core.event import Listener

log = logging.getLogger(__name__)

ESTIMATE = 30.0       # rough seconds a first call compiles from scratch, for the note

_announced = [False]
_local = threading.local()     # per thread: lock_depth, lock_t0, lock_seconds, compile_depth


def compiling_seconds() -> float:
    """Seconds this thread has spent in numba's compiler lock (compiling, loading cached code) so far."""
    return getattr(_local, "lock_seconds", 0.0)


class _LockClock(Listener):
    """Adds the time each outermost hold of numba's compiler lock lasts to this thread's total."""

    def on_start(self, event):
        depth = getattr(_local, "lock_depth", 0)
        if depth == 0:
            _local.lock_t0 = time.perf_counter()
        _local.lock_depth = depth + 1

    def on_end(self, event):
        _local.lock_depth -= 1
        if _local.lock_depth == 0:
            _local.lock_seconds = compiling_seconds() + time.perf_counter() - _local.lock_t0


class _Announcer(Listener):
    """Announces the first outermost compilation of a breadth function in this process."""

    def on_start(self, event):
        depth = getattr(_local, "compile_depth", 0)
        _local.compile_depth = depth + 1
        if depth == 0 and not _announced[0]:
            func = getattr(event.data.get("dispatcher"), "py_func", None)
            if getattr(func, "__module__", "").startswith(("breadth.", "_breadth_nx")):
                announce()

    def on_end(self, event):
        _local.compile_depth -= 1


def announce(estimate: float | None = None) -> None:
    """Say once per process that compilation is starting and about how long it takes."""
    if _announced[0]:
        return
    _announced[0] = True
    from .cache import cache_dir

    log.warning("compiling breadth's kernels for this machine (first run only, ~%d s; cached in %s; "
                "'breadth warmup' does it ahead)...", round(estimate or ESTIMATE), cache_dir())


event.register("numba:compiler_lock", _LockClock())
event.register("numba:compile", _Announcer())


class Stopwatch:
    """Wall time of a ``with`` block less the compiling and cache loading in it (this thread).

    ``seconds``: the work's time; ``compile_seconds``: the compiling and loading left out.
    ``lap()`` reads ``seconds`` so far without closing the block; ``Stopwatch.start()`` is one
    started without a block.
    """

    @classmethod
    def start(cls) -> "Stopwatch":
        return cls().__enter__()

    def __enter__(self):
        self._c0 = compiling_seconds()
        self._t0 = time.perf_counter()
        self.seconds = self.compile_seconds = 0.0
        return self

    def lap(self) -> float:
        self.compile_seconds = compiling_seconds() - self._c0
        self.seconds = max(0.0, time.perf_counter() - self._t0 - self.compile_seconds)
        return self.seconds

    def __exit__(self, *exc):
        self.lap()
        return False


def signature(dispatcher, args) -> tuple:
    """The numba types the dispatcher would see for ``args`` (the overload a call would pick)."""
    return tuple(dispatcher.typeof_pyval(a) for a in args)


def is_ready(dispatcher, sig) -> bool:
    """Whether ``sig`` is compiled (or loaded) in this process already."""
    return tuple(sig) in dispatcher.overloads


def prepare(dispatcher, *args) -> float:
    """Compile or load ``dispatcher``'s overload for ``args`` now; returns the seconds it took (0 if ready,
    or when ``dispatcher`` is a plain Python function, such as a test's wrapper)."""
    if not hasattr(dispatcher, "typeof_pyval"):
        return 0.0
    sig = signature(dispatcher, args)
    if is_ready(dispatcher, sig):
        return 0.0
    t0 = time.perf_counter()
    dispatcher.compile(sig)
    return time.perf_counter() - t0


def _recorder():
    """A numba event listener that keeps 'numba:compile' events as [name, signature, seconds, depth] rows."""

    class Recorder(Listener):
        """Seconds include the nested compilations (those at a greater depth just after)."""

        def __init__(self):
            self.rows = []
            self._open = []

        def on_start(self, event):
            self._open.append((time.perf_counter(), len(self.rows)))
            d = event.data
            func = d["dispatcher"].py_func
            self.rows.append([f"{func.__module__}.{func.__qualname__}",
                              "(" + ", ".join(str(a) for a in d["args"]) + ")", 0.0, len(self._open) - 1])

        def on_end(self, event):
            t0, i = self._open.pop()
            self.rows[i][2] = time.perf_counter() - t0

    return Recorder()


@contextlib.contextmanager
def compile_events():
    """Record the compilations inside this block: yields the list of [name, signature, seconds, depth]."""
    rec = _recorder()
    event.register("numba:compile", rec)
    try:
        yield rec.rows
    finally:
        event.unregister("numba:compile", rec)
