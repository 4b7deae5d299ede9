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

``prepare`` can hand one large part of a compilation to a second process (``aside``): with an
empty cache and a second core, that process compiles the part into the shared on-disk cache
while this one compiles the rest, and this one loads the part when its own compilation reaches
it (numba compiles a kernel's callees one after another, in one thread). ``njit`` is numba's,
with breadth's defaults for every kernel.

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
import importlib
import logging
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time

import numba
from numba.core import event
from numba.core.event import Listener

from .omp_env import host_cores

log = logging.getLogger(__name__)

ESTIMATE = 30.0       # rough seconds a first call compiles from scratch, for the note
ASIDE_WAIT = 600.0    # seconds a compilation waits for the second process's part before compiling it itself

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


def njit(*args, **options):
    """numba's ``njit`` as breadth compiles its kernels: without the C-callable wrapper
    (``no_cfunc_wrapper``), which no caller uses and which would add a module to build and
    optimise to each kernel's first compilation."""
    options.setdefault("no_cfunc_wrapper", True)
    return numba.njit(*args, **options)


def prepare(dispatcher, *args, aside=None) -> float:
    """Compile or load ``dispatcher``'s overload for ``args`` now; returns the seconds it took (0 if ready,
    or when ``dispatcher`` is a plain Python function, such as a test's wrapper).

    ``aside``: a function of no arguments, called only when ``dispatcher`` must compile, that
    returns (kernel, its arguments, meanwhile): a kernel that ``dispatcher`` calls with arguments
    of those types, and (kernel, arguments) pairs that ``dispatcher`` reaches after it. When
    neither is in the on-disk cache, a second core is free and MPI is not running in this process,
    a second process compiles that kernel meanwhile (module docstring); if this process must wait
    for it, it compiles the ``meanwhile`` pairs while it waits."""
    if not hasattr(dispatcher, "typeof_pyval"):
        return 0.0
    sig = signature(dispatcher, args)
    if is_ready(dispatcher, sig):
        return 0.0
    t0 = time.perf_counter()
    helper = None
    if aside is not None and _may_go_aside(dispatcher, sig):
        kernel, kernel_args, meanwhile = aside()
        helper = _Aside.start(kernel, signature(kernel, kernel_args), [(k, signature(k, a)) for k, a in meanwhile])
    try:
        dispatcher.compile(sig)
    finally:
        if helper is not None:
            helper.close()
    return time.perf_counter() - t0


def in_disk_cache(dispatcher, sig) -> bool:
    """Whether numba's on-disk cache holds ``dispatcher``'s overload for ``sig`` (loading it takes
    milliseconds). A dispatcher without a cache, or a numba whose cache is laid out differently,
    counts as cached: nothing is then compiled aside."""
    cache = getattr(dispatcher, "_cache", None)
    try:
        key = cache._index_key(tuple(sig), dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:       # noqa: BLE001 -- numba's private cache API: any change means "don't go aside"
        return True


def _may_go_aside(dispatcher, sig) -> bool:
    if host_cores() < 2:
        return False
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        return False        # a rank does not fork compilers: its neighbours compile on the other cores
    return not in_disk_cache(dispatcher, sig)


class _Aside:
    """A second Python process compiling one overload into the shared on-disk cache. Until it is
    done, this process's dispatcher of that kernel waits for it when asked to compile, and then
    loads what it wrote (or, if it failed, compiles the overload itself)."""

    @classmethod
    def start(cls, dispatcher, sig, meanwhile=()):
        if is_ready(dispatcher, sig) or in_disk_cache(dispatcher, sig):
            return None
        try:
            return cls(dispatcher, sig, meanwhile)
        except (OSError, ValueError) as exc:      # no interpreter to start (embedded Python): compile here
            log.debug("no second process to compile %s in: %s", dispatcher.py_func.__qualname__, exc)
            return None

    def __init__(self, dispatcher, sig, meanwhile):
        self.dispatcher = dispatcher
        self.meanwhile = meanwhile
        func = dispatcher.py_func
        self.child = ChildPython("from breadth.jit import _compile_piped; _compile_piped()",
                                 stdin=pickle.dumps((func.__module__, func.__qualname__, tuple(sig))))
        dispatcher.compile = self._compile      # an instance attribute: numba's typing calls dispatcher.compile

    def _compile(self, sig):
        for kernel, their_sig in self.meanwhile:
            if self.child.proc.poll() is None and not is_ready(kernel, their_sig):
                try:
                    kernel.compile(their_sig)
                except numba.core.errors.NumbaError as exc:     # only time is at stake: the caller compiles its own
                    log.debug("compiling %s ahead failed: %s", kernel.py_func.__qualname__, exc)
        self._finish(wait=True)
        return self.dispatcher.compile(sig)

    def _finish(self, wait):
        if "compile" not in vars(self.dispatcher):
            return
        del self.dispatcher.compile
        try:
            self.child.proc.wait(timeout=ASIDE_WAIT if wait else 0)
        except subprocess.TimeoutExpired:
            self.child.proc.kill()
            self.child.proc.wait()
        if self.child.proc.returncode:
            log.debug("compiling %s in a second process failed (exit %s): %s", self.dispatcher.py_func.__qualname__,
                      self.child.proc.returncode, self.child.errors())

    def close(self):
        """End it: a second process still compiling is stopped (this process's compilation ended first)."""
        self._finish(wait=False)
        self.child.close()


class ChildPython:
    """A Python process running ``code`` (with ``args`` as its argv) on this copy of breadth and its
    numba cache (``child_env``): ``stdin`` is written to it, its stdout is piped when ``stdout``
    is True, its stderr kept in a temporary file for ``errors``. ``close`` stops it if it still runs."""

    def __init__(self, code, args=(), stdin=b"", stdout=False):
        self.stderr = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE if stdout else subprocess.DEVNULL,
                                         stderr=self.stderr, env=child_env())
        except (OSError, ValueError):
            self.stderr.close()
            raise
        try:
            with self.proc.stdin:
                self.proc.stdin.write(stdin)
        except OSError:
            self.close()
            raise

    def errors(self, limit=3000) -> str:
        """The end of what it wrote on stderr."""
        self.stderr.seek(0)
        return self.stderr.read()[-limit:].decode(errors="replace").strip()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.stderr.close()


def child_env() -> dict:
    """The environment for a Python process that compiles into this one's cache: this process's
    environment, with numba's cache folder and this copy of breadth first on the path."""
    env = dict(os.environ)
    if numba.config.CACHE_DIR:
        env["NUMBA_CACHE_DIR"] = numba.config.CACHE_DIR
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _compile_piped() -> None:
    """The second process of ``prepare(aside=...)``: compile the (module, qualname, signature) read from stdin."""
    module, name, sig = pickle.loads(sys.stdin.buffer.read())
    getattr(importlib.import_module(module), name).compile(sig)


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
