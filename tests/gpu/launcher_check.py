"""Run without the simulator and without a GPU by tests/gpu/test_launcher.py: ``launcher``'s kept
parameters and types of device arrays and scalars equal numba-cuda's own marshalling.

Device arrays are numba-cuda's ``DeviceNDArray`` over a stand-in allocation (no driver is
needed to type or marshal one). Exit 3 when numba-cuda cannot build them here.
"""
import ctypes
import gc
import sys

import numpy as np

try:
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    from numba.cuda.dispatcher import _Kernel
    from numba.cuda.typing.typeof import Purpose, typeof
except Exception as exc:  # noqa: BLE001 - any import trouble: this check cannot run here
    print(f"numba-cuda's internals cannot be imported: {exc}")
    sys.exit(3)

from breadth.gpu import launcher


class Allocation:
    """Device memory at a fixed address (never dereferenced: marshalling only reads the address)."""

    def __init__(self, address):
        self.device_ctypes_pointer = ctypes.c_void_p(address)
        self.handle = address


def values(params):
    return [p.value if hasattr(p, "value") else p for p in params]


def theirs(kernel, v):
    ty = typeof(v, Purpose.argument)
    out = []
    kernel._prepare_args(ty, v, 0, [], out)
    return ty, values(out)


kernel = _Kernel.__new__(_Kernel)
kernel.extensions = []
arrays = [DeviceNDArray((1000,), (8,), np.int64, gpu_data=Allocation(1 << 20)),
          DeviceNDArray((33,), (4,), np.uint32, gpu_data=Allocation(1 << 21)),
          DeviceNDArray((7, 5), (5, 1), np.uint8, gpu_data=Allocation(1 << 22)),
          DeviceNDArray((10,), (16,), np.int64, gpu_data=Allocation(1 << 23))]       # strided
for a in arrays:
    ty, params = launcher.array_params(kernel, a)
    assert (ty, values(params)) == theirs(kernel, a), (a.shape, ty, params)
    assert values(params)[4] == a.device_ctypes_pointer.value
    assert launcher.array_params(kernel, a)[1] is params           # kept
kept = len(launcher._arrays)
del a, arrays[0]
gc.collect()
assert len(launcher._arrays) == kept - 1, "an array's entry outlived it"
scalars = (3, -5, 0, True, False, 2.5, np.uint32(7), np.int64(-1), np.uint8(3), np.int32(9), np.float32(1.5),
           np.bool_(True), (1 << 63) + 5, -(1 << 63), 3)
for _ in range(2):                     # the first pass finds each type's converter, the second uses it
    for v in scalars:
        ty, params = launcher.scalar_params(kernel, v)
        assert (ty, values(params)) == theirs(kernel, v), (v, ty, params)


class Recorder:
    """Not numba-cuda's dispatcher (as tests wrap kernels): ``fast`` launches it as given."""

    def __init__(self):
        self.shapes = []

    def __getitem__(self, shape):
        self.shapes.append(shape)
        return lambda *args: args


wrapped = Recorder()
assert launcher.fast(wrapped)[3, 64](1, 2) == (1, 2) and wrapped.shapes == [(3, 64)]
fast = launcher.fast(wrapped)
fast.ready[("a signature",)] = "a function of the device current before"
launcher.forget()                          # what device.select_gpu calls
assert fast.ready == {} and fast.configs == {} and fast.stream is None
# a head copy's kept arguments: numba-cuda's host and device pointers and the bytes
head = DeviceNDArray((9,), (8,), np.int64, gpu_data=Allocation(5 << 20))
host = np.zeros(9, np.int64)
assert launcher.copy_args(head, host) == (host.ctypes.data, 5 << 20, 72)
for other in (np.zeros(8, np.int64), np.zeros(9, np.int32), np.zeros(18, np.int64)[::2]):
    try:
        launcher.copy_args(head, other)
        raise AssertionError(f"copy_args took a host array of {other.shape}, {other.dtype}, {other.strides}")
    except ValueError:
        pass
print("ok", len(arrays), "arrays and", len(scalars), "scalars marshalled as numba-cuda does; head copy arguments too")
