"""Distributed construction of a 2D-partitioned graph (``two_d.grid.Grid2D``): edge blocks, owned degrees.

As for 1D (``owned.build``), each rank starts from its own share of the edge tuples and no
rank ever holds the whole edge list:

1. partition: block histograms of the tuples' endpoints, one Allreduce, the same
   edge-balanced 64-aligned pieces as 1D (``owned.partition.balanced_bounds``), laid out on
   the R x C grid;
2. routing: every non-self-loop tuple (u, v) becomes the arc u -> v (undirected: also
   v -> u) for the rank holding its block, P(row of v, column of u); arcs are packed by
   destination rank with a parallel counting sort and moved with one ``Alltoallv``;
3. block CSRs: the received arcs by source (out-arcs; rows = column-range offsets) and
   by destination (in-arcs; rows = row-range offsets), both with the core builder's
   sort/dedupe (``owned.build.local_csr``), so every list is sorted and duplicate free and the
   blocks together hold exactly the single-node graph's arcs;
4. owned vertex data: a vertex's arcs are spread over a processor column (out-arcs) and
   a processor row (in-arcs), so its degree -- which the owners need for the
   direction policy's scout counts (B2D Section VI: "a dense distributed vector") --
   and its Graph500 tuple degree are block counts summed along the column (Allreduce,
   then the piece sent back to its owner: the inverse transpose) and along the row
   (Allreduce; the owner sits in that row).

A native ``.npz`` needs no routing: each rank maps the file and copies the part of its
column range's rows that falls in its row range (and, directed, of its row range's
in-rows), plus its own vertices' degrees.

The row and column communicators (``Comm.split``, counted in the job's tallies) are
made here once and kept with the graph for the searches.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from ...errors import InputError
from ...jit import njit
from ..owned.build import LocalGraph, counting_pack, local_csr, route_arcs, vertex_dtype
from ..owned.partition import RangeMap, block_weights
from .grid import Grid2D, parse_grid


class BlockGraph(LocalGraph):
    """This rank's edge block of a 2D-partitioned graph, and the degrees of the vertices it owns.

    ``indptr``/``indices``: out-arcs of the block (row = source - ``col_lo``, entries global
    destination ids in the row range); ``in_indptr``/``in_indices``: the same arcs by
    destination (row = destination - ``row_lo``, entries global source ids in the column
    range). ``out_degree()``/``any_degree()``/``tuple_degree`` are per *owned* vertex, over
    the whole graph. ``row_comm``/``col_comm``: this rank's processor row and column.
    """

    def __init__(self, partition: Grid2D, indptr, indices, in_indptr, in_indices, *, directed, owned_out,
                 owned_in, tuple_degree, row_comm, col_comm):
        self.partition = partition
        self.num_vertices = partition.num_vertices
        self.directed = bool(directed)
        self.indptr, self.indices = indptr, indices
        self.in_indptr, self.in_indices = in_indptr, in_indices
        self.owned_out = owned_out
        self.owned_in = owned_in
        self.tuple_degree = tuple_degree
        self.vid_dtype = vertex_dtype(self.num_vertices)
        self.row_comm, self.col_comm = row_comm, col_comm

    def out_degree(self) -> np.ndarray:
        return self.owned_out

    def any_degree(self) -> np.ndarray:
        return self.owned_out + self.owned_in if self.directed else self.owned_out

    def key_degree(self) -> np.ndarray:
        """Out-degree of the owned vertices: a search key needs an edge to leave by."""
        return self.owned_out

    @property
    def nbytes(self) -> int:
        total = self.indptr.nbytes + self.indices.nbytes + self.in_indptr.nbytes + self.in_indices.nbytes
        return total + self.owned_out.nbytes + self.tuple_degree.nbytes + (self.owned_in.nbytes if self.directed else 0)


class _Rows:
    """What ``owned.build.local_csr`` asks of a partition, for the rows [lo, hi) of a block."""

    def __init__(self, bounds, lo, hi):
        self.bounds, self.lo, self.hi = bounds, int(lo), int(hi)
        self.num_local = self.hi - self.lo

    def kernel_map(self) -> RangeMap:
        return RangeMap(self.bounds, self.lo, self.hi)


def grid_comms(comm, grid: Grid2D):
    """(row, column) sub-communicators of ``comm``: ranks ordered by grid column / grid row. Collective."""
    return comm.split(grid.i, key=grid.j), comm.split(grid.j, key=grid.i)


# ---------------------------------------------------------------------- routing
@njit(inline="always", cache=True)
def _piece(bounds, v):
    return np.searchsorted(bounds, v, side="right") - 1


@njit(inline="always", cache=True)
def _blocks(grid, s, d, both):
    """Arc s -> d goes to the block rank P(row(d), col(s)), its reverse to P(row(s), col(d))."""
    bounds, R, C = grid
    ps = _piece(bounds, s)
    pd = _piece(bounds, d)
    return (pd // C) * C + ps // R, (ps // C) * C + pd // R


@njit(parallel=True, cache=True)
def _route(src, dst, grid, both, rows, out, write):
    route_arcs(src, dst, _blocks, grid, both, rows, out, write)


def pack_blocks(src, dst, grid: Grid2D, both, dtype):
    """Arcs grouped by the rank holding their block: (interleaved pairs, pair counts per rank)."""
    return counting_pack(_route, (grid.bounds, grid.rows, grid.cols), src, dst, both, grid.nprocs, dtype)


# ---------------------------------------------------------------------- owned sums
def column_to_owners(comm, col_comm, grid: Grid2D, values) -> np.ndarray:
    """Per owned vertex, ``values`` (per column-range vertex, rows of int64) summed over the processor
    column: an Allreduce along the column, then each rank sends the piece it stands for in the
    transpose back to that piece's owner (one point-to-point message unless it is its own)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    summed = col_comm.allreduce(values, category="exchange")
    q = grid.transpose_source(grid.rank)
    a, b = int(grid.bounds[q]) - grid.col_lo, int(grid.bounds[q + 1]) - grid.col_lo
    send = np.ascontiguousarray(summed[:, a:b])
    recv = np.empty((values.shape[0], grid.num_local), dtype=np.int64)
    got = comm.sendrecv(send.ravel(), q, recv.ravel(), grid.transposed(grid.rank))
    if got != recv.size:
        raise RuntimeError(f"column sums: expected {recv.size} values, received {got}")
    return recv


def row_to_owners(row_comm, grid: Grid2D, values) -> np.ndarray:
    """Per owned vertex, ``values`` (per row-range vertex) summed over the processor row (Allreduce)."""
    summed = row_comm.allreduce(np.ascontiguousarray(values, dtype=np.int64), category="exchange")
    return np.ascontiguousarray(summed[..., grid.lo - grid.row_lo:grid.hi - grid.row_lo])


def _owned(comm, row_comm, col_comm, grid, out_indptr, out_raw, in_indptr, in_raw, directed):
    """(owned out-degree, owned in-degree or None, owned tuple degree)."""
    col = column_to_owners(comm, col_comm, grid, np.vstack([np.diff(out_indptr), out_raw]))
    out_deg, tdeg = col[0].copy(), col[1].copy()
    if not directed:
        return out_deg, None, tdeg
    row = row_to_owners(row_comm, grid, np.vstack([np.diff(in_indptr), in_raw]))
    return out_deg, row[0].copy(), tdeg + row[1]


# ---------------------------------------------------------------------- construction
def partition_2d(comm, src, dst, num_vertices, grid_spec) -> Grid2D:
    """The pieces agreed by all ranks from their local tuples (one Allreduce), on the grid ``grid_spec``."""
    R, C = parse_grid(grid_spec, comm.size)
    weights = comm.allreduce(block_weights(src, dst, num_vertices))
    return Grid2D.from_weights(weights, num_vertices, comm.size, comm.rank, R, C)


def build_2d(comm, src, dst, num_vertices, directed=False, grid_spec=None) -> BlockGraph:
    """Route this rank's tuples to the blocks of their arcs and build its block and owned degrees."""
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    grid = partition_2d(comm, src, dst, num_vertices, grid_spec)
    vdt = vertex_dtype(num_vertices)
    send, per_rank = pack_blocks(src, dst, grid, not directed, vdt)
    pairs, _ = comm.alltoallv(send, 2 * per_rank)
    del send
    swapped = np.empty_like(pairs)
    swapped[0::2] = pairs[1::2]
    swapped[1::2] = pairs[0::2]
    out_csr = local_csr(pairs, out_rows(grid), vdt)
    del pairs
    in_csr = local_csr(swapped, in_rows(grid), vdt)
    del swapped
    return block_graph(comm, grid, out_csr, in_csr, directed)


def out_rows(grid: Grid2D) -> _Rows:
    """The rows of the block's out-arc CSR: the column range."""
    return _Rows(grid.bounds, grid.col_lo, grid.col_hi)


def in_rows(grid: Grid2D) -> _Rows:
    """The rows of the block's in-arc CSR: the row range."""
    return _Rows(grid.bounds, grid.row_lo, grid.row_hi)


def block_graph(comm, grid, out_csr, in_csr, directed) -> BlockGraph:
    """This rank's BlockGraph from its block's CSRs by source and by destination, each (indptr, indices,
    raw arcs per row): the row and column communicators made, the owned degrees summed. Collective."""
    (indptr, indices, out_raw), (in_indptr, in_indices, in_raw) = out_csr, in_csr
    row_comm, col_comm = grid_comms(comm, grid)
    out_deg, in_deg, tdeg = _owned(comm, row_comm, col_comm, grid, indptr, out_raw, in_indptr, in_raw, directed)
    return BlockGraph(grid, indptr, indices, in_indptr, in_indices, directed=directed, owned_out=out_deg,
                      owned_in=in_deg, tuple_degree=tdeg, row_comm=row_comm, col_comm=col_comm)


@njit(parallel=True, cache=True)
def _keep_counts(indptr, indices, a, lo, hi, counts):
    for r in prange(counts.size):
        c = 0
        for k in range(indptr[r] - a, indptr[r + 1] - a):
            x = indices[k]
            if lo <= x < hi:
                c += 1
        counts[r] = c


@njit(parallel=True, cache=True)
def _keep_write(indptr, indices, a, lo, hi, out_ptr, out):
    for r in prange(out_ptr.size - 1):
        p = out_ptr[r]
        for k in range(indptr[r] - a, indptr[r + 1] - a):
            x = indices[k]
            if lo <= x < hi:
                out[p] = x
                p += 1


def _block_rows(indptr, indices, first, last, lo, hi, n, vdt, what):
    """Rows [first, last) of a (memory-mapped) CSR, keeping the entries in [lo, hi): (indptr, indices)."""
    a, b = int(indptr[first]), int(indptr[last])
    ptr = np.asarray(indptr[first:last + 1], dtype=np.int64)
    ids = np.array(indices[a:b], dtype=vdt)
    if ptr.size and (ptr[0] != a or np.any(np.diff(ptr) < 0)):
        raise InputError(f"{what}: indptr is not non-decreasing")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise InputError(f"{what}: neighbour id out of range [0, {n})")
    counts = np.empty(last - first, dtype=np.int64)
    _keep_counts(ptr, ids, a, lo, hi, counts)
    out_ptr = np.zeros(last - first + 1, dtype=np.int64)
    np.cumsum(counts, out=out_ptr[1:])
    out = np.empty(int(out_ptr[-1]), dtype=vdt)
    _keep_write(ptr, ids, a, lo, hi, out_ptr, out)
    return out_ptr, out


def slice_native_2d(comm, graph, grid_spec=None) -> BlockGraph:
    """This rank's block of a (memory-mapped) native graph: no routing, only its rows are read."""
    n = graph.num_vertices
    R, C = parse_grid(grid_spec, comm.size)
    ip = graph.indptr
    nblocks = (n + 63) // 64
    ends = np.minimum(np.arange(1, nblocks + 1) * 64, n)
    starts = np.arange(nblocks) * 64
    edges = np.asarray(ip[ends]) - np.asarray(ip[starts]) if nblocks else np.zeros(0, np.int64)
    if graph.directed:
        edges = edges + (np.asarray(graph.in_indptr[ends]) - np.asarray(graph.in_indptr[starts]))
    grid = Grid2D.from_weights(edges, n, comm.size, comm.rank, R, C)
    vdt = vertex_dtype(n)
    error = None
    try:
        indptr, indices = _block_rows(ip, graph.indices, grid.col_lo, grid.col_hi, grid.row_lo, grid.row_hi, n, vdt,
                                      "out-edges")
        in_ip, in_ix = (graph.in_indptr, graph.in_indices) if graph.directed else (ip, graph.indices)
        in_indptr, in_indices = _block_rows(in_ip, in_ix, grid.row_lo, grid.row_hi, grid.col_lo, grid.col_hi, n,
                                            vdt, "in-edges")
        out_deg = np.diff(np.asarray(ip[grid.lo:grid.hi + 1], dtype=np.int64))
        in_deg = np.diff(np.asarray(in_ip[grid.lo:grid.hi + 1], dtype=np.int64)) if graph.directed else None
    except InputError as exc:
        error = exc
    comm.agree(error)
    row_comm, col_comm = grid_comms(comm, grid)
    tdeg = out_deg + in_deg if graph.directed else out_deg.copy()
    return BlockGraph(grid, indptr, indices, in_indptr, in_indices, directed=graph.directed, owned_out=out_deg,
                      owned_in=in_deg, tuple_degree=tdeg, row_comm=row_comm, col_comm=col_comm)
