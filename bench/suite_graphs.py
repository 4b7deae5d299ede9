"""Graphs of bench/gap_suite.py, and the two file formats GAP reads (``.sg`` CSR, ``.el`` text).

Every generator returns ``(src, dst, n, directed)`` (int64 edge arrays, duplicates and
self-loops allowed: ``breadth.Graph.from_edges`` and GAP's builder both remove them):

* ``kron``: the Graph500 Kronecker generator (A, B, C = 0.57, 0.19, 0.19, edge factor 16);
* ``urand``: uniform random endpoints, degree 16 (GAP's ``-u``);
* ``grid``: a ``side`` x ``side`` 4-neighbour mesh, row-major ids (default 1000 x 1000,
  ~2,000 levels from a corner): the high-diameter case where per-level cost shows;
* ``road``: a road-like graph: a mesh of ~2^scale vertices whose edges are each kept with
  probability 0.7 (degree ~2.8, like road networks' 2.5-3), row-major ids, diameter in the
  thousands; roots are drawn from its largest component;
* ``web``: a directed web-like graph: out-degrees from a Pareto law (shape 1.6, mean ~16, a
  tenth of the pages without links), 60% of links local (a geometric hop to a nearby id, as
  in host-ordered crawls) and 40% to popular pages (popularity rank ~ U^4, ranks shuffled):
  power-law in-degrees with hubs, a giant strongly connected core.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

import breadth

KINDS = ("kron", "urand", "grid", "road", "web")


def grid_edges(side, keep=1.0, seed=1):
    """Edges of a side x side 4-neighbour mesh (vertex r * side + c); each kept with probability keep."""
    ids = np.arange(side * side, dtype=np.int64).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    if keep < 1.0:
        mask = np.random.default_rng(seed).random(src.size) < keep
        src, dst = src[mask], dst[mask]
    return src, dst


def web_edges(scale, degree=16, seed=1):
    """Directed web-like edges on 2^scale vertices (see the module docstring)."""
    n = 1 << scale
    rng = np.random.default_rng(seed)
    shape = 1.6
    xm = degree * (shape - 1) / shape / 0.9            # mean degree over the 90% that link
    out = np.floor(xm * (1.0 - rng.random(n)) ** (-1.0 / shape)).astype(np.int64)
    np.minimum(out, n // 16, out=out)
    out[rng.random(n) < 0.1] = 0
    src = np.repeat(np.arange(n, dtype=np.int64), out)
    m = src.size
    local = rng.random(m) < 0.6
    hop = rng.geometric(1.0 / 40.0, m) * np.where(rng.random(m) < 0.5, -1, 1)
    popular = rng.permutation(n)[np.minimum((n * rng.random(m) ** 4).astype(np.int64), n - 1)]
    dst = np.where(local, np.clip(src + hop, 0, n - 1), popular)
    return src, dst


def make(kind, scale, seed=1, side=1000):
    """(src, dst, n, directed) of one graph kind (``side``: the grid's side)."""
    if kind == "kron":
        src, dst = breadth.kronecker_edges(scale, 16, seed)
        return src, dst, 1 << scale, False
    if kind == "urand":
        src, dst = breadth.uniform_random_edges(scale, 16, seed)
        return src, dst, 1 << scale, False
    if kind == "grid":
        src, dst = grid_edges(side)
        return src, dst, side * side, False
    if kind == "road":
        s = int(round((1 << scale) ** 0.5))
        src, dst = grid_edges(s, keep=0.7, seed=seed)
        return src, dst, s * s, False
    if kind == "web":
        src, dst = web_edges(scale, 16, seed)
        return src, dst, 1 << scale, True
    raise ValueError(f"unknown graph kind {kind!r} (one of {', '.join(KINDS)})")


def root_candidates(kind, g):
    """Vertices roots are drawn from: out-degree >= 1 (GAP's rule); the largest component for ``road``."""
    if kind == "road":
        comp = breadth.connected_components(g)
        return comp.members(comp.largest)
    return np.flatnonzero(g.out_degree() > 0)


def write_sg(path, g):
    """GAP's serialized graph: bool directed, int64 arcs, int64 n, int64 offsets, int32 neighbours
    (a directed graph's in-edge offsets and neighbours follow in the same layout)."""
    with open(path, "wb") as f:
        f.write(np.bool_(g.directed).tobytes())
        f.write(np.int64(g.num_arcs).tobytes())
        f.write(np.int64(g.num_vertices).tobytes())
        parts = [(g.indptr, g.indices)] + ([(g.in_indptr, g.in_indices)] if g.directed else [])
        for indptr, indices in parts:
            f.write(np.ascontiguousarray(indptr, dtype=np.int64).tobytes())
            f.write(np.ascontiguousarray(indices, dtype=np.int32).tobytes())


@njit(cache=True)
def _digits(x, buf, p):
    if x == 0:
        buf[p] = 48
        return p + 1
    k = 0
    y = x
    while y > 0:
        k += 1
        y //= 10
    for i in range(k - 1, -1, -1):
        buf[p + i] = 48 + x % 10
        x //= 10
    return p + k


@njit(parallel=True, cache=True)
def _format_el(src, dst, chunks):
    """Text "u v\\n" lines, formatted in parallel chunks; returns (bytes, chunk lengths)."""
    m = src.size
    nchunks = chunks.size
    buf = np.empty(m * 24 + 1, dtype=np.uint8)
    for c in prange(nchunks):
        lo = m * c // nchunks
        hi = m * (c + 1) // nchunks
        p = lo * 24
        for e in range(lo, hi):
            p = _digits(src[e], buf, p)
            buf[p] = 32
            p = _digits(dst[e], buf, p + 1)
            buf[p] = 10
            p += 1
        chunks[c] = p - lo * 24
    return buf


def write_el(path, src, dst):
    """GAP's text edge list: one "u v" line per edge, 0-based ids."""
    nchunks = 64
    chunks = np.empty(nchunks, dtype=np.int64)
    buf = _format_el(src, dst, chunks)
    m = src.size
    with open(path, "wb") as f:
        for c in range(nchunks):
            lo = m * c // nchunks * 24
            f.write(buf[lo:lo + chunks[c]].tobytes())
