"""Validation of a BFS parent array by the Graph500 rules (specification 3.0, "Validation"; reference
code graph500/graph500 3.0.0, ``src/validate.c``).

The checks, each with the rule name a failure reports:

* ``range``  -- every parent is -1 or a vertex id;
* ``root``   -- every seed is its own parent;
* ``tree``   -- following parents from any reached vertex ends at a seed: the
  tree has no cycle and is rooted at the root. Depths are derived from the
  tree itself (children lists walked level by level from the seeds), so a
  vertex whose depth cannot be derived from the root is an error -- stricter
  than the reference code, which lets a parent cycle in another component pass;
* ``edge``   -- every tree edge (parent[v], v) is an edge of the graph;
* ``level``  -- every graph edge joins vertices whose depths differ by at most
  one (directed: an edge u -> v with u reached has depth[v] <= depth[u] + 1).
  Tree edges differ by exactly one by construction of the depths;
* ``span``   -- no graph edge leads from a reached vertex to an unreached one:
  the tree spans the root's component (directed: everything reachable) and,
  with ``tree``, nothing else;
* ``depth``  -- if the search's own depth array is given, it equals the derived one.

The edge checks are one parallel pass over all edges (a vertex scans its
in-edges), independent of how the search ran and of neighbour-list order.
"""
from __future__ import annotations

import time
import numpy as np
from numba import prange

from ..errors import InputError, ValidationError
from ..jit import njit
from ..kernels.frontier import parallel_chunksize
from ..kernels.tree_checks import EDGE, LEVEL, RULES, SPAN, check_in_edges
from ..result import ValidationReport
from ..checks import as_graph, as_roots

V_BLOCK = 1024


@njit(cache=True)
def _tree_depth(parent, roots, depth):
    """Depths by walking children from the seeds; returns (reached, first vertex not derived or -1)."""
    n = parent.size
    count = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        p = parent[v]
        if p >= 0 and p != v:
            count[p + 1] += 1
    for v in range(n):
        count[v + 1] += count[v]
    children = np.empty(count[n], dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    for v in range(n):      # loops, not count[:n].copy() and np.count_nonzero: less to compile
        pos[v] = count[v]
    reached = 0
    for v in range(n):
        p = parent[v]
        reached += p >= 0
        if p >= 0 and p != v:
            children[pos[p]] = v
            pos[p] += 1
    for v in range(n):
        depth[v] = -1
    queue = np.empty(n, dtype=np.int64)
    tail = 0
    for r in roots:
        if depth[r] < 0:
            depth[r] = 0
            queue[tail] = r
            tail += 1
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        for k in range(count[u], count[u + 1]):
            c = children[k]
            if depth[c] < 0:
                depth[c] = depth[u] + 1
                queue[tail] = c
                tail += 1
    bad = -1
    if tail != reached:
        for v in range(n):
            if parent[v] >= 0 and depth[v] < 0:
                bad = v
                break
    return tail, bad


@njit(parallel=True, cache=True)
def _edge_checks(in_indptr, in_indices, parent, depth, is_seed, directed, first_bad):
    """first_bad[b, rule] := smallest vertex of block b breaking rule (n if none)."""
    n = parent.size
    nblocks = first_bad.shape[0]
    for b in prange(nblocks):
        for v in range(b * V_BLOCK, min(n, (b + 1) * V_BLOCK)):
            dv = depth[v]
            found = check_in_edges(in_indptr, in_indices, v, v, parent[v], depth, directed, first_bad, b)
            if dv > 0 and not is_seed[v] and not found:
                first_bad[b, EDGE] = min(first_bad[b, EDGE], v)


def _fail(rule, vertex, message):
    raise ValidationError(rule, vertex, message)


def validate(graph, root, parent, depth=None) -> ValidationReport:
    """Check a BFS parent array against the Graph500 rules; raise ValidationError on the first broken one.

    The rules (the Graph500 specification's): the tree has no cycle, every tree edge is an
    edge of the graph, tree depths of its endpoints differ by one, every vertex of the root's
    component is reached and no other vertex is.

    Args:
        graph: the searched graph (a ``breadth.Graph`` or a scipy sparse matrix).
        root: the search key, or the seed set of a multi-seed search.
        parent: the BFS parent of every vertex (-1 where unreached; the root its own parent).
        depth: if given (e.g. ``result.depth``), must equal the depths derived from the tree.

    Returns:
        A ``ValidationReport`` (vertices reached, tree depth, tree edges, seconds).

    Raises:
        ValidationError: a rule is broken (``rule`` names it, ``vertex`` is the first offender).
        InputError: arrays of the wrong length or a root out of range.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> r = breadth.bfs(g, 0)
        >>> report = breadth.validate(g, 0, r.parent, r.depth)
        >>> report.reached, report.max_depth, report.tree_edges
        (4, 3, 3)
        >>> bad = r.parent.copy()
        >>> bad[3] = 0
        >>> breadth.validate(g, 0, bad)
        Traceback (most recent call last):
        ...
        breadth.errors.ValidationError: validation failed [edge] at vertex 3: tree edge (0, 3) is not an edge ...
    """
    t0 = time.perf_counter()
    g = as_graph(graph)
    roots = as_roots(g, root)
    n = g.num_vertices
    parent = np.asarray(parent)
    if parent.shape != (n,):
        raise InputError(f"parent array has shape {parent.shape}, expected ({n},)")
    if not np.issubdtype(parent.dtype, np.integer):
        raise InputError(f"parent array must hold integers, got {parent.dtype}")
    parent = np.ascontiguousarray(parent, dtype=np.int64)

    bad = np.flatnonzero((parent < -1) | (parent >= n))
    if bad.size:
        v = int(bad[0])
        _fail("range", v, f"parent {int(parent[v])} is neither -1 nor a vertex id")
    bad_roots = roots[parent[roots] != roots]
    if bad_roots.size:
        r = int(bad_roots[0])
        _fail("root", r, f"the root's parent is {int(parent[r])}, not the root itself")

    tdepth = np.empty(n, dtype=np.int64)
    reached, v = _tree_depth(parent, roots, tdepth)
    if v >= 0:
        _fail("tree", v, f"following parents from vertex {v} never reaches the root (cycle or detached tree)")

    is_seed = np.zeros(n, dtype=np.bool_)
    is_seed[roots] = True
    nblocks = max(1, (n + V_BLOCK - 1) // V_BLOCK)
    first_bad = np.full((nblocks, len(RULES)), n, dtype=np.int64)
    with parallel_chunksize(1):
        _edge_checks(g.in_indptr, g.in_indices, parent, tdepth, is_seed, g.directed, first_bad)
    worst = first_bad.min(axis=0)
    if worst[EDGE] < n:
        v = int(worst[EDGE])
        _fail("edge", v, f"tree edge ({int(parent[v])}, {v}) is not an edge of the graph")
    if worst[SPAN] < n:
        v = int(worst[SPAN])
        _fail("span", v, f"vertex {v} is unreached but joined by an edge to a reached vertex")
    if worst[LEVEL] < n:
        v = int(worst[LEVEL])
        _fail("level", v, f"an edge at vertex {v} (depth {int(tdepth[v])}) spans more than one level")
    if depth is not None:
        depth = np.asarray(depth)
        if depth.shape != (n,):
            raise InputError(f"depth array has shape {depth.shape}, expected ({n},)")
        diff = np.flatnonzero(depth != tdepth)
        if diff.size:
            v = int(diff[0])
            _fail("depth", v, f"reported depth {int(depth[v])} but the tree puts it at {int(tdepth[v])}")
    max_depth = int(tdepth.max()) if n else -1
    return ValidationReport(reached=int(reached), max_depth=max_depth, tree_edges=int(reached - np.unique(roots).size),
                            seconds=time.perf_counter() - t0)
