"""The parallel single-node level kernels (``top_down.td_step``, ``bottom_up.bu_step``) one level
at a time, from the state a search has before that level (rebuilt from reference depths).

The driver runs small top-down frontiers serially, so the zoo's searches rarely reach the
parallel step; here every level of each graph goes through it, several edge blocks included.
"""
import numpy as np
import pytest

import breadth
from breadth.kernels import bottom_up, top_down
from breadth.kernels.frontier import claimed_since, clear_visited, num_words
from zoo import graphs, reference_depth

CASES = [z for z in graphs() if z[3] >= 200] + [
    ("kronecker-13", *breadth.kronecker_edges(13, 16, 11), 1 << 13, False, 0),
    ("kronecker-13-directed", *breadth.kronecker_edges(13, 16, 12), 1 << 13, True, 0),
    ("urand-13", *breadth.uniform_random_edges(13, 16, 13), 1 << 13, False, 0),
]


def bitmap(mask):
    words = np.zeros(num_words(mask.size), dtype=np.uint64)
    for v in np.flatnonzero(mask):
        words[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return words


def bits(words, n):
    return np.unpackbits(words.view(np.uint8), bitorder="little")[:n].astype(bool)


def visited_before(depth, level, n):
    visited = np.empty(num_words(n), dtype=np.uint64)
    clear_visited(visited, n)
    return visited | bitmap((depth >= 0) & (depth <= level))


def cases():
    for name, s, d, n, directed, root in CASES:
        g = breadth.Graph.from_edges(s, d, n, directed=directed)
        if name.startswith("kronecker-13"):
            root = int(np.argmax(g.out_degree()))
        depth = reference_depth(s, d, n, directed, root)
        yield name, g, depth


CASE_LIST = list(cases())


def check_parents(g, depth, parent, new, level):
    for v in np.flatnonzero(new):
        u = parent[v]
        assert depth[u] == level
        assert v in g.indices[g.indptr[u]:g.indptr[u + 1]]


@pytest.mark.parametrize("walk", ["packed", "packed-ids64", "wide"])
@pytest.mark.parametrize("case", CASE_LIST, ids=[c[0] for c in CASE_LIST])
def test_td_step_expands_each_level(case, walk):
    """td_step (its claim walk chosen by the id type: 64-bit ids choose by the vertex count) and the wide walk."""
    _, g, depth = case
    n = g.num_vertices
    packed = walk != "wide"
    indices = g.indices.astype(np.int64) if walk == "packed-ids64" else g.indices
    rng = np.random.default_rng(0)
    blocks = 0
    for level in range(depth.max()):
        queue = np.flatnonzero(depth == level).astype(np.int64)
        rng.shuffle(queue)
        visited = visited_before(depth, level, n)
        parent = np.full(n, -7, dtype=np.int32 if packed else np.int64)
        lvl = np.full(n, -7, dtype=parent.dtype)
        offsets = np.empty(n + 1, dtype=np.int64)
        next_queue = np.full(n, -1, dtype=np.int64)
        tail = np.zeros(1, dtype=np.int64)
        top_down.frontier_edge_offsets(g.indptr, queue, queue.size, offsets)
        blocks += -(-offsets[queue.size] // top_down.TD_EDGE_BLOCK)
        if packed:
            before = np.full(visited.size, 99, dtype=np.uint64)
            scout = top_down.td_step(g.indptr, indices, parent, lvl, visited, queue, queue.size, offsets,
                                     next_queue, tail, level, before)
            claimed_since(before, visited)
            np.testing.assert_array_equal(bits(before, n), depth == level + 1)
        else:
            top_down._td_walk_wide(g.indptr, g.indices, parent, visited, queue, queue.size, offsets, next_queue,
                                   tail)
            scout = top_down.settle_claims(g.indptr, next_queue, tail[0], parent, lvl, level + 1, False)
        new = depth == level + 1
        got = next_queue[:tail[0]]
        assert got.size == np.unique(got).size
        np.testing.assert_array_equal(np.sort(got), np.flatnonzero(new))
        assert scout == g.out_degree()[new].sum()
        np.testing.assert_array_equal(lvl[new], level + 1)
        np.testing.assert_array_equal(lvl[~new], -7)
        np.testing.assert_array_equal(parent[~new], -7)
        check_parents(g, depth, parent, new, level)
        np.testing.assert_array_equal(bits(visited, n), (depth >= 0) & (depth <= level + 1))
    if g.num_arcs > 100_000:
        assert blocks > depth.max()          # some level spanned several edge blocks


@pytest.mark.parametrize("case", CASE_LIST, ids=[c[0] for c in CASE_LIST])
def test_bu_step_finds_each_level_and_settles_vertices_without_in_edges(case):
    _, g, depth = case
    n = g.num_vertices
    no_in = np.diff(g.in_indptr) == 0
    for level in range(depth.max() + 1):
        visited = visited_before(depth, level, n)
        front = bitmap(depth == level)
        next_front = np.full(front.size, 12345, dtype=np.uint64)
        parent = np.full(n, -7, dtype=np.int32)
        lvl = np.full(n, -7, dtype=np.int32)
        awake, examined = bottom_up.bu_step(g.in_indptr, g.in_indices, parent, lvl, front, next_front, visited,
                                            level)
        new = depth == level + 1
        settled = no_in & ~((depth >= 0) & (depth <= level))
        assert awake == new.sum()
        np.testing.assert_array_equal(bits(next_front, n), new)
        np.testing.assert_array_equal(bits(visited, n), (depth >= 0) & (depth <= level + 1) | settled)
        np.testing.assert_array_equal(lvl[new], level + 1)
        np.testing.assert_array_equal(parent[settled], -1)
        np.testing.assert_array_equal(lvl[settled], -1)
        untouched = ~new & ~settled
        np.testing.assert_array_equal(parent[untouched], -7)
        for v in np.flatnonzero(new):          # the parent is an in-neighbour at the current level
            u = parent[v]
            assert depth[u] == level and u in g.in_indices[g.in_indptr[v]:g.in_indptr[v + 1]]
        unvisited = ~((depth >= 0) & (depth <= level)) & ~settled
        assert examined <= np.diff(g.in_indptr)[unvisited].sum()
        if level == 0:
            assert examined >= new.sum()


@pytest.mark.parametrize("scale", [14, 15])
def test_search_goes_bottom_up_after_a_parallel_top_down_level(scale):
    """The driver turns a parallel top-down level's claims into the bottom-up frontier with
    ``claimed_since`` (visited XOR its copy from before the level): depths stay exact."""
    from breadth.kernels.direction_optimizing import SERIAL_EDGES
    from zoo import scipy_depth

    s, d = breadth.uniform_random_edges(scale, 16, scale)
    g = breadth.Graph.from_edges(s, d, 1 << scale)
    seen = 0
    for root in range(0, 1 << scale, (1 << scale) // 5):
        r = breadth.bfs(g, root)
        np.testing.assert_array_equal(r.depth, scipy_depth(g, root))
        breadth.validate(g, root, r.parent, r.depth)
        lv = r.levels
        seen += any(a.direction == "top-down" and a.edges_examined > SERIAL_EDGES and b.direction == "bottom-up"
                    for a, b in zip(lv, lv[1:]))
    assert seen
