"""The host's work to marshal one kernel launch's arguments: numba-cuda's against ``gpu.launcher``'s.

Runs without a GPU (and without the simulator): the device arrays are numba-cuda
``DeviceNDArray`` objects over stand-in allocations, so only the marshalling is timed, not
the driver call that follows it (the device check's ``launch`` record times whole launches on
a GPU). Per launch of ``--arrays`` device arrays and ``--scalars`` integers (default: the LRB
top-down kernel's 7 and 14): numba-cuda types each argument (``typeof``) and converts it
(``_Kernel._prepare_args``); the launcher looks each array's kept parameters up and converts
each scalar by its Python type. Prints microseconds per launch (of two interleaved rounds
the better, each the median of ``--reps`` timings of ``--calls`` launches) and the ratio.

    NUMBA_ENABLE_CUDASIM=0 .venv/bin/python bench/gpu_launch_host.py [--json]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arrays", type=int, default=7, help="device array arguments a launch (default 7)")
    ap.add_argument("--scalars", type=int, default=14, help="integer arguments a launch (default 14)")
    ap.add_argument("--calls", type=int, default=2000, help="launches marshalled per timing (default 2000)")
    ap.add_argument("--reps", type=int, default=16, help="timings; the median is reported (default 16)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = ap.parse_args(argv)
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        print("gpu_launch_host: run it without NUMBA_ENABLE_CUDASIM=1 (the simulator has its own arrays)",
              file=sys.stderr)
        return 2
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    from numba.cuda.dispatcher import _Kernel
    from numba.cuda.typing.typeof import Purpose, typeof

    from breadth.gpu import launcher

    class Allocation:
        def __init__(self, address):
            self.device_ctypes_pointer = ctypes.c_void_p(address)

    kernel = _Kernel.__new__(_Kernel)
    kernel.extensions = []
    arrays = [DeviceNDArray((1 << 20,), (8,), np.int64, gpu_data=Allocation((i + 1) << 24)) for i in range(args.arrays)]
    call = arrays + list(range(args.scalars))

    def numba_way():
        params = []
        for v in call:
            kernel._prepare_args(typeof(v, Purpose.argument), v, 0, [], params)
        return params

    def launcher_way():
        params = []
        for v in call:
            params.extend((launcher.array_params(kernel, v) if hasattr(v, "__cuda_memory__")
                           else launcher.scalar_params(kernel, v))[1])
        return params

    def timed(fn):
        out = []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            for _ in range(args.calls):
                fn()
            out.append(1e6 * (time.perf_counter() - t0) / args.calls)
        return statistics.median(out)

    assert [getattr(p, "value", p) for p in numba_way()] == [getattr(p, "value", p) for p in launcher_way()]
    numba_us, ours_us = [], []
    for _ in range(2):                       # interleaved, twice
        numba_us.append(timed(numba_way))
        ours_us.append(timed(launcher_way))
    row = {"arrays": args.arrays, "scalars": args.scalars, "numba_cuda_us": round(min(numba_us), 2),
           "launcher_us": round(min(ours_us), 2), "ratio": round(min(numba_us) / min(ours_us), 2)}
    if args.json:
        print(json.dumps(row))
    else:
        print("| arrays | scalars | numba-cuda us | launcher us | numba-cuda / launcher |")
        print("|---|---|---|---|---|")
        print(f"| {row['arrays']} | {row['scalars']} | {row['numba_cuda_us']} | {row['launcher_us']} | {row['ratio']}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
