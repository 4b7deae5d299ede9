"""Format-neutral edge helpers shared by every reader and writer.

Readers produce int64 ``(src, dst)`` arrays and hand them to
``graph_from_edges`` (optional dense relabelling, then the parallel CSR build,
naming the stage on a progress bar); writers walk ``edge_blocks(graph)``
(every arc of a directed graph, each undirected edge once with u < v, in
blocks of about 4 M arcs so that memory stays bounded). ``relabel_dense`` maps
sparse ids onto 0..k-1 and ``sparse_id_note`` suggests it when most ids of a
file carry no edge.
"""
from __future__ import annotations

import numpy as np

from ...progress import bar as progress_bar
from ..types import Graph
from ._common import show_stage


def dense_ids(hi, chunks):
    """(table old id -> new id over 0..hi, the ids present in ascending order) for the (src, dst)
    pairs of ``chunks``: the ids in use numbered 0, 1, ... in their order."""
    present = np.zeros(hi + 1, dtype=np.bool_)
    for s, d in chunks:
        present[s] = True
        present[d] = True
    ids = np.flatnonzero(present).astype(np.int64)
    del present
    table = np.empty(hi + 1, dtype=np.int64)
    table[ids] = np.arange(ids.size, dtype=np.int64)
    return table, ids


def relabel_dense(src, dst):
    """Map the ids that occur in (src, dst) onto 0..k-1 in increasing order.

    Returns (src', dst', vertex_ids) with vertex_ids[new] = old. Uses a direct
    lookup table when the id range is modest, a sort (np.unique) otherwise.
    """
    m = src.size
    if m == 0:
        return src, dst, np.zeros(0, dtype=np.int64)
    hi = int(max(src.max(), dst.max()))
    if hi + 1 <= 16 * m + (1 << 20):
        table, ids = dense_ids(hi, ((src, dst),))
        return table[src], table[dst], ids
    ids, inverse = np.unique(np.concatenate((src, dst)), return_inverse=True)
    inverse = inverse.astype(np.int64, copy=False).reshape(-1)
    return inverse[:m].copy(), inverse[m:].copy(), ids.astype(np.int64)


def sparse_id_note(graph, declared: bool):
    """A hint when most vertex ids carry no edge (SNAP-style skipped ids)."""
    n = graph.num_vertices
    if declared or graph.vertex_ids is not None or n < 1000:
        return None
    deg = np.diff(graph.indptr)
    if graph.directed:
        deg = deg + np.diff(graph.in_indptr)
    isolated = int(np.count_nonzero(deg == 0))
    if isolated * 2 > n:
        return (f"{isolated:,} of {n:,} vertex ids have no edges (the ids are sparse); "
                f"relabel=True numbers the used ids densely and keeps the mapping")
    return None


def graph_from_edges(src, dst, *, num_vertices, directed, relabel, index_dtype, stats, bar_t0, progress):
    """Relabel (optionally) and build the CSR, naming the stage on a progress bar."""
    bar = progress_bar(None, "building CSR", progress, unit="it")
    with bar:
        show_stage(bar, "relabelling" if relabel else "building CSR", bar_t0, src.size > 20_000_000)
        ids = None
        if relabel:
            src, dst, ids = relabel_dense(src, dst)
            num_vertices = ids.size
            show_stage(bar, "building CSR", bar_t0, src.size > 20_000_000)
        g = Graph.from_edges(src, dst, num_vertices=num_vertices, directed=directed, index_dtype=index_dtype)
        g.vertex_ids = ids
    if stats is not None:
        stats.tuples = int(src.size)
    return g


def edge_blocks(graph, target_arcs=1 << 22):
    """Yield (src, dst) int64 blocks of the graph's edges: every arc if directed, u < v once if not."""
    n = graph.num_vertices
    indptr = graph.indptr
    lo = 0
    while lo < n:
        hi = int(np.searchsorted(indptr, indptr[lo] + target_arcs, side="right")) - 1
        hi = min(n, max(hi, lo + 1))
        a, b = int(indptr[lo]), int(indptr[hi])
        dst = np.asarray(graph.indices[a:b], dtype=np.int64)
        src = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(indptr[lo:hi + 1]))
        if not graph.directed:
            keep = src < dst
            src, dst = src[keep], dst[keep]
        yield src, dst
        lo = hi
