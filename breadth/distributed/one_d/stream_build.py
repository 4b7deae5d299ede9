"""Streaming distributed construction: each rank's share of a generated graph's tuples routed in
rounds, never held whole.

A ``graph.stream.TupleSource`` hands out any slice of the tuple list on demand (the counter-based
generator regenerates it), so rank r works on its share [m*r/P, m*(r+1)/P) (``tuple_share``) in
``rounds`` slices of at most ``CHUNK`` tuples, every rank the same number of rounds (each round
is one collective ``Alltoallv``):

1. partition: the block histogram (``partition.block_weights``) summed over the rounds, one
   Allreduce, the edge-balanced ranges (the same partition as ``build_1d``'s);
2. count: each round's arcs are packed by owner (``build.pack_arcs``) and routed; each rank adds the
   arcs it receives to its rows' raw degrees, which give ``indptr`` (and the Graph500 TEPS count);
3. place: the tuples are regenerated and routed again; each rank writes the targets it receives at
   its rows' cursors in the preallocated ``indices``;
4. sort, deduplicate and compact the rows in place (``graph.rowsort.sort_compact``).

The local CSR is row for row ``build_1d``'s (sorted, deduplicated, self-loop free). A rank's peak is
its ``indices`` before deduplication, a few int64 arrays per owned row, and one round's buffers
(its tuples, the packed arcs and the received arcs), instead of its whole tuple share and twice its
routed arcs.
"""
from __future__ import annotations

import time

import numba
import numpy as np

from ...graph.rowsort import sort_compact
from ..partition import OneD, block_weights
from .build import LocalGraph, _rows, pack_arcs, tuple_share, vertex_dtype

CHUNK = 1 << 22          # tuples per rank and round: 64 MiB of int64 tuples, about as much of packed arcs


def rounds(num_tuples: int, nprocs: int, chunk: int = CHUNK) -> int:
    """Routing rounds of a streamed build: enough that the largest share's slices hold at most ``chunk``."""
    largest = -(-int(num_tuples) // max(1, nprocs))
    return max(1, -(-largest // max(1, int(chunk))))


class _Share:
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


def _received_rows(pairs, pmap, nl):
    """Arcs per local row among received (src, dst) pairs, per counting chunk: (nchunks, nl) int64."""
    m = pairs.size // 2
    nchunks = max(1, min(numba.get_num_threads(), m // max(nl, 1) + 1))
    counts = np.zeros((nchunks, nl), dtype=np.int64)
    if m:
        _rows(pairs, pmap, counts, np.empty(0, dtype=pairs.dtype), False)
    return counts


def _stream_csr(comm, share, partition, swap, both, vdt, id_bound):
    """(indptr, indices, raw degree per row) of the arcs key->other (keys: the tuples' sources, or
    their targets when ``swap``; ``both``: also other->key), routed round by round in two passes."""
    nl = partition.num_local
    pmap = partition.kernel_map()

    def routed():
        for src, dst in share.passes():
            keys, others = (dst, src) if swap else (src, dst)
            send, per_rank = pack_arcs(keys, others, partition, both, vdt)
            pairs, _ = comm.alltoallv(send, 2 * per_rank)
            del send
            yield pairs

    raw = np.zeros(nl, dtype=np.int64)
    for pairs in routed():                                        # count pass
        raw += _received_rows(pairs, pmap, nl).sum(axis=0)
    indptr = np.zeros(nl + 1, dtype=np.int64)
    np.cumsum(raw, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=vdt)
    cursor = indptr[:-1].copy()
    for pairs in routed():                                        # place pass
        counts = _received_rows(pairs, pmap, nl)
        if pairs.size:
            pos = np.cumsum(counts, axis=0) - counts + cursor    # each counting chunk's first slot per row
            _rows(pairs, pmap, pos, indices, True)
            cursor += counts.sum(axis=0)
    del cursor
    indices = sort_compact(indptr, indices, nl, id_bound=id_bound)
    return indptr, indices, raw


def build_1d_stream(comm, source, num_vertices, directed=False, chunk=CHUNK) -> tuple[LocalGraph, dict]:
    """Edge-balanced 1D construction from ``source`` (a ``TupleSource``), this rank's share streamed.

    Returns (the LocalGraph, seconds: {"generation": the first pass's tuple generation, "regeneration":
    the later passes', "construction": the rest}).
    """
    t0 = time.perf_counter()
    n = int(num_vertices)
    share = _Share(source, comm.rank, comm.size, chunk)
    weights = np.zeros((n + 63) // 64, dtype=np.int64)
    for src, dst in share.passes():
        weights += block_weights(src, dst, n)
    partition = OneD.from_weights(comm.allreduce(weights), n, comm.size, comm.rank)
    vdt = vertex_dtype(n)
    indptr, indices, tdeg = _stream_csr(comm, share, partition, False, not directed, vdt, n)
    if not directed:
        lg = LocalGraph(partition, indptr, indices, tuple_degree=tdeg)
    else:
        in_indptr, in_indices, in_tdeg = _stream_csr(comm, share, partition, True, False, vdt, n)   # v <- u
        lg = LocalGraph(partition, indptr, indices, in_indptr, in_indices, directed=True,
                        tuple_degree=tdeg + in_tdeg)
    fills = share.fill_seconds
    wall = time.perf_counter() - t0
    return lg, {"generation": fills[0], "regeneration": sum(fills[1:]), "construction": wall - sum(fills)}
