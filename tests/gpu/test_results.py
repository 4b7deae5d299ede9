"""Where a GPU search's parent/depth end up: pinned host memory (default) or device memory (to_host=False)."""
import numpy as np
import pytest

import breadth
from breadth.errors import InputError
from zoo import reference_depth

SRC = [0, 1, 2, 3, 0, 6, 7]
DST = [1, 2, 3, 4, 5, 7, 8]
N = 10   # 9 is isolated; 6..8 are a component the root does not reach


@pytest.fixture(scope="module")
def dg(cuda):
    from breadth import gpu

    return gpu.DeviceGraph(breadth.Graph.from_edges(SRC, DST, N))


def test_device_results_are_device_arrays_equal_to_the_reference(dg, simulator):
    from breadth import gpu

    with gpu.count_transfers() as t:
        r = breadth.bfs(dg, 0, device="cuda", to_host=False)
    assert r.on_device and r.engine == "cuda"
    interface = "copy_to_host" if simulator else "__cuda_array_interface__"   # the simulator's arrays lack it
    assert hasattr(r.parent, interface) and hasattr(r.depth, interface)
    assert not isinstance(r.parent, np.ndarray)
    assert r.parent.shape == (N,) and r.depth.shape == (N,)
    from breadth.gpu.primitives import HEAD

    assert t.sizes_to_host == [8 * HEAD] * len(r.levels), t.sizes_to_host   # only the per-level heads come back
    h = r.to_host()
    assert not h.on_device and h.to_host() is h
    ref = reference_depth(np.array(SRC), np.array(DST), N, False, [0])
    np.testing.assert_array_equal(h.depth, ref)
    assert r.num_reached == int(np.count_nonzero(ref >= 0)) and r.max_depth == ref.max()
    np.testing.assert_array_equal(h.parent[[0, 1, 5]], [0, 0, 0])


def test_device_results_are_used_by_cupy_without_a_copy(dg, simulator):
    if simulator:
        pytest.skip("the simulator's device arrays export no __cuda_array_interface__")
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    r = breadth.bfs(dg, 0, device="cuda", to_host=False)
    depth = cp.asarray(r.depth)
    assert depth.data.ptr == r.depth.__cuda_array_interface__["data"][0]       # the same memory: no copy
    np.testing.assert_array_equal(cp.asnumpy(depth), r.to_host().depth)


def test_device_results_survive_the_next_search(dg):
    first = breadth.bfs(dg, 0, device="cuda", to_host=False)
    breadth.bfs(dg, 6, device="cuda", to_host=False)
    breadth.bfs(dg, 6, device="cuda")
    assert first.to_host().depth[4] == 4 and first.to_host().depth[6] == -1


def test_device_results_reuse_arrays_no_result_holds_any_more(cuda):
    from breadth import gpu

    dg = gpu.DeviceGraph(breadth.Graph.from_edges(SRC, DST, N))
    sp = dg.search_space()
    first = sp.parent
    a = breadth.bfs(dg, 0, device="cuda", to_host=False)      # a keeps views of the first pair
    b = breadth.bfs(dg, 6, device="cuda", to_host=False)      # so b was searched in a new pair
    assert sp.parent is not first
    del a
    c = breadth.bfs(dg, 0, device="cuda", to_host=False)      # nothing holds the first pair: it is the next one's
    assert sp.parent is first
    d = breadth.bfs(dg, 6, device="cuda", to_host=False)
    assert b.to_host().depth[7] == 1 and c.to_host().depth[4] == 4 and d.to_host().depth[7] == 1
    assert b.to_host().depth[0] == -1 and c.to_host().depth[7] == -1
    seen = set()
    r = None
    for root in [0, 6, 0, 6, 0, 6]:                           # keeping only the last result
        r = breadth.bfs(dg, root, device="cuda", to_host=False)
        seen.add(id(sp.parent))
    assert len(seen) <= 3 and r.to_host().depth[7] == 1


def test_host_results_reuse_pinned_buffers_but_never_overwrite_a_held_result(cuda):
    from breadth import gpu
    from breadth.gpu.search import HOST_PAIRS

    dg = gpu.DeviceGraph(breadth.Graph.from_edges(SRC, DST, N))
    sp = dg.search_space()
    a = breadth.bfs(dg, 0, device="cuda")
    b = breadth.bfs(dg, 6, device="cuda")                     # a holds its pair: b gets a second one
    assert a.depth[4] == 4 and a.depth[7] == -1 and b.depth[7] == 1 and b.depth[0] == -1
    assert not np.shares_memory(a.depth, b.depth) and len(sp.hosts) == 2
    c = breadth.bfs(dg, 0, device="cuda")                     # a and b hold theirs: a third pair
    held = sp.host
    assert len(sp.hosts) == 3 and np.shares_memory(c.depth, held[1]) and c.depth[4] == 4 and b.depth[7] == 1
    del c
    d = breadth.bfs(dg, 6, device="cuda")                     # nothing holds c's pair: it is reused
    assert sp.host is held and np.shares_memory(d.depth, held[1]) and len(sp.hosts) == 3
    assert d.depth[7] == 1 and a.depth[4] == 4 and b.depth[7] == 1
    kept = [breadth.bfs(dg, 0, device="cuda") for _ in range(HOST_PAIRS)]    # more held results than the pool
    assert len(sp.hosts) == HOST_PAIRS and all(r.depth[4] == 4 for r in kept)
    assert a.depth[4] == 4 and b.depth[7] == 1 and d.depth[7] == 1


def test_a_loop_keeping_its_last_result_alternates_two_pinned_pairs(cuda):
    from breadth import gpu

    dg = gpu.DeviceGraph(breadth.Graph.from_edges(SRC, DST, N))
    r = None
    for root in [0, 6, 0, 6, 0]:
        r = breadth.bfs(dg, root, device="cuda")
        assert r.depth[4 if root == 0 else 7] == (4 if root == 0 else 1)
    assert len(dg.search_space().hosts) == 2


@pytest.mark.parametrize("bad", [None, 0, "yes", 1.0])
def test_to_host_must_be_a_bool(dg, bad):
    with pytest.raises(InputError, match="to_host must be True or False"):
        breadth.bfs(dg, 0, device="cuda", to_host=bad)


def test_device_results_need_the_gpu():
    g = breadth.Graph.from_edges(SRC, DST, N)
    with pytest.raises(InputError, match="to_host=False keeps results in GPU memory"):
        breadth.bfs(g, 0, to_host=False)
    assert breadth.bfs(g, 0).to_host().depth[4] == 4
