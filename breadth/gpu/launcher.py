"""Kernel launches whose arguments breadth marshals once, not numba-cuda on every launch.

numba-cuda types every argument of every launch and turns each device array into its
kernel parameters (meminfo, parent, size, itemsize, pointer, shape and strides) again
each time; that host work grows with the arguments, and a search level's one or
two launches of 7-11 device arrays spend more of it than a small level's kernels take
(the device check's ``launch`` record measures both). ``fast(kernel)[blocks, tpb](*args)``
launches the same compiled kernel with the same parameters:

- a device array's type and parameters are numba-cuda's own (``_prepare_args``),
  computed on its first launch and kept while the array lives (a weak reference);
- a scalar's type is looked up by its Python type (an ``int`` as int64, as numba types
  one that fits) and converted by numba-cuda's rule for that type;
- the compiled kernel is the dispatcher's overload for those types; a signature not
  compiled yet, and its first launch, go through numba-cuda (which compiles or loads
  it, and whose parameters are then compared with the kept ones).

A level's one small copy to the host (its counter row's head, ``HeadCopy``) is made the same
way: numba-cuda's own driver call with the pointers it computes, found on the first copy and
kept, without its per-copy checks (a context, the arrays' compatibility, a squeezed view).

The simulator, a kernel with argument extensions, a numba-cuda without these internals,
and every kernel when ``BREADTH_GPU_LAUNCH=numba`` is set launch through numba-cuda;
``path()`` says which path launches, and ``numba_launched()`` names the kernels that
``fast`` found it must launch through numba-cuda.
"""
from __future__ import annotations

import contextlib
import functools
import os
import weakref

import numpy as np

from . import device

__all__ = ["fast", "path", "numba_launched", "through_numba", "array_params", "scalar_params", "HeadCopy",
           "copy_args"]

_state = {"path": None}       # "fast" or "numba (why)"; decided on the first launch
_arrays: dict = {}            # id(array) -> (weakref, numba type, parameters)


@functools.cache
def _internals():
    """numba-cuda's launch pieces this module uses, or raise what is missing."""
    from numba.cuda import dispatcher as nd
    from numba.cuda.cudadrv import driver
    from numba.cuda.typing.typeof import Purpose, typeof

    return nd.launch, nd.LaunchConfig, nd.CUDA_CORE_GE_1_0, driver._to_core_stream, typeof, Purpose


def path() -> str:
    """How kernels launch in this process: "fast", or "numba (the reason)"."""
    if _state["path"] is None:
        if device.simulated():
            _state["path"] = "numba (the simulator)"
        elif os.environ.get("BREADTH_GPU_LAUNCH", "fast") == "numba":
            _state["path"] = "numba (BREADTH_GPU_LAUNCH=numba)"
        else:
            try:
                _internals()
                _state["path"] = "fast"
            except (ImportError, AttributeError) as exc:
                _state["path"] = f"numba (numba-cuda's launch internals differ: {exc})"
    return _state["path"]


@contextlib.contextmanager
def through_numba():
    """Inside the block every kernel launches through numba-cuda (to time the two paths side by side)."""
    before = path()
    _state["path"] = "numba (launcher.through_numba)"
    try:
        yield
    finally:
        _state["path"] = before


def array_params(kernel, a) -> tuple:
    """(numba type, kernel parameters) of the device array ``a``, kept while ``a`` lives."""
    key = id(a)
    got = _arrays.get(key)
    if got is not None and got[0]() is a:
        return got[1], got[2]
    typeof, purpose = _internals()[4:6]
    ty = typeof(a, purpose.argument)
    params: list = []
    kernel._prepare_args(ty, a, 0, [], params)
    _arrays[key] = (weakref.ref(a, lambda _, k=key: _arrays.pop(k, None)), ty, params)
    return ty, params


_SCALARS: dict = {}           # Python type -> (numba type, converter to its one kernel parameter)


def scalar_params(kernel, v) -> tuple:
    """(numba type, kernel parameters) of a scalar argument, typed as numba-cuda types it and
    converted as its ``_prepare_args`` converts that type (the converter found once per type)."""
    t = type(v)
    typed_by_type = t is not int or -(1 << 63) <= v < (1 << 63)      # an int past int64 is typed by value
    got = _SCALARS.get(t)
    if got is not None and typed_by_type:
        return got[0], [got[1](v)]
    typeof, purpose = _internals()[4:6]
    ty = typeof(v, purpose.argument)
    params: list = []
    kernel._prepare_args(ty, v, 0, [], params)
    if typed_by_type and (t in (bool, float, int) or issubclass(t, np.generic)) and len(params) == 1:
        convert = type(params[0]) if hasattr(params[0], "value") else (lambda x: x)
        if _value(convert(v)) == _value(params[0]):
            _SCALARS[t] = (ty, convert)
    return ty, params


class _Fast:
    """``fast(kernel)``: indexed by (blocks, threads) like the kernel, then called with its arguments."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        self.ready: dict = {}        # signature -> the compiled kernel's function, once checked
        self.configs: dict = {}
        self.stream = None
        # through numba-cuda: a kernel with argument extensions, or what is not numba-cuda's
        # dispatcher at all (a wrapper that records launches, say) and is launched as given
        self.numba = (not isinstance(getattr(dispatcher, "overloads", None), dict)
                      or bool(getattr(dispatcher, "targetoptions", {}).get("extensions")))

    def __getitem__(self, shape):
        blocks, threads = shape
        if self.numba or path() != "fast":
            return self.dispatcher[blocks, threads]
        return lambda *args: self._launch(int(blocks), int(threads), args)

    def _launch(self, blocks, threads, args):
        overloads = self.dispatcher.overloads
        some = next(iter(overloads.values()), None)
        if some is None:                        # nothing compiled yet: numba-cuda compiles it
            self.dispatcher[blocks, threads](*args)
            return
        types, params = [], []
        for a in args:
            if isinstance(a, np.ndarray):       # a host array: numba-cuda copies it there and back
                self.dispatcher[blocks, threads](*args)
                return
            ty, p = array_params(some, a) if hasattr(a, "__cuda_memory__") else scalar_params(some, a)
            types.append(ty)
            params.extend(p)
        sig = tuple(types)
        function = self.ready.get(sig)
        if function is None:
            self.dispatcher[blocks, threads](*args)
            self._check(sig, args, params)
            return
        config = self.configs.get((blocks, threads))
        if config is None:
            config_type, ge_1_0, to_core_stream = _internals()[1:4]
            shape = {"grid": (blocks, 1, 1), "block": (threads, 1, 1), "shmem_size": 0}
            shape["is_cooperative" if ge_1_0 else "cooperative_launch"] = False
            config = self.configs[blocks, threads] = config_type(**shape)
            self.stream = self.stream or to_core_stream(0)
        _internals()[0](self.stream, config, function, *params)

    def _check(self, sig, args, params):
        """After numba-cuda launched ``args``: keep the kernel for the fast path when numba-cuda
        compiled it for the same types and makes the same parameters of them; else this
        kernel launches through numba-cuda from now on (a debug or cooperative kernel too)."""
        kernel = self.dispatcher.overloads.get(sig)
        if kernel is None or kernel.debug or kernel.cooperative:
            self._to_numba("numba-cuda launched an overload of other types" if kernel is None
                           else "a debug or cooperative kernel")
            return
        theirs: list = []
        for ty, a in zip(sig, args):
            kernel._prepare_args(ty, a, 0, [], theirs)
        if len(theirs) == len(params) and all(_value(x) == _value(y) for x, y in zip(theirs, params)):
            self.ready[sig] = kernel._codelibrary.get_cufunc().kernel
        else:
            self._to_numba("its parameters differ from numba-cuda's")

    def _to_numba(self, why: str) -> None:
        self.numba = True
        _NUMBA[getattr(self.dispatcher, "__name__", repr(self.dispatcher))] = why


def _value(x):
    return x.value if hasattr(x, "value") else x


_FAST: dict = {}
_NUMBA: dict = {}             # kernel name -> why ``fast`` launches it through numba-cuda


def forget() -> None:
    """Drop every kept compiled function and stream (``device.select_gpu`` calls it: they belong
    to the device that was current when they were found)."""
    for launcher in _FAST.values():
        launcher.ready.clear()
        launcher.configs.clear()
        launcher.stream = None


def numba_launched() -> dict:
    """The kernels that ``fast`` found it must launch through numba-cuda, each with the reason."""
    return dict(_NUMBA)


def fast(kernel) -> _Fast:
    """The launcher of a ``cuda.jit`` kernel (one per kernel): ``fast(k)[blocks, tpb](*args)``."""
    got = _FAST.get(id(kernel))
    if got is None or got.dispatcher is not kernel:
        got = _FAST[id(kernel)] = _Fast(kernel)
    return got


def copy_args(view, host) -> tuple:
    """The arguments of numba-cuda's synchronous device->host copy of the device array ``view`` into
    the host array ``host`` (host pointer, device pointer, bytes), as its ``device_to_host`` makes
    them; ValueError unless both are contiguous, of one dtype and size."""
    from numba.cuda.cudadrv import driver

    if (view.dtype != host.dtype or view.size != host.size or int(view.alloc_size) != host.nbytes
            or not (view.is_c_contiguous() and host.flags.c_contiguous)):
        raise ValueError("a head copy needs a contiguous device view and host array of one dtype and size")
    return driver.host_pointer(host), driver.device_pointer(view), int(view.alloc_size)


class HeadCopy:
    """Called, copies the device view ``view`` into the (pinned) host array ``host``, synchronously
    and counted, as ``device.to_host(view, host)`` does, and returns ``host``. After its first copy,
    on the launcher's fast path, the copy is numba-cuda's driver call (``cuMemcpyDtoH``) with the
    kept ``copy_args``; should that call be missing or fail where numba-cuda's copy does not (other
    arguments, no context on this thread), every later copy goes through numba-cuda
    (``numba_launched()`` says why)."""

    def __init__(self, view, host):
        self.view, self.host = view, host
        self.direct = None          # (driver function, its arguments); False: through numba-cuda for good

    def __call__(self) -> np.ndarray:
        if self.direct and path() == "fast":
            fn, args = self.direct
            try:
                fn(*args)
            except Exception as exc:  # noqa: BLE001 - numba-cuda copies (and raises what is really wrong)
                out = device.to_host(self.view, self.host)
                self._to_numba(f"{type(exc).__name__}: {exc}")
                return out
            device.counted_to_host(self.host.nbytes)
            return self.host
        out = device.to_host(self.view, self.host)
        if self.direct is None and path() == "fast":
            try:
                from numba.cuda.cudadrv import driver

                self.direct = (driver.driver.cuMemcpyDtoH, copy_args(self.view, self.host))
            except (ImportError, AttributeError, ValueError) as exc:
                self._to_numba(exc)
        return out

    def _to_numba(self, why) -> None:
        self.direct = False
        _NUMBA["head copy"] = f"numba-cuda copies it: {why}"
