"""Graph500 on streamed tuples: the same run as the tuple-list path; the tuple rules over regenerated chunks."""
import numpy as np
import pytest

import breadth
from breadth.errors import ValidationError
from breadth.graph.generators import GeneratedTuples
from breadth.graph500 import Graph500Config, LocalEngine, format_report, run_benchmark
from breadth.graph500.tuples import validate_tuples


@pytest.mark.parametrize("directed", [False, True])
def test_streamed_run_equals_the_tuple_list_run(directed):
    cfg = Graph500Config(scale=12, edgefactor=16, nroots=8, seed=9)
    a = run_benchmark(cfg, LocalEngine(directed=directed, streaming=True, validate_tuples=True), progress=False)
    b = run_benchmark(cfg, LocalEngine(directed=directed, streaming=False), progress=False)
    assert a.roots == b.roots and a.nedges == b.nedges and a.graph == b.graph
    assert a.regeneration_time is not None and b.regeneration_time is None
    assert a.build_wall_time >= a.generation_time + a.construction_time
    text = format_report(a)
    assert "tuple_regeneration_time:" in text and "tuple_regeneration_time:" not in format_report(b)
    assert a.as_dict()["engine"]["streaming"] is True


def test_tuple_rules_catch_bad_depths():
    source = GeneratedTuples("kronecker", 10, 16, 3)
    g = breadth.kronecker(10, 16, seed=3)
    root = int(np.argmax(g.degree()))
    depth = breadth.bfs(g, root).depth.astype(np.int64)
    assert validate_tuples(source, depth) == 16 << 10
    assert validate_tuples(source, depth, chunk=1000) == 16 << 10
    far = depth.copy()
    v = int(np.flatnonzero(depth == 1)[0])
    far[v] = 3
    with pytest.raises(ValidationError) as e:
        validate_tuples(source, far, chunk=777)
    assert e.value.rule == "level"
    cut = depth.copy()
    cut[v] = -1
    with pytest.raises(ValidationError) as e:
        validate_tuples(source, cut)
    assert e.value.rule == "span"
