"""The models' words against what the layouts send (the bytes ``Comm`` counts in
``bench/dist_network.py``), and the probe's bandwidth slope against a token-bucket link."""
import pytest

from breadth.distributed.delegates import cost as delegates_cost
from breadth.distributed.planner import probe, words
from breadth.distributed.two_d import scan_cost
from breadth.distributed.planner.graph import Level, Profile


def _profile(skew=None):
    return Profile(4096.0, 65536.0, [Level("top-down", 1, 40, 40, 4095), Level("bottom-up", 40, 9000, 3000, 4055),
                                     Level("bottom-up", 3000, 2000, 900, 1055)], skew or {2: (0.2, 0.8)})


def test_scan_parents_step_moves_ids():
    prof, P, R, C = _profile(), 4, 2, 2
    depths, low, _ = scan_cost.after_ops(prof, P, {"grid": f"{R}x{C}"})
    # scan_search gathers the depths a byte each (a search of fewer than 128 levels: n / P bytes per
    # owner to P - 1 ranks) and min-reduces int32 candidates, each owner receiving its piece: a rank
    # of the row sends each other rank that rank's piece, (C - 1) / C of its n / R candidates
    assert depths.volume == pytest.approx(P * (P - 1) * prof.n / P)
    assert low.volume == pytest.approx(P * (C - 1) / C * 4 * prof.n / R)
    assert low.bytes == pytest.approx((C - 1) / C * 4 * prof.n / R)
    # once the sentinel n no longer fits in int32, int64
    big = Profile(2.0 ** 31 - 1, 2.0 ** 35, prof.levels)
    depths, low, _ = scan_cost.after_ops(big, P, {"grid": f"{R}x{C}"})
    assert low.volume == pytest.approx(P * (C - 1) / C * 8 * big.n / R)


def test_delegates_send_each_nn_target_once_per_search():
    # a rank sends a remote nn target when its frontier's nn arcs first hit it, reached or not:
    # without degree classes, distinct targets among the n - d normals of its nn arcs so far
    prof, P = _profile(), 4
    d = prof.n / P
    nn = [prof.levels[0].examined * 0.2] + [lv.frontier * (1 - d / prof.n) * 2 * prof.m * 0.2 / (prof.n - d)
                                            for lv in prof.levels[1:]]
    sent = []
    for i, lv in enumerate(prof.levels):
        ops = {o.name: o for o in delegates_cost.level_ops(prof, lv, P, {"threshold": "auto"})}
        before, upto = sum(nn[:i]) / P, sum(nn[:i + 1]) / P
        ids = (words.distinct(upto, prof.n - d) - words.distinct(before, prof.n - d)) * (P - 1) / P
        assert ids > 1 and ops["nn ids"].bytes == pytest.approx(16 * (P - 1) + 4 * ids)
        sent.append(ids)
    # over the search: the rank's distinct targets of all its nn arcs, the remote share of them
    assert sum(sent) == pytest.approx(words.distinct(sum(nn) / P, prof.n - d) * (P - 1) / P)


def test_delegate_parents_are_gathered_numbers_not_a_reduction_of_every_delegate():
    prof, P = _profile(), 4
    ops = {o.name: o for o in delegates_cost.after_ops(prof, P, {"threshold": "auto"})}
    u = delegates_cost.UNRESOLVED * prof.n / P
    got = ops["delegate parents"]
    assert got.kind == "allgather"
    assert got.volume == pytest.approx(P * 4 * u / P * (P - 1) + 2 * 4 * u * (P - 1) / P)
    assert got.volume < (P - 1) * P * 4 * prof.n / P / 10      # far below an Allreduce of d ids


@pytest.mark.parametrize("beta,latency,burst", [(1.25e5, 2e-3, 3028), (2.5e7, 1e-4, 65536), (3e9, 2e-5, 0)])
def test_probe_slope_leaves_out_latency_and_burst(beta, latency, burst):
    def timed(block):                    # an Alltoall on 4 ranks over a token-bucket link
        sent = 3 * block
        return sent, latency + max(0.0, sent - burst) / beta
    got = probe._slope(timed, probe.FIRST_BLOCK)
    if 3 * probe.MAX_BLOCK / beta < probe.MIN_SECONDS:      # too fast to reach MIN_SECONDS: bounded by 4x bytes/s
        assert got <= beta
    else:
        assert got == pytest.approx(beta, rel=1e-6)


def test_probe_slope_falls_back_on_noise():
    calls = iter([(3072, 0.03), (12288, 0.02)])            # the larger block timed faster: noise
    assert probe._slope(lambda b: next(calls), 1024 * 4) == pytest.approx(12288 / 0.02)


def test_probe_slope_of_a_slow_link_uses_the_next_larger_size():
    sizes = []

    def timed(block):                    # 4 ranks, 1 Mbit/s: the first size is slow already
        sizes.append(block)
        return 3 * block, 1e-3 + 3 * block / 1.25e5
    assert probe._slope(timed, probe.FIRST_BLOCK) == pytest.approx(1.25e5)
    assert sizes == [probe.FIRST_BLOCK, 4 * probe.FIRST_BLOCK]


def test_probe_slope_of_a_slow_link_with_a_bucket_is_the_rate():
    # a point-to-point ring at 250 kbit/s behind a 3 kB bucket: the first size overflows it; a
    # smaller one would pass in it whole, and its slope to the first came out at 2.8x the rate
    def timed(block):
        return block, 1e-3 + max(0.0, block - 3000) / 31250
    assert probe._slope(timed, probe.FIRST_BLOCK) == pytest.approx(31250)
    small = (probe.FIRST_BLOCK - 1024) / (timed(probe.FIRST_BLOCK)[1] - timed(1024)[1])
    assert small > 2.5 * 31250
