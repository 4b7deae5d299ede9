"""MPI test driver of the streamed 2D build, run by tests/distributed/test_2d_stream_build.py under
``mpiexec -n P python tests/distributed/driver_stream_2d.py GRID SCALE CHUNK``.

For a Kronecker graph of SCALE (undirected and directed) on the R x C grid GRID, every rank builds
its block twice: from its tuple arrays (``build_2d``) and streamed in rounds of CHUNK tuples
(``build_2d_stream``), and checks the two BlockGraphs are identical (pieces, both block CSRs, owned
degrees, tuple degrees) and that its owned tuple degrees are the single-node count. Then, per 2D
exchange (fold, scan), engines built streamed and from tuple arrays search the same roots: the
streamed engine's depths equal ``breadth.bfs`` on the single-node graph, its trees pass the 2D
validator and ``breadth.validate``, and both engines count the same ``nedge``; and the Graph500
benchmark (validation on) gives the same roots and ``nedge`` streamed and from tuple arrays.
Prints "OK ..." lines on rank 0; a failed check raises, which aborts the job.
"""
import os
import sys

import numpy as np

import breadth
from breadth.distributed.comm import Comm
from breadth.distributed.engine import DistEngine
from breadth.distributed.owned.build import tuple_share
from breadth.distributed.owned.stream_build import rounds
from breadth.distributed.runtime import install_abort_hook
from breadth.distributed.two_d.build import build_2d
from breadth.distributed.two_d.stream_build import build_2d_stream
from breadth.graph.generators import GeneratedTuples, kronecker_edges
from breadth.graph500.engine import tuple_degree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver_stream import same  # noqa: E402

SEED = 7


def compare(comm, grid, scale, chunk, directed):
    n, m = 1 << scale, 16 << scale
    start, stop = tuple_share(m, comm.rank, comm.size)
    src, dst = kronecker_edges(scale, 16, SEED, start, stop)
    old = build_2d(comm, src, dst, n, directed, grid)
    new, sec = build_2d_stream(comm, GeneratedTuples("kronecker", scale, 16, SEED), n, directed, grid, chunk=chunk)
    assert set(sec) == {"generation", "regeneration", "construction"} and min(sec.values()) >= 0, sec
    same(new.partition.bounds, old.partition.bounds, "pieces")
    assert (new.partition.rows, new.partition.cols) == (old.partition.rows, old.partition.cols)
    assert type(new) is type(old) and new.directed == directed
    for name in ("indptr", "indices", "in_indptr", "in_indices", "owned_out", "tuple_degree"):
        same(getattr(new, name), getattr(old, name), name)
    if directed:
        same(new.owned_in, old.owned_in, "owned_in")
    else:
        assert new.owned_in is None and old.owned_in is None
    assert new.row_comm.size == new.partition.cols and new.col_comm.size == new.partition.rows
    full_s, full_d = kronecker_edges(scale, 16, SEED)
    same(new.tuple_degree, tuple_degree(full_s, full_d, n)[new.partition.lo:new.partition.hi], "tuple degree")
    g = breadth.Graph.from_edges(full_s, full_d, num_vertices=n, directed=directed)
    grid_ = new.partition
    rows = np.asarray(g.indptr[grid_.lo:grid_.hi + 1], dtype=np.int64)
    same(new.owned_out, np.diff(rows), "owned out-degree vs single node")
    if comm.rank == 0:
        print(f"OK build {grid} scale {scale} chunk {chunk} ({rounds(m, comm.size, chunk)} rounds) "
              f"directed={directed}", flush=True)


def searches(comm, grid, scale, directed):
    n = 1 << scale
    full_s, full_d = kronecker_edges(scale, 16, SEED)
    g = breadth.Graph.from_edges(full_s, full_d, num_vertices=n, directed=directed)
    deg = g.out_degree()
    roots = [int(v) for v in np.flatnonzero(deg > 0)[[0, -1]]] + [int(np.argmax(deg))]
    for exchange in ("fold", "scan"):
        nedges = {}
        for streaming in (True, False):
            eng = DistEngine(comm=comm, partition="2d", exchange=exchange, params={"grid": grid},
                             directed=directed, threads=1, streaming=streaming)
            eng.generate(scale, 16, SEED)
            eng.construct()
            eng.after_construct()
            assert eng.describe()["streaming"] is streaming
            assert (eng.kernel_times() is not None) == streaming
            nedges[streaming] = []
            for root in roots:
                result = eng.search(root)
                eng.validate(root, result)
                nedges[streaming].append(eng.nedge(result))
                full = eng.gather(result)
                if comm.rank == 0 and streaming:
                    ref = breadth.bfs(g, root)
                    bad = np.flatnonzero(full.depth != ref.depth)
                    assert bad.size == 0, (grid, exchange, directed, root, bad[:5])
                    breadth.validate(g, root, full.parent, full.depth)
        assert nedges[True] == nedges[False], nedges
        if comm.rank == 0:
            print(f"OK search {grid} {exchange} directed={directed} nedge {nedges[True]}", flush=True)


def benchmark(comm, grid, scale, directed):
    from breadth.graph500.benchmark import Graph500Config, run_benchmark

    for exchange in ("fold", "scan"):
        results = {}
        for streaming in (False, True):
            eng = DistEngine(comm=comm, partition="2d", exchange=exchange, params={"grid": grid},
                             directed=directed, threads=1, streaming=streaming)
            res = run_benchmark(Graph500Config(scale=scale, edgefactor=16, nroots=4, seed=3), eng, progress=False)
            results[streaming] = (list(res.nedges), res.roots, res.graph["edges"])
        assert results[True] == results[False], results
        if comm.rank == 0:
            print(f"OK graph500 {grid} {exchange} directed={directed} nedge {results[True][0]}", flush=True)


if __name__ == "__main__":
    comm = Comm()
    install_abort_hook(comm)
    grid, scale, chunk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for directed in (False, True):
        compare(comm, grid, scale, chunk, directed)
        searches(comm, grid, scale, directed)
        benchmark(comm, grid, scale, directed)
