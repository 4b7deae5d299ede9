"""The numba loops of the bounded-memory conversion (``spill``): raw degrees, arcs grouped by the
bucket of their source, arcs placed into their rows. Each runs over one chunk or bucket at a time."""
from __future__ import annotations

import numpy as np

from ...jit import njit


@njit(cache=True)
def count_degrees(s, d, both, deg_a, deg_b):
    """Raw degrees of a chunk's arcs (self-loops skipped): deg_a by source, and by target into deg_b
    (deg_a itself when ``both``, an undirected graph). Returns the self-loops."""
    loops = 0
    for e in range(s.size):
        u = s[e]
        v = d[e]
        if u == v:
            loops += 1
            continue
        deg_a[u] += 1
        if both:
            deg_a[v] += 1
        elif deg_b.size:
            deg_b[v] += 1
    return loops


@njit(cache=True)
def _bucket(cuts, v):
    """The bucket b with cuts[b] <= v < cuts[b + 1] (binary search)."""
    lo = 0
    hi = cuts.size - 2
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if cuts[mid] <= v:
            lo = mid
        else:
            hi = mid - 1
    return lo


@njit(cache=True)
def _file_arc(place, cuts, counts, out, a, c):
    """Count (``place`` False) or file (True) the arc a->c in the bucket of ``a``."""
    b = _bucket(cuts, a)
    if not place:
        counts[b + 1] += 1
        return
    out[counts[b], 0] = a - cuts[b]
    out[counts[b], 1] = c
    counts[b] += 1


@njit(cache=True)
def partition_arcs(s, d, both, reverse, cuts, start, out):
    """Group the chunk's arcs by the bucket of their source into ``out`` rows (local source, target);
    ``start`` receives each bucket's first row. Arcs are s->d, d->s when ``reverse``, both when ``both``.
    A counting sort: the first pass counts the arcs per bucket, the second files them."""
    nb = cuts.size - 1
    counts = np.zeros(nb + 1, dtype=np.int64)
    for p in range(2):
        place = p == 1
        for e in range(s.size):
            u = s[e]
            v = d[e]
            if u == v:
                continue
            if both or not reverse:
                _file_arc(place, cuts, counts, out, u, v)
            if both or reverse:
                _file_arc(place, cuts, counts, out, v, u)
        if not place:
            for b in range(nb):
                counts[b + 1] += counts[b]
            start[:] = counts


@njit(cache=True)
def place_arcs(arcs, cursor, indices):
    """indices[cursor[r]] := the target of each arc of local row r, advancing cursor[r]."""
    for j in range(arcs.shape[0]):
        r = arcs[j, 0]
        indices[cursor[r]] = arcs[j, 1]
        cursor[r] += 1
