"""The 1D local steps (``owned.steps``: all-to-all; ``one_d.replicated_steps``: ButterFly) one level
at a time on one process, for each half of a two-rank partition, against a plain queue BFS.

Every visit writes through its named ctx: a store the compiler dropped (numba's dead-code pass
after an overload is inlined does not see that ``ctx.parent`` is the caller's array) shows here
as a vertex whose parent or depth was never written, without launching MPI ranks.
"""
import numpy as np
import pytest

import breadth
from breadth.distributed.one_d import replicated_steps
from breadth.distributed.owned import steps
from breadth.distributed.owned.partition import RangeMap
from breadth.kernels.top_down import frontier_edge_offsets
from zoo import reference_depth

SCALE = 10


def _graph(directed):
    s, d = breadth.kronecker_edges(SCALE, 8, 21 if directed else 22)
    n = 1 << SCALE
    g = breadth.Graph.from_edges(s, d, n, directed=directed)
    root = int(np.argmax(g.out_degree()))
    return g, reference_depth(s, d, n, directed, root)


BOUNDS = np.array([0, 448, 1 << SCALE])          # 64-aligned: each rank owns whole bitmap words
CASES = [_graph(True), _graph(False)]
# every test runs on each graph, as each rank of the two: (graph and depths, lo, hi)
each_rank = pytest.mark.parametrize("case,lo,hi", [(c, BOUNDS[r], BOUNDS[r + 1]) for c in CASES for r in (0, 1)],
                                    ids=[f"{kind}-rank{r}" for kind in ("directed", "undirected") for r in (0, 1)])


def _rows(indptr, indices, lo, hi):
    """Rows lo..hi of a CSR as a rank holds them: local rows, global columns."""
    return indptr[lo:hi + 1] - indptr[lo], indices[indptr[lo]:indptr[hi]]


def _bitmap(mask):
    words = np.zeros((mask.size + 63) // 64, dtype=np.uint64)
    for v in np.flatnonzero(mask):
        words[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return words


def _bits(words, n):
    return np.unpackbits(words.view(np.uint8), bitorder="little")[:n].astype(bool)


def _frontier(depth, level, lo, hi, indptr):
    queue = np.flatnonzero(depth[lo:hi] == level).astype(np.int64)
    offsets = np.empty(hi - lo + 1, dtype=np.int64)
    frontier_edge_offsets(indptr, queue, queue.size, offsets)
    return queue, offsets


def _reached(g, depth, level, lo, hi):
    """The out-neighbours of this rank's level-``level`` vertices (global ids)."""
    out = [g.indices[g.indptr[u]:g.indptr[u + 1]] for u in np.flatnonzero(depth == level) if lo <= u < hi]
    return np.unique(np.concatenate(out)) if out else np.empty(0, dtype=np.int64)


def _levels(depth):
    return range(max(int(depth.max()), 1))


def _check_parents(g, depth, level, children, parents):
    """Each (child, parent) pair is an arc from a vertex at ``level`` (global ids)."""
    for v, u in zip(children, parents):
        assert depth[u] == level and v in g.indices[g.indptr[u]:g.indptr[u + 1]]


@each_rank
def test_owned_td_step_settles_owned_and_offers_remote(case, lo, hi):
    g, depth = case
    indptr, indices = _rows(g.indptr, g.indices, lo, hi)
    pmap = RangeMap(BOUNDS, lo, hi)
    nl = hi - lo
    for level in _levels(depth):
        queue, offsets = _frontier(depth, level, lo, hi, indptr)
        before = (depth[lo:hi] >= 0) & (depth[lo:hi] <= level)
        parent = np.where(before, 0, -1).astype(np.int64)
        dep = np.where(before, depth[lo:hi], -1).astype(np.int64)
        sent = np.zeros((g.num_vertices + 63) // 64, dtype=np.uint64)
        next_queue = np.full(nl, -1, dtype=np.int64)
        ntail = np.zeros(1, dtype=np.int64)
        cand_v = np.full(g.num_vertices, -1, dtype=np.int64)
        cand_p = np.full(g.num_vertices, -1, dtype=np.int64)
        ctail = np.zeros(1, dtype=np.int64)
        scout = steps.td_step(indptr, indices, queue, queue.size, offsets, pmap, parent, dep, level, sent,
                              next_queue, ntail, cand_v, cand_p, ctail, True)
        reached = _reached(g, depth, level, lo, hi)
        mine = reached[(reached >= lo) & (reached < hi)]
        new = mine[~before[mine - lo]]
        np.testing.assert_array_equal(np.sort(next_queue[:ntail[0]]), new - lo)
        np.testing.assert_array_equal(dep[new - lo], level + 1)
        assert scout == g.out_degree()[new].sum()
        _check_parents(g, depth, level, new, parent[new - lo])
        remote = reached[(reached < lo) | (reached >= hi)]
        np.testing.assert_array_equal(np.sort(cand_v[:ctail[0]]), remote)
        _check_parents(g, depth, level, cand_v[:ctail[0]], cand_p[:ctail[0]])


@each_rank
def test_owned_bu_step_finds_the_owned_part_of_the_next_level(case, lo, hi):
    g, depth = case
    in_indptr, in_indices = _rows(g.in_indptr, g.in_indices, lo, hi)
    indptr, _ = _rows(g.indptr, g.indices, lo, hi)
    for level in _levels(depth):
        before = (depth[lo:hi] >= 0) & (depth[lo:hi] <= level)
        parent = np.where(before, 0, -1).astype(np.int64)
        dep = np.where(before, depth[lo:hi], -1).astype(np.int64)
        next_words = np.full((hi - lo + 63) // 64, 99, dtype=np.uint64)
        awake, examined, scout = steps.bu_step(in_indptr, in_indices, indptr, parent, dep, _bitmap(depth == level),
                                               next_words, level)
        new = depth[lo:hi] == level + 1
        assert awake == new.sum()
        assert scout == g.out_degree()[lo:hi][new].sum()
        np.testing.assert_array_equal(_bits(next_words, hi - lo), new)
        np.testing.assert_array_equal(dep[new], level + 1)
        _check_parents(g, depth, level, lo + np.flatnonzero(new), parent[new])
        assert examined <= np.diff(in_indptr)[~before].sum()


@pytest.mark.parametrize("direction", ["td", "bu"])
@each_rank
def test_replicated_step_claims_levels_and_owned_parents(case, lo, hi, direction):
    g, depth = case
    pmap = RangeMap(BOUNDS, lo, hi)
    indptr, indices = _rows(g.indptr, g.indices, lo, hi)
    in_indptr, in_indices = _rows(g.in_indptr, g.in_indices, lo, hi)
    for level in _levels(depth):
        lvl = np.where((depth >= 0) & (depth <= level), depth, -1).astype(np.int64)
        parent = np.full(hi - lo, -1, dtype=np.int64)
        gqueue = np.full(depth.size, -1, dtype=np.int64)
        tail = np.zeros(1, dtype=np.int64)
        if direction == "td":
            queue, offsets = _frontier(depth, level, lo, hi, indptr)
            examined = replicated_steps.td_step(indptr, indices, queue, queue.size, offsets, lvl, level, gqueue,
                                                tail, pmap, parent, True)
            assert examined == offsets[queue.size]
            reached = _reached(g, depth, level, lo, hi)
            new = reached[depth[reached] == level + 1]        # every unvisited out-neighbour of its frontier
        else:
            replicated_steps.bu_step(in_indptr, in_indices, pmap, lvl, _bitmap(depth == level), level, gqueue, tail,
                                     parent)
            new = lo + np.flatnonzero(depth[lo:hi] == level + 1)     # its own part of the next level
        np.testing.assert_array_equal(np.sort(gqueue[:tail[0]]), new)
        np.testing.assert_array_equal(lvl[new], level + 1)
        mine = new[(new >= lo) & (new < hi)]
        _check_parents(g, depth, level, mine, parent[mine - lo])
