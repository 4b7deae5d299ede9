"""Memory estimates made before allocating, so that too-large jobs are refused up front."""
import os

import numpy as np

from ..errors import InputError, MemoryEstimateError

GiB = 1 << 30


def available_bytes() -> int:
    """Memory this process can still use: MemAvailable, capped by a cgroup limit if set."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError):
            avail = 1 << 62
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                raw = f.read().strip()
            if raw != "max":
                avail = min(avail, int(raw))
        except (OSError, ValueError):
            pass
    return avail


def index_itemsize(num_vertices: int) -> int:
    """Bytes per stored neighbour id: int32 while every id fits, int64 beyond 2^31 - 1."""
    return 4 if num_vertices <= 2**31 - 1 else 8


def choose_index_dtype(num_vertices: int, index_dtype=None):
    """The neighbour-id dtype of a CSR: ``index_dtype`` (int32 or int64) if given, else the narrowest."""
    if index_dtype is None:
        return np.int32 if index_itemsize(num_vertices) == 4 else np.int64
    index_dtype = np.dtype(index_dtype)
    if index_dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise InputError(f"index_dtype must be int32 or int64, got {index_dtype}")
    if index_dtype == np.int32 and num_vertices > 2**31 - 1:
        raise InputError(f"{num_vertices} vertices do not fit int32 neighbour ids")
    return index_dtype.type


def csr_build_bytes(num_vertices: int, num_tuples: int, directed: bool) -> int:
    """Peak bytes of building a CSR from ``num_tuples`` edges (edge arrays included)."""
    isz = index_itemsize(num_vertices)
    edges = 16 * num_tuples                       # src + dst int64
    slots = num_tuples * (1 if directed else 2)   # adjacency entries before dedupe
    per_pass = 8 * (num_vertices + 1) * 3 + slots * isz * 2   # counts/offsets + scratch + final
    return edges + per_pass * (2 if directed else 1)


def bfs_bytes(num_vertices: int) -> int:
    """Working memory of one BFS: parent, depth, two queues, two bitmaps."""
    return num_vertices * (8 + 8 + 8 + 8) + 2 * (num_vertices // 8 + 8)


def check_fits(what: str, needed: int, available: int | None = None) -> None:
    """Raise MemoryEstimateError if ``needed`` bytes exceed what is available."""
    available = available_bytes() if available is None else available
    if needed > available:
        raise MemoryEstimateError(
            f"{what} needs about {needed / GiB:.1f} GiB but only {available / GiB:.1f} GiB is available"
        )
