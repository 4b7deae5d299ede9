"""MPI test driver of the streamed distributed build, run by tests/distributed/test_stream_build.py
under ``mpiexec -n P python tests/distributed/driver_stream.py SCALE CHUNK``.

For a Kronecker graph of SCALE (undirected and directed), every rank builds its share twice: from
its tuple arrays (``build_ranges``) and streamed in rounds of CHUNK tuples (``build_ranges_stream``), and
checks the two LocalGraphs are identical (partition, every CSR array, tuple degrees) and that its
rows equal the single-node graph's rows. Then the engine runs the Graph500 kernels streamed and from
tuple arrays, with the 1D and the delegates layouts, every tree validated, and compares the results. Prints "OK ..." lines on rank 0; a failed check raises.
"""
import sys

import numpy as np

import breadth
from breadth.distributed.comm import Comm
from breadth.distributed.engine import DistEngine
from breadth.distributed.owned.build import build_ranges, tuple_share
from breadth.distributed.owned.stream_build import build_ranges_stream, rounds
from breadth.distributed.runtime import install_abort_hook
from breadth.graph.generators import GeneratedTuples, kronecker_edges
from breadth.graph500.engine import tuple_degree


def same(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b):
        raise AssertionError(f"{what}: {a.dtype}{a.shape} differs from {b.dtype}{b.shape}")


def compare(comm, scale, chunk, directed):
    n, m = 1 << scale, 16 << scale
    start, stop = tuple_share(m, comm.rank, comm.size)
    src, dst = kronecker_edges(scale, 16, 7, start, stop)
    old = build_ranges(comm, src, dst, n, directed)
    new, sec = build_ranges_stream(comm, GeneratedTuples("kronecker", scale, 16, 7), n, directed, chunk=chunk)
    assert set(sec) == {"generation", "regeneration", "construction"} and min(sec.values()) >= 0
    same(new.partition.bounds, old.partition.bounds, "partition bounds")
    for name in ("indptr", "indices", "in_indptr", "in_indices", "tuple_degree"):
        same(getattr(new, name), getattr(old, name), name)
    full_s, full_d = kronecker_edges(scale, 16, 7)
    g = breadth.Graph.from_edges(full_s, full_d, num_vertices=n, directed=directed)
    lo, hi = new.partition.lo, new.partition.hi
    rows = np.asarray(g.indptr[lo:hi + 1], dtype=np.int64)
    same(new.indptr, rows - rows[0], "indptr vs single node")
    same(new.indices.astype(np.int64), np.asarray(g.indices[rows[0]:rows[-1]], dtype=np.int64),
         "indices vs single node")
    same(new.tuple_degree, tuple_degree(full_s, full_d, n)[lo:hi] if not directed else new.tuple_degree, "tuple degree")
    if comm.rank == 0:
        print(f"OK scale {scale} chunk {chunk} ({rounds(m, comm.size, chunk)} rounds) directed={directed}",
              flush=True)


def engine(comm, scale):
    from breadth.graph500.benchmark import Graph500Config, run_benchmark

    results = {}
    for partition in ("1d", "delegates"):
        for streaming in (False, True):
            eng = DistEngine(comm=comm, streaming=streaming, partition=partition)
            res = run_benchmark(Graph500Config(scale=scale, edgefactor=16, nroots=4, seed=3), eng, progress=False)
            assert eng.describe()["streaming"] is streaming
            assert (eng.kernel_times() is not None) == streaming
            assert res.config.validate and len(res.validate_times) == 4       # every tree validated
            results[partition, streaming] = (list(res.nedges), res.roots, res.graph["edges"])
    assert len(set(map(repr, results.values()))) == 1, results
    if comm.rank == 0:
        print(f"OK engine scale {scale} nedge {results['1d', True][0]} (1d and delegates)", flush=True)


if __name__ == "__main__":
    comm = Comm()
    install_abort_hook(comm)
    scale, chunk = int(sys.argv[1]), int(sys.argv[2])
    for directed in (False, True):
        compare(comm, scale, chunk, directed)
    engine(comm, scale)
