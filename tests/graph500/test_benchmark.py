"""The Graph500 benchmark driver: search keys, TEPS edge counts, report format."""
import inspect

import numpy as np
import pytest

import breadth
from breadth.graph500 import Graph500Config, LocalEngine, format_report, run_benchmark, search_keys


@pytest.fixture(scope="module")
def small_run():
    return run_benchmark(Graph500Config(scale=11, edgefactor=16, nroots=16, seed=4), LocalEngine(),
                         progress=False)


def test_roots_are_distinct_nonisolated_and_reproducible(small_run):
    roots = np.array(small_run.roots)
    assert roots.size == 16 and np.unique(roots).size == 16
    g = breadth.kronecker(11, 16, seed=4)
    assert np.all(g.degree()[roots] > 0)
    again = run_benchmark(Graph500Config(scale=11, nroots=16, seed=4), LocalEngine(), progress=False)
    assert again.roots == small_run.roots


def test_nedge_counts_input_tuples_in_component(small_run):
    s, d = breadth.kronecker_edges(11, 16, 4)
    g = breadth.Graph.from_edges(s, d, 2048)
    for root, nedge in zip(small_run.roots, small_run.nedges):
        reached = breadth.bfs(g, root).parent >= 0
        expected = np.count_nonzero((s != d) & reached[s] & reached[d])
        assert nedge == expected


def test_report_has_every_reference_field(small_run):
    text = format_report(small_run)
    for key in ["SCALE:", "edgefactor:", "NBFS:", "graph_generation:", "num_mpi_processes:",
                "construction_time:", "bfs  min_time:", "bfs  firstquartile_time:", "bfs  median_time:",
                "bfs  thirdquartile_time:", "bfs  max_time:", "bfs  mean_time:", "bfs  stddev_time:",
                "min_nedge:", "median_nedge:", "max_nedge:", "mean_nedge:", "stddev_nedge:",
                "bfs  min_TEPS:", "bfs  median_TEPS:", "bfs  max_TEPS:", "bfs  harmonic_mean_TEPS:",
                "bfs  harmonic_stddev_TEPS:", "bfs  min_validate:", "bfs  stddev_validate:"]:
        assert key in text, key
    assert "NBFS:                           16" in text
    d = small_run.as_dict()
    assert d["bfs_TEPS"]["harmonic_mean"] > 0
    assert len(d["searches"]) == 16 and d["searches"][0]["levels"]


def test_fewer_nonisolated_vertices_than_roots():
    class Tiny(LocalEngine):
        def generate(self, scale, edgefactor, seed):
            self.num_vertices = 1 << scale
            self._edges = (np.array([0, 1, 2]), np.array([1, 2, 0]))

    r = run_benchmark(Graph500Config(scale=4, nroots=64), Tiny(), progress=False)
    assert sorted(r.roots) == [0, 1, 2]
    assert r.nedges == [3, 3, 3]


def test_search_keys_rejects_isolated():
    eng = LocalEngine()
    eng.graph = breadth.Graph.from_edges([0], [1], 100)
    keys = search_keys(eng, 100, 64, 1)
    assert sorted(keys.tolist()) == [0, 1]


def test_bad_config():
    with pytest.raises(breadth.InputError):
        run_benchmark(Graph500Config(scale=-1), LocalEngine(), progress=False)
    with pytest.raises(breadth.InputError):
        run_benchmark(Graph500Config(scale=5, nroots=0), LocalEngine(), progress=False)
    with pytest.raises(breadth.MemoryEstimateError):
        run_benchmark(Graph500Config(scale=38), LocalEngine(), progress=False)


def test_engines_implement_the_protocol():
    from breadth.distributed.engine import DistEngine
    from breadth.graph500 import Engine

    assert isinstance(LocalEngine(), Engine)
    members = [name for name in dir(Engine) if not name.startswith("_")] + list(Engine.__annotations__)
    source = inspect.getsource(DistEngine.__init__)
    for name in members:
        assert hasattr(LocalEngine(), name), name
        assert callable(getattr(DistEngine, name, None)) or f"self.{name}" in source, name


def test_bad_roots_named_by_the_api():
    with pytest.raises(breadth.InputError, match="nroots must be >= 1"):
        run_benchmark(Graph500Config(scale=5, nroots=0), LocalEngine(), progress=False)
