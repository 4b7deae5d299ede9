"""Runs of thin top-down levels on all threads (kernels.thin_levels) against a plain queue BFS."""
import numba
import numpy as np
import pytest

import breadth
from breadth.kernels import direction_optimizing as do
from breadth.kernels.frontier import clear_visited
from breadth.kernels.levels import LEVEL_FIELDS
from breadth.kernels.policy import ALPHA
from breadth.kernels.thin_levels import CHUNK, CTL_SIZE, run_thin_levels
from zoo import reference_depth


def box(cap, budget):
    """Run bounds of one row: levels with at most ``cap`` out-edges after at most ``budget`` explored."""
    return np.array([[budget, cap]], dtype=np.float64)


def ladder(width, length, keep=1.0, seed=0):
    """A width x length mesh, row-major ids (row = position along the length): from vertex 0 every
    level has up to ``width`` vertices, i.e. several CHUNKs, for ~width + length levels."""
    ids = np.arange(width * length).reshape(length, width)
    s = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    d = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    if keep < 1.0:
        m = np.random.default_rng(seed).random(s.size) < keep
        s, d = s[m], d[m]
    return s, d, width * length


def seeded(n, seeds):
    """Search state with ``seeds`` visited at depth 0 and queued: (parent, depth, visited,
    queue, next_queue), int64 parent/depth, -1 elsewhere."""
    seeds = np.asarray(seeds, np.int64)
    parent = np.full(n, -1, np.int64)
    depth = np.full(n, -1, np.int64)
    visited = np.empty((n + 63) // 64, np.uint64)
    clear_visited(visited, n)
    for v in seeds:
        visited[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    parent[seeds] = seeds
    depth[seeds] = 0
    queue, next_queue = np.zeros(n, np.int64), np.full(n, -7, np.int64)
    queue[:seeds.size] = seeds
    return parent, depth, visited, queue, next_queue


@pytest.fixture
def two_threads():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs two numba threads")
    old = numba.get_num_threads()
    numba.set_num_threads(2)
    yield
    numba.set_num_threads(old)


@pytest.mark.parametrize("keep", [1.0, 0.7])
def test_deep_mesh_matches_reference_on_two_threads(two_threads, keep):
    s, d, n = ladder(4 * CHUNK + 3, 1500, keep)          # ~1,800 levels: more than one run of rows
    g = breadth.Graph.from_edges(s, d, n)
    for root in (0, n // 2 + 7):
        r = breadth.bfs(g, root)
        np.testing.assert_array_equal(r.depth, reference_depth(s, d, n, False, root))
        breadth.validate(g, root, r.parent, r.depth)
        counts = np.bincount(r.depth[r.depth >= 0])
        assert len(r.levels) == counts.size              # the last level discovers nothing
        assert root or counts.size > do.THIN_ROWS          # from a corner: more than one run of rows
        assert [lv.frontier for lv in r.levels] == list(counts)
        assert [lv.discovered for lv in r.levels] == list(counts[1:]) + [0]
        td = [lv for lv in r.levels if lv.direction == "top-down"]
        assert len(td) > 0.9 * len(r.levels)          # bottom-up only once few edges are left
        deg = g.out_degree()
        assert [lv.edges_examined for lv in td] == [int(deg[r.depth == lv.level].sum()) for lv in td]


@pytest.mark.parametrize("alpha", [ALPHA, 400.0, 3000.0])
def test_one_and_two_threads_agree(two_threads, alpha):
    """Directions too: on one thread the driver decides every level itself; on two, runs of thin
    levels go only as far as the policy's bounds allow (``alpha`` moves the switch to bottom-up
    into the runs)."""
    s, d, n = ladder(3 * CHUNK, 400, 0.8, seed=4)
    g = breadth.Graph.from_edges(s, d, n)
    two = breadth.bfs(g, 5, alpha=alpha)
    numba.set_num_threads(1)
    one = breadth.bfs(g, 5, alpha=alpha)
    np.testing.assert_array_equal(one.depth, two.depth)
    assert [(lv.frontier, lv.edges_examined, lv.direction) for lv in one.levels] == \
        [(lv.frontier, lv.edges_examined, lv.direction) for lv in two.levels]
    assert alpha == ALPHA or "bottom-up" in [lv.direction for lv in one.levels]


@pytest.mark.parametrize("max_depth", [1, 2, 37, 600])
def test_max_depth_inside_a_run(two_threads, max_depth):
    s, d, n = ladder(2 * CHUNK + 1, 300)
    g = breadth.Graph.from_edges(s, d, n)
    full = reference_depth(s, d, n, False, 0)
    r = breadth.bfs(g, 0, max_depth=max_depth)
    np.testing.assert_array_equal(r.depth, np.where(full <= max_depth, full, -1))
    assert len(r.levels) == min(max_depth, full.max() + 1)     # levels expanded: depths 0 .. max_depth - 1


def test_run_ends_where_the_policy_goes_bottom_up(two_threads):
    # alpha so large that top-down soon looks worse than bottom-up: the run must hand the
    # level to the driver, which goes bottom-up, and the depths stay exact
    s, d, n = ladder(4 * CHUNK, 200)
    g = breadth.Graph.from_edges(s, d, n)
    r = breadth.bfs(g, 0, alpha=1e4)
    dirs = [lv.direction for lv in r.levels]
    assert dirs[0] == "top-down" and "bottom-up" in dirs
    np.testing.assert_array_equal(r.depth, reference_depth(s, d, n, False, 0))
    breadth.validate(g, 0, r.parent, r.depth)


@pytest.mark.parametrize("byte_claims", [False, True])
@pytest.mark.parametrize("threads", [1, 2, 4, 7])
def test_kernel_with_more_iterations_than_threads(threads, byte_claims):
    """The leader never waits for a helper that has not started: iterations beyond numba's
    thread count run after others have finished, and the run still completes, exactly."""
    s, d, n = ladder(3 * CHUNK + 5, 120)
    g = breadth.Graph.from_edges(s, d, n)
    root = 0
    parent, depth, visited, queue, next_queue = seeded(n, [root])
    seen = np.empty(visited.size * 64 if byte_claims else 0, np.uint8)
    stats = np.zeros((4096, len(LEVEL_FIELDS)), np.int64)
    times = np.zeros(4096, np.int64)
    ctl = np.zeros(CTL_SIZE, np.int64)
    qsize, scout, level, nlev, swapped, explored = run_thin_levels(
        g.indptr, g.indices, parent, depth, visited, seen, queue, next_queue, ctl, 1, int(g.out_degree()[0]), 0,
        -1, box(1 << 20, np.inf), stats, times, 0, threads)
    expected = reference_depth(s, d, n, False, root)
    np.testing.assert_array_equal(depth, expected)
    assert qsize == 0 and level == expected.max() + 1 and nlev == level
    assert explored == g.out_degree()[expected >= 0].sum()
    breadth.validate(g, root, parent, depth)
    counts = np.bincount(expected)
    np.testing.assert_array_equal(stats[:nlev, 2], counts)                    # frontier
    np.testing.assert_array_equal(stats[:nlev, 4], list(counts[1:]) + [0])   # discovered
    bits = np.unpackbits(visited.view(np.uint8), bitorder="little")
    np.testing.assert_array_equal(bits[:n], expected >= 0)
    assert bits[n:].all()


def test_run_stops_before_a_level_with_many_edges():
    # max_scout 0: every level after the first is left to the driver
    s, d, n = ladder(CHUNK, 50)
    g = breadth.Graph.from_edges(s, d, n)
    parent, depth, visited, queue, next_queue = seeded(n, [0])
    stats = np.zeros((16, len(LEVEL_FIELDS)), np.int64)
    out = run_thin_levels(g.indptr, g.indices, parent, depth, visited, np.empty(0, np.uint8), queue, next_queue,
                          np.zeros(CTL_SIZE, np.int64), 1, 2, 0, -1, box(0, np.inf),
                          stats, np.zeros(16, np.int64), 0, 2)
    assert out == (2, 6, 1, 1, True, 2)
    assert sorted(next_queue[:2]) == [1, CHUNK]


@pytest.mark.parametrize("threads", [1, 2])
def test_run_stops_once_its_edge_budget_is_spent(threads):
    """A path from its end: each level explores 1 edge (the end) or 2; with a budget of 5 edges the
    run takes levels while at most 5 were explored before them: 1 + 2 + 2 = 5, then a fourth (7)."""
    n = 50
    s, d = np.arange(n - 1), np.arange(1, n)
    g = breadth.Graph.from_edges(s, d, n)
    parent, depth, visited, queue, next_queue = seeded(n, [0])
    stats = np.zeros((16, len(LEVEL_FIELDS)), np.int64)
    out = run_thin_levels(g.indptr, g.indices, parent, depth, visited, np.empty(0, np.uint8), queue, next_queue,
                          np.zeros(CTL_SIZE, np.int64), 1, 1, 0, -1, box(100, 5),
                          stats, np.zeros(16, np.int64), 0, threads)
    qsize, scout, level, nlev, swapped, explored = out
    assert (qsize, scout, level, nlev, explored) == (1, 2, 4, 4, 7)
    assert queue[0] == 4 and not swapped
    np.testing.assert_array_equal(depth[:6], [0, 1, 2, 3, 4, -1])


@pytest.mark.parametrize("threads", [2, 3])
def test_run_leaves_a_contiguous_frontier_after_a_shared_level(threads):
    # a whole row as the seed frontier: the one level that runs is split among the threads
    # (front and back pieces of the next queue); the driver gets it back in one piece
    width = 5 * CHUNK + 9
    s, d, n = ladder(width, 4)
    g = breadth.Graph.from_edges(s, d, n)
    parent, depth, visited, queue, next_queue = seeded(n, np.arange(width))
    deg = g.out_degree()
    qsize, scout, level, nlev, swapped, explored = run_thin_levels(
        g.indptr, g.indices, parent, depth, visited, np.empty(0, np.uint8), queue, next_queue,
        np.zeros(CTL_SIZE, np.int64), width, int(deg[:width].sum()), 0, -1, box(0, np.inf),
        np.zeros((8, 5), np.int64), np.zeros(8, np.int64), 0, threads)
    assert (qsize, level, nlev, swapped) == (width, 1, 1, True)
    np.testing.assert_array_equal(np.sort(next_queue[:width]), np.arange(width, 2 * width))
    assert scout == deg[width:2 * width].sum()
    np.testing.assert_array_equal(parent[width:2 * width], np.arange(width))
    np.testing.assert_array_equal(depth[width:2 * width], 1)


def test_unpack_drops_the_losing_entry_of_a_double_claim():
    """Byte claims can let two threads claim one vertex in the same instant; only the entry whose
    parent stayed in parent[v] survives (the frontier's two pieces, front and back of the queue)."""
    from breadth.kernels.thin_levels import _unpack

    indptr = np.array([0, 1, 3, 6, 10, 15])        # out-degrees 1, 2, 3, 4, 5
    parent = np.array([0, 0, 1, 0, 2])
    q = np.full(12, -1, np.int64)

    def entry(v, p):
        return v | (p << 32)

    q[:3] = [entry(1, 0), entry(2, 1), entry(4, 9)]       # 4 claimed by 9 lost to 2
    q[-2:] = [entry(4, 2), entry(3, 0)]                   # back piece
    k, scout = _unpack(q, 3, 2, parent, indptr)
    assert sorted(q[:k]) == [1, 2, 3, 4] and k == 4
    assert scout == 2 + 3 + 4 + 5
