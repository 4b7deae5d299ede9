"""Device-side building blocks shared by the GPU kernels: level counters and block-aggregated appends.

Level counters. A search keeps two rows of ``ROW`` int64 on the device. The
kernels of level L add what they find about the *next* frontier into row
``nxt`` (its size, its out-edge sum = the policy's scout count, the edges they
examined, and its LRB histogram: how many of its vertices fall in each bin
``degree_bin(out-degree)``), and block 0 of each of them zeroes row ``cur``,
which level L + 1 will fill. The host copies the head of row ``nxt`` (``HEAD``
int64) once per level -- the only device->host copy of a level -- and swaps the
rows. Row ``cur`` also holds the cursors that the LRB scatter and the
bitmap->queue conversion advance.

Appends. A thread never appends to a global queue directly: it claims a slot
in its block's shared-memory staging buffer with a shared atomic add, and after
the block's round (``flush``) one thread reserves the block's whole range of
the global queue with a single global atomic add, then the block copies the
staged ids out with coalesced stores. This is warp aggregation widened to the
block: one global atomic per block-round instead of one per new vertex (or per
warp). The warp-vote form (``ballot_sync``/``popc``/``activemask``) is not used
because numba-cuda's simulator implements none of those intrinsics, so that
code could not be tested without a GPU; shared-memory atomics are native on
every GPU numba-cuda supports. Callers bound each round to at most ``STAGE``
stages (see ``device.check_launch``), so the staging buffer never overflows.

Every function here must be reached by all threads of a block alike when it
contains ``syncthreads`` (``begin``, ``staging``, ``flush``, ``make_room``, ``warp_vertex``, ``flush_counts``).

Tests: tests/gpu (numba-cuda's simulator, which runs a block's threads concurrently but
blocks one after another, so inter-block races need a real GPU: bench/gpu_check.py) and
tests/gpu/ptx_check.py (PTX for sm_80/sm_90).
"""
import numpy as np
from numba import cuda, int64

from .device import STAGE

COUNT, SCOUT, EXAMINED, CURSOR = 0, 1, 2, 3
BIN0 = 4
NBINS = 64                      # degree_bin(d) < 64 for every int64 degree
BCUR0 = BIN0 + NBINS            # per-bin cursors of the LRB scatter
HEAD = BIN0 + NBINS             # the part of a row the host copies each level
ROW = BCUR0 + NBINS

THREAD_BINS = (1, 6)            # out-degree 1..31: one thread per vertex
WARP_BINS = (6, 11)             # 32..1023: one warp per vertex
BLOCK_BINS = (11, NBINS)        # >= 1024: one block per vertex (several for a few large hubs: lrb)


def degree_bins(degrees) -> np.ndarray:
    """``degree_bin`` of each degree, on the host: its bit length (np.frexp's exponent; exact below
    2**53, so for any degree)."""
    return np.frexp(np.asarray(degrees, dtype=np.int64).astype(np.float64))[1].astype(np.int64)


def bin_counts(bins) -> np.ndarray:
    """The LRB histogram (``NBINS`` int64) of per-vertex bins (``degree_bins``)."""
    return np.bincount(np.ravel(bins), minlength=NBINS)[:NBINS].astype(np.int64)


def host_bins(degrees) -> np.ndarray:
    """The LRB histogram of a set of degrees (what the device tallies), on the host."""
    return bin_counts(degree_bins(degrees))


@cuda.jit(device=True)
def degree_bin(d):
    """LRB bin of degree d: 0 for d == 0, else floor(log2 d) + 1 (so a bin spans a factor 2)."""
    b = 0
    while d > 0:
        d >>= 1
        b += 1
    return b


@cuda.jit(device=True)
def clear_tallies(s_cnt, ncnt, counters, clear, nclear):
    """Zero the block's shared tallies ``s_cnt[:ncnt]``; block 0 zeroes ``counters[clear:clear + nclear]``
    (none when ``clear`` < 0). The caller synchronises the block before the tallies are used."""
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    if clear >= 0 and cuda.blockIdx.x == 0:
        for f in range(tid, nclear, bdim):
            counters[clear + f] = 0
    for f in range(tid, ncnt, bdim):
        s_cnt[f] = 0


@cuda.jit(device=True)
def begin(s_cnt, s_n, counters, clear):
    """Kernel prologue: zero the block's shared tallies and staging count; block 0 zeroes row ``clear``."""
    clear_tallies(s_cnt, HEAD, counters, clear, ROW)
    if cuda.threadIdx.x == 0:
        s_n[0] = 0
    cuda.syncthreads()


@cuda.jit(device=True)
def staging(counters, clear):
    """The shared memory of an appending kernel, ready (``begin``): the block's staging buffer
    ``s_buf``, its count ``s_n`` and global base ``s_base``, and its tallies ``s_cnt``."""
    s_buf = cuda.shared.array(STAGE, int64)
    s_n = cuda.shared.array(1, int64)
    s_base = cuda.shared.array(1, int64)
    s_cnt = cuda.shared.array(BCUR0, int64)
    begin(s_cnt, s_n, counters, clear)
    return s_buf, s_n, s_base, s_cnt


@cuda.jit(device=True)
def stage(s_buf, s_n, v):
    """Stage vertex v for the block's next flush."""
    p = cuda.atomic.add(s_n, 0, 1)
    s_buf[p] = v


@cuda.jit(device=True)
def flush(s_buf, s_n, s_base, queue, counters, tail):
    """Append the staged vertices to ``queue`` at ``counters[tail]`` (one global atomic per block)."""
    cuda.syncthreads()
    tid = cuda.threadIdx.x
    if tid == 0:
        s_base[0] = 0
        if s_n[0] > 0:
            s_base[0] = cuda.atomic.add(counters, tail, s_n[0])
    cuda.syncthreads()
    for k in range(tid, s_n[0], cuda.blockDim.x):
        queue[s_base[0] + k] = s_buf[k]
    cuda.syncthreads()
    if tid == 0:
        s_n[0] = 0
    cuda.syncthreads()


@cuda.jit(device=True)
def make_room(pending, need, s_buf, s_n, s_base, queue, counters, tail):
    """Before a round in which each thread may stage up to ``need`` vertices: ``flush`` first when
    they might not fit in ``STAGE``. ``pending`` (the same on every thread) is the most any thread
    has staged since the last flush; returns it for after the round."""
    if pending + need > STAGE // cuda.blockDim.x:
        flush(s_buf, s_n, s_base, queue, counters, tail)
        pending = 0
    return pending + need


@cuda.jit(device=True)
def warp_vertex(queue, start, i, count, indptr, lane, s_max):
    """A round of the one-warp-per-vertex kernels: the warp's slot i (< ``count``: vertex
    ``queue[start + i]``) as (vertex, its first edge, its out-degree), all 0 past the end, and
    the block's rounds of 32 edges (its warps' largest out-degree over 32, the same on every
    thread; ``s_max``: one shared int64)."""
    if cuda.threadIdx.x == 0:
        s_max[0] = 0
    cuda.syncthreads()
    u = int64(0)
    first = int64(0)
    d = int64(0)
    if i < count:
        u = queue[start + i]
        first = indptr[u]
        d = indptr[u + 1] - first
        if lane == 0:
            cuda.atomic.max(s_max, 0, d)
    cuda.syncthreads()
    rounds = (s_max[0] + 31) // 32
    cuda.syncthreads()
    return u, first, d, rounds


@cuda.jit
def fill(a, value):
    """a[:] = value."""
    i = cuda.grid(1)
    while i < a.size:
        a[i] = value
        i += cuda.gridsize(1)


@cuda.jit(device=True)
def tally(s_cnt, indptr, v):
    """Count a vertex of the next frontier: its out-degree into SCOUT and its LRB bin."""
    d = indptr[v + 1] - indptr[v]
    cuda.atomic.add(s_cnt, SCOUT, d)
    cuda.atomic.add(s_cnt, BIN0 + degree_bin(d), 1)


@cuda.jit(device=True)
def flush_counts(s_cnt, counters, row):
    """Kernel epilogue: add the block's tallies into counters row ``row``.

    Top-down kernels leave ``s_cnt[COUNT]`` at 0: their count is the queue tail that
    ``flush`` advances; bottom-up counts its vertices here."""
    cuda.syncthreads()
    for f in range(cuda.threadIdx.x, HEAD, cuda.blockDim.x):
        if s_cnt[f] != 0:
            cuda.atomic.add(counters, row + f, s_cnt[f])


@cuda.jit
def zero_int64(a):
    i = cuda.grid(1)
    while i < a.size:
        a[i] = 0
        i += cuda.gridsize(1)

