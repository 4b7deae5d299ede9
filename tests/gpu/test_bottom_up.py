"""The bottom-up step's packing kernels against numpy: the bitmaps of a switch to bottom-up, and the
vertices without in-edges, for every block size, with blocks covering several rounds."""
import numpy as np
import pytest

import breadth


def _bits(mask, words):
    """A boolean per vertex as uint32 words, bit v & 31 of word v >> 5."""
    padded = np.zeros(32 * words, dtype=bool)
    padded[:mask.size] = mask
    return np.packbits(padded, bitorder="little").view("<u4").astype(np.uint32)


@pytest.mark.parametrize("tpb, blocks", [(32, 1), (64, 3), (128, 2), (128, 9)])
@pytest.mark.parametrize("n", [1, 31, 32, 33, 200, 1000])
def test_switch_bitmaps_and_idle_vertices_equal_numpy(cuda, tpb, blocks, n):
    from breadth.gpu import device
    from breadth.gpu.bottom_up import bitmaps_from_depth, in_degree_zero_words

    rng = np.random.default_rng(n + tpb)
    words = (n + 31) // 32
    depth = rng.integers(-1, 4, n).astype(np.int64)
    in_degree = rng.integers(0, 3, n) * (rng.random(n) < 0.5)
    in_indptr = np.concatenate([[0], np.cumsum(in_degree)]).astype(np.int64)
    idle = device.empty(words, np.uint32)
    in_degree_zero_words[blocks, tpb](device.to_device(in_indptr), n, idle)
    want_idle = _bits(in_degree == 0, words)
    np.testing.assert_array_equal(device.to_host(idle), want_idle)
    front, next_front, visited = (device.to_device(np.full(words, 0xFFFFFFFF, dtype=np.uint32)) for _ in range(3))
    bitmaps_from_depth[blocks, tpb](device.to_device(depth), 2, idle, front, next_front, visited, n)
    np.testing.assert_array_equal(device.to_host(front), _bits(depth == 2, words))
    np.testing.assert_array_equal(device.to_host(visited), _bits(depth >= 0, words) | want_idle)
    assert not device.to_host(next_front).any()


def test_isolated_and_source_only_vertices_stay_unreached_bottom_up(cuda):
    """Vertices without in-edges start visited in every bottom-up step: a directed graph whose
    sources (no in-edges) are not the root keeps them unreached, and the root may be one."""
    from breadth import gpu

    src = [0, 0, 1, 2, 5, 5, 6]
    dst = [1, 2, 3, 3, 3, 6, 4]                   # 0 and 5 have no in-edges, 7 is isolated
    g = breadth.Graph.from_edges(src, dst, 8, directed=True)
    dg = gpu.DeviceGraph(g)
    for root in (0, 5, 7):
        r = gpu.bfs(dg, root, "bu")
        np.testing.assert_array_equal(r.depth, breadth.bfs(g, root).depth)
        breadth.validate(g, root, r.parent, r.depth)
