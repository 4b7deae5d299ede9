"""Distributed validation of a 2D result by the Graph500 rules (the rules of ``owned.validate``).

A vertex's in-arcs are spread over the C blocks of its processor row, so the checks
split: with parent and depth all-gathered (O(V) per rank, as ``validate_owned``'s
depths), each rank checks

* on the vertices it owns: ``range``, ``root``, ``tree``, ``depth`` (vertex rules);
* on every in-arc (u, v) of its block: ``span`` and ``level`` -- the blocks together
  hold every arc once, and undirected edges both ways, so every edge is checked;
* ``edge``: the arc parent(v) -> v lies in exactly one block, P(row of v, column of
  parent(v)); that rank reports it missing if its in-arcs of v do not contain it.

The first failing rule and its smallest vertex are agreed with one Allreduce, so every
rank raises the same ValidationError.
"""
from __future__ import annotations

import time

import numpy as np
from numba import prange

from ...jit import njit
from ...kernels.frontier import parallel_chunksize
from ...kernels.tree_checks import EDGE, RANGE, RULES, check_in_edges, check_vertex
from ...result import ValidationReport
from ..owned.validate import V_BLOCK, verdict


@njit(parallel=True, cache=True)
def _check_block(in_indptr, in_indices, row_lo, nrows, lo, hi, col_lo, col_hi, parent, depth, seeds, directed,
                 first_bad):
    """first_bad[b, rule] := smallest vertex of row block b breaking rule (n if none)."""
    n = depth.size
    nblocks = first_bad.shape[0]
    for b in prange(nblocks):
        for row in range(b * V_BLOCK, min(nrows, (b + 1) * V_BLOCK)):
            v = row_lo + row
            p = parent[v]
            dv = depth[v]
            k = np.searchsorted(seeds, v)
            is_seed = k < seeds.size and seeds[k] == v
            owned = lo <= v < hi
            if p < -1 or p >= n:
                if owned:
                    first_bad[b, RANGE] = min(first_bad[b, RANGE], v)
                continue
            if owned:
                check_vertex(v, p, dv, is_seed, depth, first_bad, b)
            found = check_in_edges(in_indptr, in_indices, row, v, p, depth, directed, first_bad, b)
            if p >= 0 and p != v and not is_seed and col_lo <= p < col_hi and not found:
                first_bad[b, EDGE] = min(first_bad[b, EDGE], v)


def validate_2d(comm, lg, roots, parent, depth) -> ValidationReport:
    """Validate a 2D result (``parent``/``depth`` of this rank's vertices) on every rank; collective."""
    t0 = time.perf_counter()
    n = lg.num_vertices
    grid = lg.partition
    seeds = np.unique(np.atleast_1d(np.asarray(roots, dtype=np.int64)))
    with comm.phase("validate"):
        depth_all = grid.allgather(comm, np.ascontiguousarray(depth, dtype=np.int64))
        parent_all = grid.allgather(comm, np.ascontiguousarray(parent, dtype=np.int64))
        nblocks = max(1, (grid.num_rows + V_BLOCK - 1) // V_BLOCK)
        first_bad = np.full((nblocks, len(RULES)), n, dtype=np.int64)
        with parallel_chunksize(1):
            _check_block(lg.in_indptr, lg.in_indices, grid.row_lo, grid.num_rows, grid.lo, grid.hi, grid.col_lo,
                         grid.col_hi, parent_all, depth_all, seeds, lg.directed, first_bad)
        worst = comm.allreduce(first_bad.min(axis=0), op="min")
    return verdict(worst, n, depth_all, seeds, t0)
