"""GPU local steps of the distributed ButterFly search (Green, "ButterFly BFS", Alg. 2) on replicated levels.

The device twins of ``distributed.steps_replicated`` for the 1D partition: this rank
owns the contiguous global range ``[row0, row0 + nl)``; its CSR rows are local ids,
columns global ids; ``lvl`` (int64, the level of every vertex of the graph, -1 =
unvisited) is replicated on the device as on the host.

* top-down: the LRB kernel of ``lrb.top_down_kernel`` with ``claim_replicated``:
  an edge (u, v) wins v with a compare-and-swap on ``lvl[v]``; an owned v records its
  parent (global id of the local row u); every winner is appended (global id) to the
  step's output queue. No LRB tally: the next owned frontier is known only after the
  exchange, and the host bins it;
* ``rep_bu``: each owned unvisited vertex looks for an in-neighbour in the frontier
  bitmap (uint32 words, built on the device from the synchronised frontier) and stops
  at the first (``bottom_up.next_in_frontier``); it counts the edges it examined;
* ``set_levels``: after the exchange, ``lvl[v] = value`` for the whole synchronised
  frontier (idempotent for the vertices this rank found itself);
* with CUDA-aware MPI (the frontier never leaves the device): ``merge_ids`` merges a
  received id list into the device global queue (CAS on ``lvl``), and ``owned_frontier``
  extracts the owned part of the synchronised frontier with its scout count and LRB
  histogram.

Invariant of a step: on exit, the vertices it newly settled are exactly those
appended to its output queue (``counters[row + COUNT]`` of them).

Tests: tests/gpu/test_dist.py (numba-cuda's simulator, under mpiexec) and
tests/gpu/ptx_check.py (PTX); on a real GPU: bench/gpu_check.py.
"""
from numba import cuda, int64

from .bottom_up import next_in_frontier
from .device import STAGE
from .lrb import top_down_kernel
from .primitives import BIN0, COUNT, EXAMINED, SCOUT, degree_bin, flush, flush_counts, stage, staging


@cuda.jit(device=True)
def claim_replicated(v, u, level, lvl, parent, row0, indptr, s_buf, s_n, s_cnt):
    """Edge (u, v), u a local row: win v's level with a CAS; an owned v records its parent; stage v."""
    if lvl[v] < 0:
        if cuda.atomic.cas(lvl, v, int64(-1), int64(level + 1)) == -1:
            loc = v - row0
            if 0 <= loc < parent.size:
                parent[loc] = row0 + u
            stage(s_buf, s_n, v)


rep_td = top_down_kernel(claim_replicated)


@cuda.jit
def rep_bu(in_indptr, in_indices, row0, lvl, front, level, parent, out, counters, row):
    """Bottom-up over the owned vertices (one thread each); winners appended to ``out`` (global ids)."""
    s_buf, s_n, s_base, s_cnt = staging(counters, -1)
    tid = cuda.threadIdx.x
    bdim = cuda.blockDim.x
    nl = parent.size
    examined = int64(0)
    for base in range(cuda.blockIdx.x * bdim, nl, cuda.gridDim.x * bdim):   # the same rounds on every thread
        loc = base + tid
        if loc < nl:
            v = row0 + loc
            if lvl[v] < 0:
                first = in_indptr[loc]
                end = in_indptr[loc + 1]
                k = next_in_frontier(in_indices, first, end, front)
                if k < end:
                    examined += k - first + 1
                    lvl[v] = level + 1
                    parent[loc] = in_indices[k]
                    stage(s_buf, s_n, v)
                else:
                    examined += end - first
        flush(s_buf, s_n, s_base, out, counters, row + COUNT)
    if examined > 0:
        cuda.atomic.add(s_cnt, EXAMINED, examined)
    flush_counts(s_cnt, counters, row)


@cuda.jit
def set_levels(vertices, count, lvl, value):
    """lvl[vertices[:count]] = value."""
    i = cuda.grid(1)
    while i < count:
        lvl[vertices[i]] = value
        i += cuda.gridsize(1)


@cuda.jit
def merge_ids(recv, count, lvl, value, gq, counters, tail):
    """Append to ``gq`` (cursor ``counters[tail]``) every v in recv[:count] whose level is still -1,
    setting it to ``value`` with a CAS (the device twin of ``one_d.butterfly_exchange.merge_new``)."""
    s_buf = cuda.shared.array(STAGE, int64)
    s_n = cuda.shared.array(1, int64)
    s_base = cuda.shared.array(1, int64)
    if cuda.threadIdx.x == 0:
        s_n[0] = 0
    cuda.syncthreads()
    bdim = cuda.blockDim.x
    for base in range(cuda.blockIdx.x * bdim, count, cuda.gridDim.x * bdim):
        i = base + cuda.threadIdx.x
        if i < count:
            v = recv[i]
            if lvl[v] < 0:
                if cuda.atomic.cas(lvl, v, int64(-1), int64(value)) == -1:
                    stage(s_buf, s_n, v)
        flush(s_buf, s_n, s_base, gq, counters, tail)


@cuda.jit
def owned_frontier(gq, total, row0, odeg, indptr, queue, counters, row):
    """From the synchronised frontier gq[:total]: its scout count (replicated out-degrees ``odeg``)
    into SCOUT, the owned vertices (local ids) appended to ``queue`` (count: COUNT) with their LRB
    histogram in BIN0.. and their out-edges in EXAMINED -- what ``lrb.lrb_scatter``, the host's
    policy and the level statistics read."""
    s_buf, s_n, s_base, s_cnt = staging(counters, -1)
    bdim = cuda.blockDim.x
    nl = indptr.size - 1
    scout = int64(0)
    for base in range(cuda.blockIdx.x * bdim, total, cuda.gridDim.x * bdim):
        i = base + cuda.threadIdx.x
        if i < total:
            v = gq[i]
            scout += odeg[v]
            loc = v - row0
            if 0 <= loc < nl:
                stage(s_buf, s_n, loc)
                d = indptr[loc + 1] - indptr[loc]
                cuda.atomic.add(s_cnt, BIN0 + degree_bin(d), 1)
                cuda.atomic.add(s_cnt, EXAMINED, d)
        flush(s_buf, s_n, s_base, queue, counters, row + COUNT)
    if scout > 0:
        cuda.atomic.add(s_cnt, SCOUT, scout)
    flush_counts(s_cnt, counters, row)
