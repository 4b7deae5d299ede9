"""Level statistics: the tick clock, its conversion to seconds, and BFSResult.levels (LevelList)."""
import pickle
import time

import numpy as np

import breadth
from breadth.kernels.levels import seconds_per_tick, ticks
from breadth.result import LevelList, LevelStats


def test_ticks_convert_to_wall_seconds():
    per = seconds_per_tick()
    assert 1e-11 < per < 1e-5
    c0, t0 = ticks(), time.perf_counter()
    time.sleep(0.05)
    c1, t1 = ticks(), time.perf_counter()
    assert c1 > c0
    assert abs((c1 - c0) * per - (t1 - t0)) < 0.5 * (t1 - t0)


def test_level_seconds_fit_inside_the_search():
    side = 60
    ids = np.arange(side * side).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    g = breadth.Graph.from_edges(src, dst, side * side)
    r = breadth.bfs(g, 0)
    assert len(r.levels) == 2 * side - 1
    total = sum(lv.seconds for lv in r.levels)
    assert 0 < total <= r.seconds
    assert all(lv.seconds >= 0 for lv in r.levels)


def test_level_list_reads_like_a_list():
    stats = np.array([[0, 0, 1, 3, 3], [1, 1, 3, 9, 2]], dtype=np.int64)
    lst = LevelList(stats, np.array([0.5, 0.25]))
    assert len(lst) == 2
    want = [LevelStats(0, "top-down", 1, 3, 3, 0.5), LevelStats(1, "bottom-up", 3, 9, 2, 0.25)]
    assert lst == want and list(lst) == want and lst[-1] == want[-1]
    assert pickle.loads(pickle.dumps(lst)) == want
    assert [lv.as_dict()["direction"] for lv in lst] == ["top-down", "bottom-up"]
