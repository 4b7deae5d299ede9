"""The CUDA device: detection, launch shapes, memory, and counted host<->device copies.

``require_cuda()`` is the one gate of every GPU entry point: it returns
numba-cuda's ``cuda`` module when a GPU can run the kernels -- a real NVIDIA GPU
with a working driver, or numba-cuda's simulator when ``NUMBA_ENABLE_CUDASIM=1``
is set before ``numba.cuda`` is first imported -- and raises a one-line
``InputError`` otherwise. There is never a silent fallback to the CPU kernels.

Every copy between host and device goes through ``to_device`` / ``to_host``
here, which feed the instrumentation hook ``count_transfers()``: the tests use
it to check that a search costs one small device->host copy per level and no
per-vertex round trips.

Launch shapes (``Launch``) are the one place where the simulator and a real GPU
differ: the kernels are grid-stride loops, correct for every grid and for every
block size that is a multiple of 32 (up to the staging limit, see
``check_launch``), so the simulator runs them with one small block (numba-cuda
simulates each thread as a Python thread and runs blocks one after another, so
more blocks would add time and no concurrency) and a GPU with blocks of 128/256
threads and enough blocks to fill its multiprocessors. The tests also run the
GPU's shapes, with several blocks, in the simulator.
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, MemoryEstimateError

GiB = 1 << 30
STAGE = 4096            # shared-memory staging slots per block for queue appends (int64: 32 KiB)
WARP = 32
NO_GPU = ("device='cuda' needs an NVIDIA GPU with a working CUDA driver and none was found "
          "(set NUMBA_ENABLE_CUDASIM=1 to run the GPU kernels in numba-cuda's simulator)")
NO_NUMBA_CUDA = "device='cuda' needs numba-cuda: pip install 'breadth[cuda]'"
def _import_cuda():
    try:
        from numba import cuda
    except ImportError:
        raise InputError(NO_NUMBA_CUDA) from None
    return cuda


def simulated() -> bool:
    """True when numba-cuda runs kernels in its CPU simulator (``NUMBA_ENABLE_CUDASIM=1``).

    Returns:
        Whether kernels run in the simulator (slow, for tests) rather than on a GPU.

    Raises:
        InputError: numba-cuda is not installed.

    Examples:
        >>> import os
        >>> from breadth.gpu import simulated
        >>> simulated() == (os.environ.get("NUMBA_ENABLE_CUDASIM") == "1")
        True
    """
    _import_cuda()
    from numba.cuda.core import config

    return bool(config.ENABLE_CUDASIM)


def require_cuda():
    """numba-cuda's ``cuda`` module when kernels can run (a GPU or the simulator); else InputError.

    Returns:
        The ``numba.cuda`` module.

    Raises:
        InputError: numba-cuda is not installed, or there is no usable GPU and
            ``NUMBA_ENABLE_CUDASIM`` is not set (the message says which).

    Examples:
        >>> from breadth.gpu import require_cuda
        >>> require_cuda().__name__
        'numba.cuda'
    """
    cuda = _import_cuda()
    if simulated():
        return cuda
    try:
        ok = cuda.is_available()
    except Exception:  # noqa: BLE001 - a broken driver install reads as "no GPU"
        ok = False
    if not ok:
        raise InputError(NO_GPU)
    return cuda


def num_gpus() -> int:
    cuda = require_cuda()
    return max(1, len(cuda.gpus))


def select_gpu(local_rank: int) -> int:
    """Make GPU ``local_rank % num_gpus`` current for this process; returns its index."""
    cuda = require_cuda()
    index = int(local_rank) % num_gpus()
    if not simulated():
        cuda.select_device(index)
        from . import launcher          # its kept functions belong to the device current before

        launcher.forget()
    return index


def free_memory() -> float:
    """Free bytes on the current GPU (infinite in the simulator)."""
    cuda = require_cuda()
    return float(cuda.current_context().get_memory_info()[0])


def check_device_fits(what: str, needed: int, free: float | None = None) -> None:
    """Raise MemoryEstimateError before allocating when ``needed`` bytes exceed the GPU's free memory."""
    free = free_memory() if free is None else free
    if needed > 0.95 * free:
        raise MemoryEstimateError(
            f"{what} needs about {needed / GiB:.2f} GiB of GPU memory but only {free / GiB:.2f} GiB is free")


def device_name() -> str:
    if simulated():
        return "numba-cuda simulator"
    dev = require_cuda().get_current_device()
    name = dev.name
    return name.decode() if isinstance(name, bytes) else str(name)


# ---------------------------------------------------------------- launch shapes
@dataclass(frozen=True)
class Launch:
    """Threads per block of each kernel family, and the most blocks of a grid-stride launch."""

    thread_tpb: int = 128     # one thread per vertex (the LRB top-down kernel, conversions, bottom-up)
    warp_tpb: int = 128       # one warp per vertex (iBFS top-down)
    max_blocks: int = 4096

    def blocks(self, items: int, per_block: int) -> int:
        return max(1, min(self.max_blocks, -(-int(items) // per_block)))


SIMULATOR_LAUNCH = Launch(thread_tpb=32, warp_tpb=64, max_blocks=1)


def check_launch(launch: Launch) -> Launch:
    """Block sizes the kernels are written for: multiples of 32, staging never overflows."""
    for name in ("thread_tpb", "warp_tpb"):
        tpb = getattr(launch, name)
        if tpb < WARP or tpb % WARP or tpb > 1024:
            raise InputError(f"launch {name} must be a multiple of {WARP} in [{WARP}, 1024], got {tpb}")
    if 32 * launch.thread_tpb > STAGE or launch.warp_tpb > STAGE:
        raise InputError(f"launch thread_tpb must be at most {STAGE // 32} (shared staging of {STAGE} slots)")
    if launch.max_blocks < 1:
        raise InputError(f"launch max_blocks must be positive, got {launch.max_blocks}")
    return launch


def default_launch() -> Launch:
    cuda = require_cuda()
    if simulated():
        return SIMULATOR_LAUNCH
    sms = int(getattr(cuda.get_current_device(), "MULTIPROCESSOR_COUNT", 80))
    return Launch(max_blocks=32 * sms)


# ---------------------------------------------------------------- counted copies
@dataclass
class Transfers:
    """Host<->device copies seen while a ``count_transfers()`` block was open."""

    to_device: int = 0
    to_host: int = 0
    bytes_to_device: int = 0
    bytes_to_host: int = 0
    sizes_to_host: list = field(default_factory=list)


_active: list[Transfers] = []


@contextmanager
def count_transfers():
    """Count every host<->device copy made through this module inside the block.

    Yields:
        A ``Transfers`` record (copies and bytes each way) filled in as copies happen.

    Examples:
        >>> from breadth.gpu import DeviceGraph, count_transfers
        >>> with count_transfers() as t:
        ...     dg = DeviceGraph(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]))
        >>> t.to_device > 0, t.to_host
        (True, 0)
    """
    t = Transfers()
    _active.append(t)
    try:
        yield t
    finally:
        _active.remove(t)


def to_device(array):
    """Copy a host array to a new device array (counted)."""
    cuda = require_cuda()
    for t in _active:
        t.to_device += 1
        t.bytes_to_device += array.nbytes
    return cuda.to_device(array)


def upload(device_array, host) -> None:
    """Copy a host array into an existing device array (or a contiguous slice of one) (counted)."""
    for t in _active:
        t.to_device += 1
        t.bytes_to_device += host.nbytes
    device_array.copy_to_device(host)


def counted_to_host(nbytes: int) -> None:
    """Count one device->host copy of ``nbytes`` (every copy to the host calls it)."""
    for t in _active:
        t.to_host += 1
        t.bytes_to_host += nbytes
        t.sizes_to_host.append(int(nbytes))


def to_host(device_array, out=None):
    """Copy a device array (or a contiguous slice of one) to the host (counted)."""
    host = device_array.copy_to_host(out) if out is not None else device_array.copy_to_host()
    counted_to_host(host.nbytes)
    return host


def to_host_async(device_array, out, stream) -> None:
    """Queue a copy of a device array into the host array ``out`` (pinned: asynchronous) on ``stream`` (counted)."""
    device_array.copy_to_host(out, stream=stream)
    counted_to_host(out.nbytes)


def pinned(shape, dtype) -> np.ndarray:
    """A page-locked host array (copies from the device into it run at full bus speed, asynchronously)."""
    return require_cuda().pinned_array(shape, dtype=dtype)


def stream():
    """A new CUDA stream."""
    return require_cuda().stream()


def empty(shape, dtype):
    """An uninitialised device array (no copy)."""
    return require_cuda().device_array(shape, dtype=dtype)


def views_alive(a) -> bool:
    """Whether a view of the device array ``a`` (a search's parent or depth, lent to a result) may be alive.

    numba-cuda counts an allocation's live views in its memory pointer's ``refct`` (1 when
    there are none); the simulator's arrays wrap one numpy array, which its views refer to.
    True when neither can be read, so that such an array is never reused.
    """
    refct = getattr(getattr(a, "gpu_data", None), "refct", None)
    if isinstance(refct, int):
        return refct > 1
    host = getattr(a, "_ary", None) if simulated() else None
    if isinstance(host, np.ndarray):
        return sys.getrefcount(host) > 3          # a's own reference, the name host and the argument
    return True


def local_rank_from_env() -> int | None:
    """The node-local rank an MPI launcher exports (Open MPI, MPICH/Hydra, Slurm), if any."""
    for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "SLURM_LOCALID"):
        value = os.environ.get(var)
        if value is not None and value.strip().isdigit():
            return int(value)
    return None
