"""Graph500 validation of a search's tree on the GPU, with the parent/depth arrays left in device memory.

The rules are the CPU validator's (``breadth.graph500.validate``), in its order: range,
root, tree, edge, span, level, depth (``breadth.kernels.tree_checks.RULES``). The edge
rules of one vertex are ``tree_checks.check_in_edges`` itself, called from a CUDA kernel
(one thread per vertex, a thread-local row of first-bad vertices, atomic minimum into one
row of ``len(RULES)`` counters). The tree's own depths are derived as the CPU derives them,
from the seeds down the parent pointers, one kernel launch per tree level here; a reached
vertex left without a derived depth lies on a cycle or a detached tree ("tree"). The
reported depths are then compared with the derived ones ("depth"). Copies: the seeds up,
and one small row per tree level and the counter row down; nothing per vertex.
"""
from __future__ import annotations

import time

import numpy as np
from numba import cuda, int64

from ..errors import ValidationError
from ..kernels.tree_checks import DEPTH, EDGE, LEVEL, RANGE, ROOT, RULES, SPAN, TREE, check_in_edges
from ..result import ValidationReport
from . import device

NRULES = len(RULES)
# the simulator runs kernels as Python, on its own array type: there the rule is called as Python too
_in_edges = check_in_edges.py_func if device.simulated() else check_in_edges
TPB = 256


@cuda.jit
def _start(parent, tdepth, is_seed, first_bad):
    """tdepth := -1, is_seed := seeds, range and root rules."""
    v = cuda.grid(1)
    n = parent.size
    if v < n:
        tdepth[v] = -1
        is_seed[v] = False
        p = parent[v]
        if p < -1 or p >= n:
            cuda.atomic.min(first_bad, RANGE, v)


@cuda.jit
def _seed(parent, roots, tdepth, is_seed, first_bad):
    i = cuda.grid(1)
    if i < roots.size:
        r = roots[i]
        tdepth[r] = 0
        is_seed[r] = True
        if parent[r] != r:
            cuda.atomic.min(first_bad, ROOT, r)


@cuda.jit
def _derive(parent, tdepth, level, grew):
    """One tree level: a vertex whose parent sits at ``level - 1`` is at ``level``."""
    v = cuda.grid(1)
    n = parent.size
    if v < n:
        p = parent[v]
        if p >= 0 and p < n and p != v and tdepth[v] < 0 and tdepth[p] == level - 1:
            tdepth[v] = level
            cuda.atomic.add(grew, 0, 1)


@cuda.jit
def _vertex_rules(in_indptr, in_indices, parent, depth, tdepth, is_seed, directed, first_bad):
    """tree, edge, span, level and depth rules of one vertex (the CPU validator's, on the derived depths)."""
    v = cuda.grid(1)
    n = parent.size
    if v < n:
        p = parent[v]
        if p >= 0 and tdepth[v] < 0:
            cuda.atomic.min(first_bad, TREE, v)
        if depth[v] != tdepth[v]:
            cuda.atomic.min(first_bad, DEPTH, v)
        row = cuda.local.array((1, NRULES), int64)
        for k in range(NRULES):
            row[0, k] = n
        found = _in_edges(in_indptr, in_indices, v, v, p, tdepth, directed, row, 0)
        if tdepth[v] > 0 and not is_seed[v] and not found:
            row[0, EDGE] = v
        for k in (EDGE, SPAN, LEVEL):
            if row[0, k] < n:
                cuda.atomic.min(first_bad, k, row[0, k])


def validate_device(dg, roots, parent, depth) -> ValidationReport:
    """Check a device result's tree (``parent``/``depth`` numba device arrays of ``dg``'s vertices).

    Args:
        dg: the ``DeviceGraph`` searched.
        roots: the seeds (host int64 array).
        parent: the tree, a device array.
        depth: the reported depths, a device array.

    Returns:
        The ``ValidationReport`` (as ``breadth.validate``'s).

    Raises:
        ValidationError: the first broken rule in the CPU validator's order, at the smallest vertex.
    """
    t0 = time.perf_counter()
    n = dg.num_vertices
    roots = np.unique(np.asarray(roots, dtype=np.int64))
    first_bad = device.to_device(np.full(NRULES, n, dtype=np.int64))
    tdepth = device.empty(max(n, 1), np.int64)
    is_seed = device.empty(max(n, 1), np.bool_)
    grew = device.to_device(np.zeros(1, dtype=np.int64))
    blocks = max(1, (n + TPB - 1) // TPB)
    _start[blocks, TPB](parent, tdepth, is_seed, first_bad)
    _seed[max(1, (roots.size + TPB - 1) // TPB), TPB](parent, device.to_device(roots), tdepth, is_seed, first_bad)
    reached, level = roots.size, 0
    while True:
        level += 1
        _derive[blocks, TPB](parent, tdepth, level, grew)
        total = int(device.to_host(grew)[0])
        if total == reached - roots.size:
            break
        reached = roots.size + total
    _vertex_rules[blocks, TPB](dg.in_indptr, dg.in_indices, parent, depth, tdepth, is_seed, dg.graph.directed,
                               first_bad)
    bad = device.to_host(first_bad)
    for rule in range(NRULES):
        if bad[rule] < n:
            v = int(bad[rule])
            raise ValidationError(RULES[rule], v, f"vertex {v} breaks the Graph500 {RULES[rule]} rule (checked on the GPU)")
    return ValidationReport(reached=int(reached), max_depth=level - 1 if n else -1,
                            tree_edges=int(reached - roots.size), seconds=time.perf_counter() - t0)
