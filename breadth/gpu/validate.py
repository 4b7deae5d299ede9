"""Graph500 validation of a search's tree on the GPU, with the parent/depth arrays left in device memory.

The rules are the CPU validator's (``breadth.graph500.validate``), in its order: range,
root, tree, edge, span, level, depth (``breadth.kernels.tree_checks.RULES``). The edge
rules of one vertex are ``tree_checks.check_in_edges`` itself, called from a CUDA kernel
(one thread per vertex, a thread-local row of first-bad vertices, atomic minimum into one
row of ``len(RULES)`` counters); a hub's in-edges (more than ``HUB_IN_EDGES``) are cut into
chunks of ``HUB_CHUNK``, one thread each, the same rule called on each chunk's range, and
the hub's edge rule decided from whether any chunk held its parent (so a Kronecker hub's
list is not scanned by one thread). The tree's own depths are derived as the CPU derives them,
from the seeds down the parent pointers, one kernel launch per tree level here; a reached
vertex left without a derived depth lies on a cycle or a detached tree ("tree"). The
reported depths are then compared with the derived ones ("depth"). Copies: the seeds up
(and once per DeviceGraph its hub chunks), one small row per tree level and the counter
row down; nothing per vertex.
"""
from __future__ import annotations

import time

import numpy as np
from numba import cuda, int64

from ..errors import ValidationError
from ..kernels.tree_checks import DEPTH, EDGE, LEVEL, RANGE, ROOT, RULES, SPAN, TREE, check_in_edges
from ..result import ValidationReport
from . import device
from .primitives import fill

NRULES = len(RULES)
# the simulator runs kernels as Python, on its own array type: there the rule is called as Python too
_in_edges = check_in_edges.py_func if device.simulated() else check_in_edges
TPB = 256
HUB_IN_EDGES = 256     # a vertex of more in-edges has them checked in chunks, a thread each
HUB_CHUNK = 256        # in-edges a chunk


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
def _vertex_rules(in_indptr, in_indices, parent, depth, tdepth, is_seed, directed, first_bad, hub_min):
    """tree, edge, span, level and depth rules of one vertex (the CPU validator's, on the derived
    depths); a vertex of more than ``hub_min`` in-edges leaves its edges to ``_hub_chunks``."""
    v = cuda.grid(1)
    n = parent.size
    if v < n:
        p = parent[v]
        if p >= 0 and tdepth[v] < 0:
            cuda.atomic.min(first_bad, TREE, v)
        if depth[v] != tdepth[v]:
            cuda.atomic.min(first_bad, DEPTH, v)
        if in_indptr[v + 1] - in_indptr[v] > hub_min:
            return
        row = cuda.local.array((1, NRULES), int64)
        for k in range(NRULES):
            row[0, k] = n
        found = _in_edges(in_indptr, in_indices, v, v, p, tdepth, directed, row, 0)
        if tdepth[v] > 0 and not is_seed[v] and not found:
            row[0, EDGE] = v
        for k in (EDGE, SPAN, LEVEL):
            if row[0, k] < n:
                cuda.atomic.min(first_bad, k, row[0, k])


@cuda.jit
def _hub_chunks(chunk_ptr, chunk_v, chunk_hub, in_indices, parent, tdepth, directed, first_bad, hub_found):
    """Span and level rules of one chunk of a hub's in-edges (``in_indices[chunk_ptr[2k]:chunk_ptr[2k + 1]]``,
    the same rule ``check_in_edges`` on that range); a chunk holding the hub's parent marks it found."""
    k = cuda.grid(1)
    if k < chunk_v.size:
        v = chunk_v[k]
        n = parent.size
        row = cuda.local.array((1, NRULES), int64)
        for r in range(NRULES):
            row[0, r] = n
        if _in_edges(chunk_ptr, in_indices, 2 * k, v, parent[v], tdepth, directed, row, 0):
            hub_found[chunk_hub[k]] = 1
        for r in (SPAN, LEVEL):
            if row[0, r] < n:
                cuda.atomic.min(first_bad, r, row[0, r])


@cuda.jit
def _hub_edge_rule(hubs, hub_found, tdepth, is_seed, first_bad):
    """The edge rule of each hub: a reached non-seed's parent is among its in-neighbours."""
    h = cuda.grid(1)
    if h < hubs.size:
        v = hubs[h]
        if tdepth[v] > 0 and not is_seed[v] and hub_found[h] == 0:
            cuda.atomic.min(first_bad, EDGE, v)


def hub_chunks(in_indptr, hub_min: int, chunk: int) -> tuple:
    """The vertices of more than ``hub_min`` in-edges (``hubs``) and their in-edges cut into chunks
    of ``chunk``: (hubs, chunk_ptr, chunk_v, chunk_hub), chunk k spanning
    ``chunk_ptr[2k]:chunk_ptr[2k + 1]`` of vertex ``chunk_v[k] = hubs[chunk_hub[k]]``."""
    in_indptr = np.asarray(in_indptr, dtype=np.int64)
    deg = np.diff(in_indptr)
    hubs = np.flatnonzero(deg > hub_min).astype(np.int64)
    per = -(-deg[hubs] // chunk)
    chunk_hub = np.repeat(np.arange(hubs.size, dtype=np.int64), per)
    local = np.arange(chunk_hub.size, dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)
    lo = in_indptr[hubs][chunk_hub] + local * chunk
    ptr = np.empty(2 * chunk_hub.size, dtype=np.int64)
    ptr[0::2] = lo
    ptr[1::2] = np.minimum(lo + chunk, in_indptr[hubs + 1][chunk_hub])
    return hubs, ptr, hubs[chunk_hub], chunk_hub


def _device_hubs(dg):
    """``hub_chunks`` of ``dg``'s in-edges on the device, made once per DeviceGraph (and threshold)."""
    key = (HUB_IN_EDGES, HUB_CHUNK)
    cached = getattr(dg, "_validate_hubs", None)
    if cached is None or cached[0] != key:
        host = hub_chunks(dg.graph.in_indptr, HUB_IN_EDGES, HUB_CHUNK)
        found = device.empty(max(1, host[0].size), np.int64)        # each hub: a chunk held its parent
        cached = dg._validate_hubs = (key, host[0].size, tuple(device.to_device(a) for a in host) + (found,))
    return cached[1], cached[2]


def _grid(items: int) -> int:
    """Blocks of ``TPB`` threads for one thread per item (at least one block)."""
    return max(1, (int(items) + TPB - 1) // TPB)


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
    blocks = _grid(n)
    _start[blocks, TPB](parent, tdepth, is_seed, first_bad)
    _seed[_grid(roots.size), TPB](parent, device.to_device(roots), tdepth, is_seed, first_bad)
    reached, level = roots.size, 0
    while True:
        level += 1
        _derive[blocks, TPB](parent, tdepth, level, grew)
        total = int(device.to_host(grew)[0])
        if total == reached - roots.size:
            break
        reached = roots.size + total
    _vertex_rules[blocks, TPB](dg.in_indptr, dg.in_indices, parent, depth, tdepth, is_seed, dg.graph.directed,
                               first_bad, HUB_IN_EDGES)
    nhubs, (hubs, chunk_ptr, chunk_v, chunk_hub, found) = _device_hubs(dg)
    if nhubs:
        fill[_grid(nhubs), TPB](found, np.int64(0))
        _hub_chunks[_grid(chunk_v.size), TPB](chunk_ptr, chunk_v, chunk_hub, dg.in_indices, parent, tdepth,
                                              dg.graph.directed, first_bad, found)
        _hub_edge_rule[_grid(nhubs), TPB](hubs, found, tdepth, is_seed, first_bad)
    bad = device.to_host(first_bad)
    for rule in range(NRULES):
        if bad[rule] < n:
            v = int(bad[rule])
            raise ValidationError(RULES[rule], v, f"vertex {v} breaks the Graph500 {RULES[rule]} rule (checked on the GPU)")
    return ValidationReport(reached=int(reached), max_depth=level - 1 if n else -1,
                            tree_edges=int(reached - roots.size), seconds=time.perf_counter() - t0)
