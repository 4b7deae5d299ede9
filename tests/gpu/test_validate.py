"""The GPU validator (breadth.gpu.validate) against the CPU's breadth.validate on planted bad trees."""
import numpy as np
import pytest

import breadth
from breadth.errors import ValidationError

# two triangles joined by the edge 2-3, a tail 5-6, and the isolated vertex 7
SRC = [0, 0, 1, 2, 3, 3, 4, 5]
DST = [1, 2, 2, 3, 4, 5, 5, 6]
N = 8


@pytest.fixture(scope="module")
def setup(cuda):
    from breadth import gpu

    g = breadth.Graph.from_edges(SRC, DST, N)
    dg = gpu.DeviceGraph(g)
    good = breadth.bfs(g, 0)
    return g, dg, good



CASES = {
    "wrong-parent": dict(p=(4, 2)),                       # 2-4 is no edge: "edge"
    "out-of-range": dict(p=(6, 99)),
    "root": dict(p=(0, 1)),
    "cycle": dict(p=(1, 2), p2=(2, 1)),                     # 1 <-> 2, detached from the root: "tree"
    "depth-jump": dict(p=(6, 3), d=(6, 3)),              # 3-6 is no edge either: the first broken rule wins
    "wrong-depth": dict(d=(5, 7)),
    "missed-vertex": dict(p=(6, -1), d=(6, -1)),            # 6 is joined to reached 5: "span"
    "level": dict(p=(2, 1)),                               # 2 under 1 (an edge): the edge 0-2 spans two levels
}


def _apply(parent, depth, case):
    parent, depth = parent.copy(), depth.copy()
    for key, (v, value) in case.items():
        (depth if key.startswith("d") else parent)[v] = value
    return parent, depth


def _cpu_rule(g, parent, depth):
    try:
        breadth.validate(g, 0, parent, depth)
    except ValidationError as exc:
        return exc.rule, exc.vertex
    return None


def _gpu_rule(dg, parent, depth):
    from breadth.gpu import device
    from breadth.gpu.validate import validate_device

    try:
        validate_device(dg, np.array([0]), device.to_device(parent), device.to_device(depth))
    except ValidationError as exc:
        return exc.rule, exc.vertex
    return None


HUBS = [None, (1, 1), (1, 2)]        # (HUB_IN_EDGES, HUB_CHUNK): every vertex of 2+ in-edges a hub


@pytest.fixture(params=HUBS, ids=["no-hubs", "hubs-chunk-1", "hubs-chunk-2"])
def hubs(request, monkeypatch, cuda):
    from breadth.gpu import validate

    if request.param is not None:
        monkeypatch.setattr(validate, "HUB_IN_EDGES", request.param[0])
        monkeypatch.setattr(validate, "HUB_CHUNK", request.param[1])
    return request.param


def test_hub_chunks_cover_each_hubs_in_edges_once():
    from breadth.gpu.validate import hub_chunks

    indptr = np.array([0, 3, 3, 10, 11, 16])            # in-degrees 3, 0, 7, 1, 5
    hubs, ptr, chunk_v, chunk_hub = hub_chunks(indptr, 2, 3)
    assert hubs.tolist() == [0, 2, 4]
    assert ptr.reshape(-1, 2).tolist() == [[0, 3], [3, 6], [6, 9], [9, 10], [11, 14], [14, 16]]
    assert chunk_v.tolist() == [0, 2, 2, 2, 4, 4] and chunk_hub.tolist() == [0, 1, 1, 1, 2, 2]
    none = hub_chunks(indptr, 7, 3)
    assert none[0].size == 0 and none[1].size == 0


def test_a_good_tree_passes_with_the_cpu_report(setup, hubs):
    from breadth.gpu.validate import validate_device

    g, dg, good = setup
    r = breadth.bfs(dg, 0, device="cuda", to_host=False)
    report = validate_device(dg, r.roots, r.parent, r.depth)
    cpu = breadth.validate(g, 0, good.parent, good.depth)
    assert (report.reached, report.max_depth, report.tree_edges) == (cpu.reached, cpu.max_depth, cpu.tree_edges)


@pytest.mark.parametrize("name", list(CASES))
def test_planted_errors_break_the_same_rule_as_on_the_cpu(setup, hubs, name):
    g, dg, good = setup
    parent, depth = _apply(good.parent, good.depth, CASES[name])
    cpu = _cpu_rule(g, parent, depth)
    assert cpu is not None, name                            # the planted error is one
    assert _gpu_rule(dg, parent, depth) == cpu
