"""The two traversals networkx's order needs, as sequential numba kernels.

``fifo_bfs`` is the breadth-first search networkx runs in Python (``generic_bfs_edges``,
``bfs_layers``, ``_single_shortest_path_length``): one FIFO queue seeded with the
sources in the caller's order, every vertex's neighbours scanned in CSR order
(networkx's adjacency insertion order, kept by ``breadth.graph.convert``), a vertex's
parent its first discoverer. Invariant: ``order[:count]`` is the discovery order,
non-decreasing in depth, so a level is a contiguous run of it and the tree edges
(parent[v], v) in that order are exactly what ``nx.bfs_edges`` yields. A
direction-optimizing search finds the same depths but not this order (bottom-up
steps pick other parents), so the order-sensitive functions use this kernel and
the rest use ``breadth.bfs`` and the concurrent BFS.

``component_labels`` labels (weakly) connected components in vertex order: a
component's label is the rank of its smallest vertex, which is the order in which
networkx's ``connected_components`` yields them (it scans ``G`` in node order).
"""
import numpy as np

from ..jit import njit


@njit(cache=True)
def fifo_bfs(indptr, indices, first, max_level, target, order, depth, parent):
    """FIFO BFS from the seeds ``first`` (in order; repeats ignored).

    Stops after discovering the vertices of level ``max_level`` (< 0: no limit) or right
    after discovering ``target`` (>= 0). Fills ``order[:count]``, and ``depth``/``parent``
    of those vertices (-1 depth elsewhere; a seed is its own parent). Returns count.
    """
    n = indptr.size - 1
    for v in range(n):
        depth[v] = -1
    count = 0
    for i in range(first.size):
        s = first[i]
        if depth[s] < 0:
            depth[s] = 0
            parent[s] = s
            order[count] = s
            count += 1
            if s == target:
                return count
    head = 0
    while head < count and count < n:
        v = order[head]
        head += 1
        d = depth[v]
        if d == max_level:
            break                       # every vertex still queued is at depth >= max_level
        for e in range(indptr[v], indptr[v + 1]):
            w = indices[e]
            if depth[w] < 0:
                depth[w] = d + 1
                parent[w] = v
                order[count] = w
                count += 1
                if w == target:
                    return count
    return count


@njit(cache=True)
def _label_neighbours(indptr, indices, v, c, label, queue, tail):
    """Label v's unlabelled neighbours c and queue them; returns the new queue tail."""
    for e in range(indptr[v], indptr[v + 1]):
        w = indices[e]
        if label[w] < 0:
            label[w] = c
            queue[tail] = w
            tail += 1
    return tail


@njit(cache=True)
def component_labels(indptr, indices, in_indptr, in_indices, weak, label, queue):
    """label[v] = component of v, numbered by smallest vertex; ``weak`` also follows in-edges.
    Returns the number of components."""
    n = indptr.size - 1
    for v in range(n):
        label[v] = -1
    c = 0
    for s in range(n):
        if label[s] >= 0:
            continue
        label[s] = c
        queue[0] = s
        head = 0
        tail = 1
        while head < tail:
            v = queue[head]
            head += 1
            tail = _label_neighbours(indptr, indices, v, c, label, queue, tail)
            if weak:
                tail = _label_neighbours(in_indptr, in_indices, v, c, label, queue, tail)
        c += 1
    return c


def run_fifo(graph, first, max_level=-1, target=-1, reverse=False):
    """``fifo_bfs`` on a breadth graph (in-edges when ``reverse``): (order, depth, parent) of the
    ``count`` vertices found, as int64 arrays (order trimmed; depth/parent indexed by vertex)."""
    n = graph.num_vertices
    indptr, indices = (graph.in_indptr, graph.in_indices) if reverse else (graph.indptr, graph.indices)
    order = np.empty(n, dtype=np.int64)
    depth = np.empty(n, dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    count = fifo_bfs(indptr, indices, np.asarray(first, dtype=np.int64), int(max_level), int(target),
                     order, depth, parent)
    return order[:count], depth, parent


def run_components(graph, weak=False):
    """(number of components, int64 label per vertex) of a breadth graph."""
    n = graph.num_vertices
    label = np.empty(n, dtype=np.int64)
    queue = np.empty(max(n, 1), dtype=np.int64)
    if weak:
        count = component_labels(graph.indptr, graph.indices, graph.in_indptr, graph.in_indices, True, label, queue)
    else:
        count = component_labels(graph.indptr, graph.indices, graph.indptr, graph.indices, False, label, queue)
    return int(count), label
