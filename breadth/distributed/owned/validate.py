"""Distributed validation of a BFS result by the Graph500 rules (see breadth/graph500/validate.py).

Each rank checks only the vertices it owns, against the edges it owns, with the
search's depth array all-gathered to every rank (O(V) per rank, as the
ButterFly level array; ``Partition.allgather``). Local and global ids come from
the partition's kernel map, so any layout whose ranks hold the in-edges of their
own vertices validates with it. For an owned vertex v with parent p and depth d(v):

* ``range`` -- p is -1 or a vertex id;
* ``root``  -- a seed is its own parent at depth 0;
* ``tree``  -- a reached non-seed's parent is reached and is not v itself;
* ``depth`` -- parent and depth agree (p = -1 iff d = -1), only seeds have depth 0,
  and d(p) = d(v) - 1 for every reached non-seed;
* ``edge``  -- (p, v) is an edge (p is an in-neighbour of v);
* ``span``/``level`` -- over v's in-edges (u, v): no edge joins a reached and an
  unreached vertex (directed: from reached to unreached), and depths differ by at
  most one (directed: d(v) <= d(u) + 1).

Why this proves the tree without walking it: following parents strictly lowers
the depth by one per step, and only seeds have depth 0, so every chain ends at a
seed after d(v) steps -- no cycle, rooted at the seeds, and d is the tree depth.
Undirected edges are seen from both endpoints (each at its owner), so the union
of the ranks' checks covers every edge. The first failing rule (in the order
range, root, tree, edge, span, level, depth) and its smallest vertex are agreed
with one Allreduce, so every rank raises the same ValidationError.
"""
from __future__ import annotations

import time

import numpy as np
from numba import prange

from ...errors import ValidationError
from ...jit import njit
from ...kernels.frontier import parallel_chunksize
from ...kernels.tree_checks import EDGE, RANGE, RULES, check_in_edges, check_vertex
from ...result import ValidationReport
from .partition import global_of
from ..runtime import collective_error

V_BLOCK = 1024


@njit(parallel=True, cache=True)
def _check_owned(in_indptr, in_indices, pmap, parent, depth, seeds, directed, first_bad):
    """first_bad[b, rule] := smallest global vertex of block b breaking rule (n if none)."""
    n = depth.size
    nl = parent.size
    nblocks = first_bad.shape[0]
    for b in prange(nblocks):
        for loc in range(b * V_BLOCK, min(nl, (b + 1) * V_BLOCK)):
            v = global_of(pmap, loc)
            p = parent[loc]
            dv = depth[v]
            k = np.searchsorted(seeds, v)
            is_seed = k < seeds.size and seeds[k] == v
            if p < -1 or p >= n:
                first_bad[b, RANGE] = min(first_bad[b, RANGE], v)
                continue
            check_vertex(v, p, dv, is_seed, depth, first_bad, b)
            found = check_in_edges(in_indptr, in_indices, loc, v, p, depth, directed, first_bad, b)
            if p >= 0 and not is_seed and not found:
                first_bad[b, EDGE] = min(first_bad[b, EDGE], v)


_MESSAGES = {
    "range": "parent is neither -1 nor a vertex id",
    "root": "a root must be its own parent at depth 0",
    "tree": "following parents from this vertex never reaches the root (parent unreached or itself)",
    "edge": "the tree edge to this vertex's parent is not an edge of the graph",
    "span": "this vertex is unreached but joined by an edge to a reached vertex",
    "level": "an edge at this vertex spans more than one level",
    "depth": "its depth disagrees with its parent's (or with being reached)",
}


def validate_owned(comm, lg, roots, parent, depth) -> ValidationReport:
    """Validate a distributed result (``parent``/``depth`` of this rank's vertices) on every rank; collective."""
    t0 = time.perf_counter()
    n = lg.num_vertices
    seeds = np.unique(np.atleast_1d(np.asarray(roots, dtype=np.int64)))
    with comm.phase("validate"):
        depth_all = lg.partition.allgather(comm, np.ascontiguousarray(depth, dtype=np.int64))
        nblocks = max(1, (lg.num_local + V_BLOCK - 1) // V_BLOCK)
        first_bad = np.full((nblocks, len(RULES)), n, dtype=np.int64)
        with parallel_chunksize(1):
            _check_owned(lg.in_indptr, lg.in_indices, lg.partition.kernel_map(),
                         np.ascontiguousarray(parent, dtype=np.int64),
                         depth_all, seeds, lg.directed, first_bad)
        worst = comm.allreduce(first_bad.min(axis=0), op="min")
    return verdict(worst, n, depth_all, seeds, t0)


def verdict(worst, n, depth_all, seeds, t0) -> ValidationReport:
    """The report of a validation begun at ``t0`` whose rules' smallest offending vertices over all
    ranks are ``worst`` (n: none); the first broken rule raises, collectively."""
    for rule, v in zip(RULES, worst):
        if v < n:
            raise collective_error(ValidationError(rule, int(v), _MESSAGES[rule]))
    reached = int(np.count_nonzero(depth_all >= 0))
    return ValidationReport(reached=reached, max_depth=int(depth_all.max()) if n else -1,
                            tree_edges=reached - int(seeds.size), seconds=time.perf_counter() - t0)
