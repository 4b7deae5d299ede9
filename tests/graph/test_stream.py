"""The streaming CSR build: the same CSR as the tuple-list build, in bounded buffers."""
import numpy as np
import pytest

import breadth
from breadth.errors import MemoryEstimateError
from breadth.graph import memory, stream
from breadth.graph.generators import GeneratedTuples, kronecker_edges, streamed_graph, uniform_random_edges
from breadth.graph500.engine import tuple_degree


class Arrays(stream.TupleSource):
    def __init__(self, src, dst, n):
        self.s, self.d = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
        self.num_tuples, self.num_vertices = self.s.size, n
        self.calls = 0

    def fill(self, start, stop, src, dst):
        self.calls += 1
        src[:stop - start] = self.s[start:stop]
        dst[:stop - start] = self.d[start:stop]


@pytest.mark.parametrize("kind,make", [("kronecker", kronecker_edges), ("uniform", uniform_random_edges)])
@pytest.mark.parametrize("scale", [0, 1, 5, 12])
@pytest.mark.parametrize("directed", [False, True])
def test_same_graph_as_the_tuple_list_build(kind, make, scale, directed):
    src, dst = make(scale, 16, 7)
    ref = breadth.Graph.from_edges(src, dst, 1 << scale, directed=directed)
    g, raw, sec = streamed_graph(GeneratedTuples(kind, scale, 16, 7), directed)
    assert g.indices.dtype == ref.indices.dtype == np.int32
    assert np.array_equal(g.indptr, ref.indptr) and np.array_equal(g.indices, ref.indices)
    if directed:
        assert np.array_equal(g.in_indptr, ref.in_indptr) and np.array_equal(g.in_indices, ref.in_indices)
    assert g.build_info == ref.build_info
    assert np.array_equal(raw, tuple_degree(src, dst, 1 << scale))
    assert set(sec) >= {"fill", "refill", "build"}
    g.check()


@pytest.mark.parametrize("chunk", [1, 7, 1000, 1 << 22])
def test_chunk_size_does_not_change_the_result(chunk):
    src, dst = kronecker_edges(10, 16, 3)
    ref = breadth.Graph.from_edges(src, dst, 1024)
    source = Arrays(src, dst, 1024)
    indptr, indices, raw, loops, _ = stream.stream_csr(source, stream.BOTH, chunk=chunk)
    assert np.array_equal(indptr, ref.indptr) and np.array_equal(indices, ref.indices)
    assert loops == ref.build_info.self_loops
    assert source.calls == 2 * -(-src.size // chunk)      # two passes, chunk by chunk


@pytest.mark.parametrize("hub", [1, 4, 64])
@pytest.mark.parametrize("parallel_hubs", [True, False])
def test_hub_rows_sorted_like_the_rest(hub, parallel_hubs):
    rng = np.random.default_rng(5)
    n = 300
    deg = rng.integers(0, 200, size=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=indptr[1:])
    indices = rng.integers(0, n, size=int(indptr[-1])).astype(np.int32)
    rows = [np.unique(indices[indptr[v]:indptr[v + 1]]) for v in range(n)]
    out = stream._sort_compact(indptr, indices.copy(), n, hub, parallel_hubs)
    assert np.array_equal(np.diff(indptr), [r.size for r in rows])
    assert np.array_equal(out, np.concatenate(rows))


def test_empty_and_self_loop_only_sources():
    indptr, indices, raw, loops, _ = stream.stream_csr(Arrays([], [], 5), stream.BOTH)
    assert np.array_equal(indptr, np.zeros(6)) and indices.size == 0 and loops == 0
    indptr, indices, raw, loops, _ = stream.stream_csr(Arrays([2, 2, 4], [2, 2, 4], 5), stream.BOTH)
    assert indices.size == 0 and loops == 3 and not raw.any()


def test_refused_before_allocating(monkeypatch):
    monkeypatch.setattr(memory, "available_bytes", lambda: 1 << 20)
    source = GeneratedTuples("kronecker", 20, 16, 1)
    with pytest.raises(MemoryEstimateError, match="building the CSR needs about"):
        stream.stream_csr(source, stream.BOTH)


def test_streamed_estimate_is_a_fifth_of_the_tuple_list_one():
    n, m = 1 << 26, 16 << 26
    streamed = memory.stream_build_bytes(n, m, False) / m
    listed = memory.csr_build_bytes(n, m, False) / m
    assert 8 <= streamed < 11 and listed > 4 * streamed


def test_kronecker_streams_when_the_tuple_list_does_not_fit(monkeypatch):
    g = breadth.kronecker(9, 8, seed=2)
    g2, (s, d) = breadth.kronecker(9, 8, seed=2, return_edges=True)
    assert np.array_equal(g.indices, g2.indices) and g.build_info == g2.build_info
    from breadth.graph import generators

    assert not generators.streaming_needed(9, 8)
    monkeypatch.setattr(generators, "available_bytes", lambda: memory.csr_build_bytes(512, 4096, False) + 1)
    assert generators.streaming_needed(9, 8)
    g3 = breadth.kronecker(9, 8, seed=2)
    assert np.array_equal(g.indices, g3.indices) and g.build_info == g3.build_info


def test_kronecker_tuples_are_pinned():
    # the generator's output is part of the benchmark's definition: a faster kernel must not change it
    s, d = kronecker_edges(10, 16, 1)
    assert s[:5].tolist() == [403, 277, 814, 179, 719] and d[:5].tolist() == [606, 752, 327, 65, 956]
    assert int(s.sum()) == 7968130 and int(d.sum()) == 8370347


@pytest.mark.parametrize("mode", [stream.BOTH, stream.OUT, stream.IN])
@pytest.mark.parametrize("chunk", [999, 1 << 22])
def test_fused_generate_and_count_equals_the_partitioned_count(mode, chunk):
    src, dst = kronecker_edges(11, 16, 4)
    gen = GeneratedTuples("kronecker", 11, 16, 4)
    a = stream.stream_csr(gen, mode, chunk=chunk)
    b = stream.stream_csr(Arrays(src, dst, 2048), mode, chunk=chunk)   # no count_arcs: partitioned count
    for x, y in zip(a[:3], b[:3]):
        assert np.array_equal(x, y)
    assert a[3] == b[3]
    counts = np.zeros((3, 2048), dtype=np.int32)
    assert gen.count_arcs(0, gen.num_tuples, mode, counts) == b[3]
    assert np.array_equal(counts.sum(axis=0), b[2])
    assert GeneratedTuples("uniform", 5, 4, 1).count_arcs(0, 10, mode, counts) is None
