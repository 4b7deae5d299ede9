"""GPU BFS with numba-cuda: ``breadth.bfs(..., device="cuda")`` and friends (optional extra ``breadth[cuda]``).

Modules: ``device`` (detection, launch shapes, counted copies), ``graph``
(``DeviceGraph``), ``primitives`` (level counters, block-aggregated appends),
``lrb`` (top-down with Logarithmic Radix Binning), ``bottom_up`` (bottom-up and
frontier conversions), ``search`` (the host loop of one search), ``ibfs``
(concurrent BFS with bitwise status arrays), ``dist_kernels`` / ``dist_butterfly``
(one MPI rank per GPU: the 1D ButterFly search's local steps on the GPU). Importing this package does not
import numba-cuda; the names below load it on first use, after
``device.require_cuda()`` has checked that kernels can run.
"""
import numpy as _np

# numba-cuda up to 0.30 registers an overload for ``np.row_stack`` when it first compiles
# a kernel; NumPy 2.5 removed that alias of ``np.vstack``, so restore it under its old name.
if not hasattr(_np, "row_stack"):
    _np.row_stack = _np.vstack

from .device import count_transfers, require_cuda, simulated  # noqa: E402

__all__ = ["DeviceGraph", "bfs", "count_transfers", "require_cuda", "simulated"]


def __getattr__(name):
    if name == "DeviceGraph":
        require_cuda()
        from .graph import DeviceGraph

        return DeviceGraph
    if name == "bfs":
        require_cuda()
        from .api import bfs

        return bfs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
