"""Pooled result memory (multisource.recycle): a dropped depth matrix's memory is reused, a held one never."""
import gc

import numpy as np
import pytest
import scipy.sparse.csgraph as csg

import breadth
from breadth.multisource import multi_bfs, recycle, release_workspaces, unreachable


@pytest.fixture(autouse=True)
def empty_pool():
    release_workspaces()
    gc.collect()
    yield
    release_workspaces()


def _reference(g, sources):
    d = np.atleast_2d(csg.shortest_path(g.to_scipy(), directed=g.directed, unweighted=True, indices=sources))
    return np.where(np.isinf(d), unreachable(np.uint8), d).astype(np.uint8)


def _graph():
    return breadth.kronecker(9, seed=3)


class Owner:
    """Stands for a graph: any object that takes weak references."""


def test_pooled_array_is_aligned_writable_and_owned_by_its_lease():
    owner = Owner()
    a = recycle.pooled_empty((5, 130), np.uint16, owner)
    assert a.shape == (5, 130) and a.dtype == np.uint16 and a.flags.c_contiguous and a.flags.writeable
    assert a.ctypes.data % recycle.ALIGN == 0
    assert isinstance(a.base, recycle._Lease)
    a[:] = 7
    assert recycle.pooled_bytes() == 0
    del a
    assert recycle.pooled_bytes() == 5 * 130 * 2 + recycle.ALIGN


def test_dropped_result_is_reused_and_rewritten_in_full():
    g = _graph()
    first, second = np.arange(0, 300, 3), np.arange(1, 301, 3)      # same count: same matrix size
    a = multi_bfs(g, first)
    where = a.ctypes.data
    np.testing.assert_array_equal(a, _reference(g, first))
    a[:] = 3                                   # garbage the next result must overwrite everywhere
    del a
    b = multi_bfs(g, second)
    assert b.ctypes.data == where
    np.testing.assert_array_equal(b, _reference(g, second))


def test_held_result_and_its_views_are_never_handed_out():
    g = _graph()
    s = np.arange(64)
    a = multi_bfs(g, s)
    row = a[5]                                 # a view keeps the memory leased
    keep = row.copy()
    del a
    assert recycle.pooled_bytes() == 0
    b = multi_bfs(g, s[::-1].copy())
    assert not np.shares_memory(b, row)
    np.testing.assert_array_equal(row, keep)
    c = multi_bfs(g, s)
    assert not np.shares_memory(c, b) and not np.shares_memory(c, row)
    np.testing.assert_array_equal(c, _reference(g, s))


def test_other_sizes_get_new_memory_and_the_pool_keeps_one_buffer():
    g = _graph()
    a = multi_bfs(g, np.arange(10))
    del a
    size = recycle.pooled_bytes()
    b = multi_bfs(g, np.arange(20))            # another size: the spare is not it
    assert recycle.pooled_bytes() == 0
    del b
    assert recycle.pooled_bytes() > size       # only the newest is kept


def test_release_and_the_memory_bound(monkeypatch):
    owner = Owner()
    a = recycle.pooled_empty((1000,), np.uint8, owner)
    del a
    assert recycle.pooled_bytes() > 0
    release_workspaces()
    assert recycle.pooled_bytes() == 0
    monkeypatch.setattr(recycle, "available_bytes", lambda: 1000)     # 1/16 of it: 62 bytes
    a = recycle.pooled_empty((1000,), np.uint8, owner)
    del a
    assert recycle.pooled_bytes() == 0


def test_each_graph_has_its_own_buffer_which_goes_with_it():
    g, h = _graph(), _graph()
    a = multi_bfs(g, np.arange(32))
    where = a.ctypes.data
    del a
    b = multi_bfs(h, np.arange(32))            # same size, another graph: not g's buffer
    assert b.ctypes.data != where
    c = multi_bfs(g, np.arange(32))
    assert c.ctypes.data == where
    del b, c
    assert recycle.pooled_bytes() == 2 * (32 * g.num_vertices + recycle.ALIGN)
    del g
    gc.collect()
    assert recycle.pooled_bytes() == 32 * h.num_vertices + recycle.ALIGN
    a = recycle.pooled_empty((4,), np.uint8, Owner())       # its owner is gone at once: kept by nobody
    del a
    assert recycle.pooled_bytes() == 32 * h.num_vertices + recycle.ALIGN
