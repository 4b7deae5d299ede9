"""How idle OpenMP worker threads wait: a short spin, set before numba's OpenMP pool starts.

numba's ``omp`` threading layer runs on GNU OpenMP (libgomp), whose idle workers spin
for a long time after every parallel region before they sleep. On a quiet machine that
is free; on a shared one the spinning worker takes CPU time from the thread that does
the work -- and a deep, thin graph (a grid, a road network) runs thousands of small
levels serially in the calling thread (``kernels.direction_optimizing``), so next to one
busy process its search slows down several times over (docs/performance.md, "Busy
machines"). A spin of ``SPIN_COUNT`` rounds covers the gaps between
the parallel regions of one level and then lets the worker sleep.

``import breadth`` applies it when neither ``OMP_WAIT_POLICY`` nor ``GOMP_SPINCOUNT`` is
set (either one set by the user wins); libgomp reads them once, when it is loaded, so it
works when breadth is imported before anything has run OpenMP code in the process.
``APPLIED`` holds what was set (bench/gap_suite.py keeps it away from GAP's environment).

``host_cores`` is the number of cores this process may run threads on, for every caller that
sizes threads or helper processes by it.
"""
from __future__ import annotations

import os

SPIN_COUNT = "10000"


def apply_defaults(environ=os.environ) -> dict:
    """Set ``GOMP_SPINCOUNT`` in ``environ`` unless the user chose a waiting policy; returns what was set."""
    if "OMP_WAIT_POLICY" in environ or "GOMP_SPINCOUNT" in environ:
        return {}
    environ["GOMP_SPINCOUNT"] = SPIN_COUNT
    return {"GOMP_SPINCOUNT": SPIN_COUNT}


APPLIED = apply_defaults()


HOST_CORES_ENV = "BREADTH_HOST_CORES"


def host_cores() -> int:
    """Cores this process may run on: its CPU affinity, at most ``$BREADTH_HOST_CORES`` when that
    is a positive integer (the namespace cluster sets it on each host: its hosts share this
    machine's cores, which every one of them sees)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return granted(cores)


def granted(cores: int) -> int:
    """``cores``, at most ``$BREADTH_HOST_CORES`` when that is a positive integer."""
    given = os.environ.get(HOST_CORES_ENV, "")
    if given.isdigit() and int(given) > 0:
        cores = min(cores, int(given))
    return cores
