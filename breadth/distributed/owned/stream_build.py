"""Streaming distributed construction: each rank's share of a generated graph's tuples routed in
rounds, never held whole.

A ``graph.stream.TupleSource`` hands out any slice of the tuple list on demand (the counter-based
generator regenerates it), so rank r works on its share [m*r/P, m*(r+1)/P) (``tuple_share``) in
``rounds`` slices of at most ``CHUNK`` tuples, every rank the same number of rounds (each round
is one collective ``Alltoallv``):

1. partition: the block histogram (``owned.partition.block_weights``) summed over the rounds, one
   Allreduce, the edge-balanced ranges (the same partition as ``build.build_ranges``'s);
2. count: each round's arcs are packed by owner (``build.pack_arcs``) and routed; each rank adds the
   arcs it receives to its rows' raw degrees, which give ``indptr`` (and the Graph500 TEPS count);
3. place: the tuples are regenerated and routed again; each rank writes the targets it receives at
   its rows' cursors in the preallocated ``indices``;
4. sort, deduplicate and compact the rows in place (``graph.rowsort.sort_compact``).

The local CSR is row for row ``build_ranges``'s (sorted, deduplicated, self-loop free). A rank's peak is
its ``indices`` before deduplication, a few int64 arrays per owned row, and one round's buffers
(its tuples, the packed arcs and the received arcs), instead of its whole tuple share and twice its
routed arcs.

The share (``TupleShare``: rounds, the partition pass, the time split) and the two routing passes
(``stream_csrs``: any routing, one CSR per view of the received arcs) are shared with the 2D
streamed build (``two_d.stream_build``).
"""
from __future__ import annotations

import time

import numba
import numpy as np

from ...graph.rowsort import sort_compact
from .build import LocalGraph, _rows, pack_arcs, tuple_share, vertex_dtype
from .partition import Ranges, block_weights

CHUNK = 1 << 22          # tuples per rank and round: 64 MiB of int64 tuples, about as much of packed arcs


def rounds(num_tuples: int, nprocs: int, chunk: int = CHUNK) -> int:
    """Routing rounds of a streamed build: enough that the largest share's slices hold at most ``chunk``."""
    largest = -(-int(num_tuples) // max(1, nprocs))
    return max(1, -(-largest // max(1, int(chunk))))


class TupleShare:
    """This rank's tuple share as ``nrounds`` slices, filled into reused buffers; times the fills."""

    def __init__(self, source, rank, nprocs, chunk):
        self.source = source
        self.start, self.stop = tuple_share(int(source.num_tuples), rank, nprocs)
        self.nrounds = rounds(source.num_tuples, nprocs, chunk)
        width = -(-(self.stop - self.start) // self.nrounds)
        self.src = np.empty(width, dtype=np.int64)
        self.dst = np.empty(width, dtype=np.int64)
        self.fill_seconds = []           # one entry per pass over the share

    def passes(self):
        """Each round's (src, dst) views; a new pass over the share each call."""
        self.fill_seconds.append(0.0)
        k = self.stop - self.start
        for i in range(self.nrounds):
            a = self.start + k * i // self.nrounds
            b = self.start + k * (i + 1) // self.nrounds
            t0 = time.perf_counter()
            self.source.fill(a, b, self.src, self.dst)
            self.fill_seconds[-1] += time.perf_counter() - t0
            yield self.src[:b - a], self.dst[:b - a]

    def weights(self, comm, num_vertices):
        """The block histogram (``owned.partition.block_weights``) of the whole graph: this rank's summed over
        one pass, then over the ranks (one Allreduce). Collective."""
        weights = np.zeros((int(num_vertices) + 63) // 64, dtype=np.int64)
        for src, dst in self.passes():
            weights += block_weights(src, dst, num_vertices)
        return comm.allreduce(weights)

    def seconds(self, t0):
        """{"generation": the first pass's tuple generation, "regeneration": the later passes',
        "construction": the rest of the wall time since ``t0``}."""
        fills = self.fill_seconds
        wall = time.perf_counter() - t0
        return {"generation": fills[0], "regeneration": sum(fills[1:]), "construction": wall - sum(fills)}


def _received_rows(pairs, rows, key):
    """Arcs per row of ``rows`` among received (src, dst) pairs, the row that of the source (``key``
    0) or of the target (``key`` 1), per counting chunk: (nchunks, rows.num_local) int64."""
    m, nl = pairs.size // 2, rows.num_local
    nchunks = max(1, min(numba.get_num_threads(), m // max(nl, 1) + 1))
    counts = np.zeros((nchunks, nl), dtype=np.int64)
    if m:
        _rows(pairs, rows.kernel_map(), counts, np.empty(0, dtype=pairs.dtype), False, key)
    return counts


def stream_csrs(comm, share, pack, views, vdt, id_bound):
    """CSRs of the arcs that ``pack(src, dst) -> (pairs, pair counts per rank)`` routes, round by round
    in two passes over ``share`` (count, then place), one CSR per view (rows, key): ``rows`` has
    ``num_local`` and ``kernel_map()``, ``key`` 0 files a received arc under its source's row, 1 under
    its target's. Returns [(indptr, sorted deduplicated indices, raw arcs per row)] per view."""

    def routed():
        for src, dst in share.passes():
            send, per_rank = pack(src, dst)
            pairs, _ = comm.alltoallv(send, 2 * per_rank)
            del send
            yield pairs

    raws = [np.zeros(rows.num_local, dtype=np.int64) for rows, _ in views]
    for pairs in routed():                                        # count pass
        for raw, (rows, key) in zip(raws, views):
            raw += _received_rows(pairs, rows, key).sum(axis=0)
    indptrs, indices, cursors = [], [], []
    for raw in raws:
        indptr = np.zeros(raw.size + 1, dtype=np.int64)
        np.cumsum(raw, out=indptr[1:])
        indptrs.append(indptr)
        indices.append(np.empty(int(indptr[-1]), dtype=vdt))
        cursors.append(indptr[:-1].copy())
    for pairs in routed():                                        # place pass
        for (rows, key), out, cursor in zip(views, indices, cursors):
            counts = _received_rows(pairs, rows, key)
            if pairs.size:
                pos = np.cumsum(counts, axis=0) - counts + cursor    # each counting chunk's first slot per row
                _rows(pairs, rows.kernel_map(), pos, out, True, key)
                cursor += counts.sum(axis=0)
    del cursors
    csrs = []
    for indptr, raw in zip(indptrs, raws):
        csrs.append((indptr, sort_compact(indptr, indices.pop(0), raw.size, id_bound=id_bound), raw))
    return csrs


def _stream_csr(comm, share, partition, swap, both, vdt, id_bound):
    """(indptr, indices, raw degree per row) of the arcs key->other (keys: the tuples' sources, or
    their targets when ``swap``; ``both``: also other->key), routed to their keys' owners."""

    def pack(src, dst):
        keys, others = (dst, src) if swap else (src, dst)
        return pack_arcs(keys, others, partition, both, vdt)

    return stream_csrs(comm, share, pack, [(partition, 0)], vdt, id_bound)[0]


def build_ranges_stream(comm, source, num_vertices, directed=False, chunk=CHUNK,
                        cls=Ranges) -> tuple[LocalGraph, dict]:
    """Edge-balanced ranges' construction (a ``cls`` partition) from ``source`` (a ``TupleSource``),
    this rank's share streamed.

    Returns (the LocalGraph, seconds: {"generation": the first pass's tuple generation, "regeneration":
    the later passes', "construction": the rest}).
    """
    t0 = time.perf_counter()
    n = int(num_vertices)
    share = TupleShare(source, comm.rank, comm.size, chunk)
    partition = cls.from_weights(share.weights(comm, n), n, comm.size, comm.rank)
    vdt = vertex_dtype(n)
    indptr, indices, tdeg = _stream_csr(comm, share, partition, False, not directed, vdt, n)
    if not directed:
        lg = LocalGraph(partition, indptr, indices, tuple_degree=tdeg)
    else:
        in_indptr, in_indices, in_tdeg = _stream_csr(comm, share, partition, True, False, vdt, n)   # v <- u
        lg = LocalGraph(partition, indptr, indices, in_indptr, in_indices, directed=True,
                        tuple_degree=tdeg + in_tdeg)
    return lg, share.seconds(t0)
