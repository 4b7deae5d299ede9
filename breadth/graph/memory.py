"""Memory estimates made before allocating, so that too-large jobs are refused up front.

``$BREADTH_AVAILABLE_MEMORY`` caps what ``available_bytes`` reports: a size (``512M``,
``2G``, bytes without a suffix) for every host, or ``HOST:SIZE`` entries separated by
commas for some hosts only (the host's name as ``socket.gethostname`` gives it). It lets
tests and rehearsals see how a job is refused on a host without that memory.
"""
import os
import socket

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
    cap = memory_cap()
    return avail if cap is None else min(avail, cap)


MEMORY_ENV = "BREADTH_AVAILABLE_MEMORY"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory_cap(text: str | None = None, host: str | None = None) -> int | None:
    """The cap ``$BREADTH_AVAILABLE_MEMORY`` sets on this host, in bytes (None: no cap)."""
    text = os.environ.get(MEMORY_ENV, "") if text is None else text
    if not text.strip():
        return None
    host = socket.gethostname() if host is None else host
    for entry in text.split(","):
        name, sep, size = entry.strip().rpartition(":")
        if sep and name != host:
            continue
        size = size.strip().upper().removesuffix("B").removesuffix("I")
        unit = size[-1:] if size[-1:] in _UNITS else ""
        try:
            return int(float(size[:len(size) - len(unit)]) * _UNITS[unit])
        except ValueError:
            raise InputError(f"${MEMORY_ENV}: {entry.strip()!r} is not a size like 512M or HOST:2G") from None
    return None


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


def radix_build_bytes(num_vertices: int, slots: int, itemsize: int, scratch_keys: int, key_size: int = 8) -> int:
    """Peak bytes of one radix CSR build (``graph/radix.py``) of ``slots`` arcs: the keys (32 or
    64 bits), the neighbour array, indptr and degrees, and ``scratch_keys`` keys of sort scratch."""
    return key_size * (slots + scratch_keys) + itemsize * slots + 16 * (num_vertices + 1)


def csr_build_bytes(num_vertices: int, num_tuples: int, directed: bool) -> int:
    """Peak bytes of building a CSR from ``num_tuples`` edges (edge arrays included).

    The sort scratch is what ``radix_csr`` gives each thread when no bucket is far above the
    average (at most 2^19 keys or an eighth of all keys per thread, capped by the key count);
    a hub's oversized bucket needs more, which ``radix_csr`` checks again with the exact
    bucket sizes before allocating. A directed build keeps the out-CSR while it builds the in-CSR.
    """
    isz = index_itemsize(num_vertices)
    slots = num_tuples * (1 if directed else 2)   # arcs before dedupe
    scratch = min(slots, (os.cpu_count() or 1) << 19) + slots // 8
    build = radix_build_bytes(num_vertices, slots, isz, scratch)
    kept = isz * num_tuples + 8 * (num_vertices + 1) if directed else 0
    return 16 * num_tuples + build + kept


def stream_build_bytes(num_vertices: int, num_tuples: int, directed: bool, itemsize: int | None = None,
                       chunk: int = 1 << 22) -> int:
    """Peak bytes of the streaming CSR build (``graph/stream.py``) of ``num_tuples`` tuples that are
    never held: ``indices`` before deduplication (one entry per arc), indptr, raw degrees and unique
    counts (int64 per vertex), the chunk buffers (two int64 tuples and two arcs per tuple) and the
    hub sort's scratch (at most the larger of 2^24 entries and a sixteenth of the arcs). A directed
    build keeps the out-CSR while it builds the in-CSR."""
    isz = index_itemsize(num_vertices) if itemsize is None else itemsize
    slots = num_tuples * (1 if directed else 2)
    chunk = min(chunk, num_tuples)
    buffers = 16 * chunk + 2 * isz * chunk * (1 if directed else 2)
    scratch = isz * min(slots, max(1 << 24, slots // 16))
    build = isz * slots + 24 * (num_vertices + 1) + buffers + scratch
    kept = isz * num_tuples + 8 * (num_vertices + 1) if directed else 0
    return build + kept


def graph_bytes(num_vertices: int, num_arcs: int, directed: bool = False) -> int:
    """Bytes of a built graph: int64 indptr and the neighbour ids (twice when directed: in-CSR)."""
    one = 8 * (num_vertices + 1) + index_itemsize(num_vertices) * num_arcs
    return 2 * one if directed else one


def bfs_bytes(num_vertices: int) -> int:
    """Working memory of one BFS (``search.BFSWorkspace``): int64 parent, depth, two queues and
    edge offsets, one claim byte per vertex (thin-level runs), three bitmaps."""
    return num_vertices * (5 * 8 + 1) + 3 * (num_vertices // 8 + 8)


def check_fits(what: str, needed: int, available: int | None = None) -> None:
    """Raise MemoryEstimateError if ``needed`` bytes exceed what is available."""
    available = available_bytes() if available is None else available
    if needed > available:
        raise MemoryEstimateError(
            f"{what} needs about {needed / GiB:.1f} GiB but only {available / GiB:.1f} GiB is available"
        )
