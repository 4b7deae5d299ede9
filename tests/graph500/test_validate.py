"""The validator accepts correct trees and rejects each broken rule, naming rule and vertex."""
import numpy as np
import pytest

import breadth
from zoo import graphs


def kron():
    s, d = breadth.kronecker_edges(10, 16, 3)
    g = breadth.Graph.from_edges(s, d, 1024)
    root = int(s[0])
    return g, root, breadth.bfs(g, root)


@pytest.mark.parametrize("entry", list(graphs()), ids=[z[0] for z in graphs()])
def test_accepts_correct_trees(entry):
    name, s, d, n, directed, root = entry
    g = breadth.Graph.from_edges(s, d, n, directed=directed)
    r = breadth.bfs(g, root)
    rep = breadth.validate(g, root, r.parent, r.depth)
    assert rep.reached == r.num_reached
    assert rep.max_depth == r.max_depth


def expect(rule, g, root, parent, depth=None, vertex=None):
    with pytest.raises(breadth.ValidationError) as info:
        breadth.validate(g, root, parent, depth)
    assert info.value.rule == rule, str(info.value)
    if vertex is not None:
        assert info.value.vertex == vertex
    return info.value


def test_rule_range():
    g, root, r = kron()
    p = r.parent.copy()
    p[5] = 5000
    expect("range", g, root, p, vertex=5)
    p[5] = -7
    expect("range", g, root, p, vertex=5)


def test_rule_root():
    g, root, r = kron()
    p = r.parent.copy()
    child = int(np.flatnonzero(r.depth == 1)[0])
    p[root] = child
    expect("root", g, root, p, vertex=root)


def test_rule_tree_cycle():
    g, root, r = kron()
    p = r.parent.copy()
    a = int(np.flatnonzero(r.depth == 2)[0])
    b = int(p[a])                      # its parent, at depth 1
    p[b] = a                           # a -> b -> a: a cycle hanging off nothing
    expect("tree", g, root, p)


def test_rule_tree_cycle_in_other_component():
    # the reference validator lets this pass (graph500.md): a 2-cycle in an untouched component
    g = breadth.Graph.from_edges([0, 1, 3], [1, 2, 4], 5)
    r = breadth.bfs(g, 0)
    p = r.parent.copy()
    p[3], p[4] = 4, 3
    expect("tree", g, 0, p)


def test_rule_edge_tree_edge_not_in_graph():
    # path 0-1-2-3 plus 0-4-3: claim parent(2) = 4, both at the right depths but (4,2) is no edge
    g = breadth.Graph.from_edges([0, 1, 2, 0, 4], [1, 2, 3, 4, 3], 5)
    r = breadth.bfs(g, 0)
    assert r.depth.tolist() == [0, 1, 2, 2, 1]
    p = r.parent.copy()
    p[2] = 4
    expect("edge", g, 0, p, vertex=2)


def test_rule_level_edge_spans_two_levels():
    # path 0-1-2 plus edge 0-2: a "tree" 0->1->2 puts 2 at depth 2 while edge (0,2) spans 0..2
    g = breadth.Graph.from_edges([0, 1, 0], [1, 2, 2], 3)
    p = np.array([0, 0, 1])
    expect("level", g, 0, p)


def test_rule_span_unreached_vertex_in_component():
    g, root, r = kron()
    p = r.parent.copy()
    leaf = int(np.flatnonzero((r.depth == r.max_depth))[0])
    p[leaf] = -1
    expect("span", g, root, p, vertex=leaf)


def test_rule_span_directed():
    g = breadth.Graph.from_edges([0, 1], [1, 2], 3, directed=True)
    expect("span", g, 0, np.array([0, 0, -1]), vertex=2)
    breadth.validate(g, 1, np.array([-1, 1, 1]))     # 0 is not reachable from 1: fine


def test_rule_depth_disagrees():
    g, root, r = kron()
    d = r.depth.copy()
    v = int(np.flatnonzero(r.depth == 2)[0])
    d[v] = 3
    expect("depth", g, root, r.parent, d, vertex=v)


def test_bad_arguments():
    g, root, r = kron()
    with pytest.raises(breadth.InputError):
        breadth.validate(g, root, r.parent[:-1])
    with pytest.raises(breadth.InputError):
        breadth.validate(g, 99999, r.parent)
    with pytest.raises(breadth.InputError):
        breadth.validate(g, root, r.parent.astype(float))
