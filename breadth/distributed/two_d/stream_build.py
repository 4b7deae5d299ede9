"""Streaming 2D construction: each rank's share of a generated graph's tuples routed to the grid
blocks in rounds, never held whole.

The 1D streamed build's structure (``owned.stream_build``), on the R x C grid of ``two_d.build``:

1. partition: this rank's tuple share (``TupleShare``) regenerated in rounds of at most ``CHUNK``
   tuples, its block histogram summed over them, one Allreduce, the same pieces on the grid as
   ``build_2d``'s;
2. count: each round's arcs are packed by the rank holding their block (``build.pack_blocks``:
   u -> v to P(row of v, column of u), undirected also v -> u) and routed with one ``Alltoallv``;
   each rank adds the arcs it receives to the raw degrees of its column-range rows (by source) and
   of its row-range rows (by destination), which give both CSRs' ``indptr``;
3. place: the tuples are regenerated and routed again; each received arc is written at its source's
   cursor in the out-arc ``indices`` and at its destination's cursor in the in-arc ``indices``;
4. both CSRs' rows are sorted, deduplicated and compacted in place, and the owned degrees summed
   along the processor column and row (``build.block_graph``, as ``build_2d`` does).

The block is array for array ``build_2d``'s. The out-arc and in-arc CSRs hold the same arcs, so one
routing per pass fills both. A rank's peak is its two unsorted ``indices`` (the index itemsize per
arc of its block, twice), a few int64 arrays per row of its column and row ranges, and one round's
buffers, instead of its tuple share, the received arcs and their swapped copy.
"""
from __future__ import annotations

import time

from ..owned.build import vertex_dtype
from ..owned.stream_build import CHUNK, TupleShare, stream_csrs
from .build import BlockGraph, block_graph, in_rows, out_rows, pack_blocks
from .grid import Grid2D, parse_grid


def build_2d_stream(comm, source, num_vertices, directed=False, grid_spec=None,
                    chunk=CHUNK) -> tuple[BlockGraph, dict]:
    """2D construction on the grid ``grid_spec`` from ``source`` (a ``TupleSource``), this rank's share
    streamed. Collective.

    Returns (the BlockGraph, seconds: {"generation": the first pass's tuple generation,
    "regeneration": the later passes', "construction": the rest}).
    """
    t0 = time.perf_counter()
    n = int(num_vertices)
    R, C = parse_grid(grid_spec, comm.size)
    share = TupleShare(source, comm.rank, comm.size, chunk)
    grid = Grid2D.from_weights(share.weights(comm, n), n, comm.size, comm.rank, R, C)
    vdt = vertex_dtype(n)

    def pack(src, dst):
        return pack_blocks(src, dst, grid, not directed, vdt)

    out_csr, in_csr = stream_csrs(comm, share, pack, [(out_rows(grid), 0), (in_rows(grid), 1)], vdt, n)
    return block_graph(comm, grid, out_csr, in_csr, directed), share.seconds(t0)
