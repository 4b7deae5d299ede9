"""The planner at 10^5 ranks: per-host counts in closed form equal a scan of every rank, the
butterfly's closed-form messages equal its schedule, and ``breadth plan`` answers at B2D's 115,600 ranks."""
import subprocess
import sys
import time

import pytest

from breadth.distributed.one_d import butterfly_cost, butterfly_exchange
from breadth.distributed.planner import network, ops
from breadth.distributed.two_d import fold_cost


def _scan(hosts, group, cores):
    """The per-operation scan the closed form replaces: every member's host, every rank per host."""
    got = {}
    for r in group:
        got[hosts[r]] = got.get(hosts[r], 0) + 1
    crowded = any(sum(1 for x in hosts if x == h) > cores for h in got)
    return tuple(sorted(set(got.values()))), len(got), crowded


@pytest.mark.parametrize("P,H", [(1, 1), (7, 3), (12, 4), (30, 7), (64, 64), (100, 9)])
def test_block_counts_equal_the_scan(P, H):
    m = network.assumed(P, H, 4, 1e-6, 1e9)
    groups = [range(P), range(0, P, 3), range(1, P, 2), range(2, min(P, 11)), range(0, P, max(1, P // 4)),
              (0, P - 1), range(P - 1, -1, -2)]
    for g in groups:
        if len(g) == 0:
            continue
        assert m._host_counts(g) == _scan(m.hosts, g, 4), g
        assert m._block() == -(-P // H)


def test_any_placement_is_counted_like_the_scan():
    hosts = (0, 1, 0, 2, 1, 1, 0, 2)            # round-robin-ish, as a probe may find
    m = network.Machine(hosts, 2, {}, {}, 1e9, 1e8)
    assert m._block() is None
    for g in (range(8), range(0, 8, 2), (1, 4, 5), range(3, 6)):
        assert m._host_counts(g) == _scan(hosts, g, 2)
    assert [m.ranks_on_host(h) for h in range(3)] == [3, 3, 2]


def test_op_seconds_unchanged_by_ranges():
    m = network.assumed(12, 3, 4, 1e-5, 1e8)
    a = ops.Op("x", "alltoall", range(12), 11, 1100.0)
    b = ops.Op("x", "alltoall", tuple(range(12)), 11, 1100.0)
    # per rank: 3 of its 11 peers on its host, 8 across a link its host's 4 ranks share
    expect = 11 * 1e-5 + 1100 * 3 / 11 / network.PRESETS["shm"][1] + 1100 * 8 / 11 / (1e8 / 4)
    assert m.op_seconds(a) == pytest.approx(expect) and m.op_seconds(b) == pytest.approx(expect)


def _from_schedule(P, f):
    rounds = butterfly_exchange.butterfly_schedule(P, f)
    return (tuple(sum(len(x) for x in rnd) for rnd in rounds), tuple(max(len(x) for x in rnd) for rnd in rounds))


@pytest.mark.parametrize("f", butterfly_cost.FANOUTS)
def test_butterfly_closed_form_equals_the_schedule(f):
    for P in list(range(1, 260)) + [343, 511, 1000, 2000, 2187, 3125, 4095]:
        assert (butterfly_cost.round_messages(P, f), butterfly_cost.busiest_partners(P, f)) == _from_schedule(P, f), P


def test_butterfly_closed_form_by_hand():
    # P = 7, f = 1: virtual rank 7 is hosted by 7 mod 4 = 3. Round 0 pairs {0,1} {2,3} {4,5} and
    # {6,7 -> 3}: 6 + 2 messages, rank 3 with two partners. Round 1 pairs {0,2} {1,3} {4,6} {5,7 -> 3}:
    # 8, rank 3 with two. Round 2 pairs {0,4} {1,5} {2,6} and {3,7 -> 3}: 6, one partner each.
    assert butterfly_cost.round_messages(7, 1) == (8, 8, 6)
    assert butterfly_cost.busiest_partners(7, 1) == (2, 2, 1)


def test_butterfly_messages_at_a_power_of_the_radix_are_p_f_log_p():
    assert sum(butterfly_cost.round_messages(3 ** 9, 2)) == 3 ** 9 * 2 * 9
    assert sum(butterfly_cost.round_messages(5 ** 9, 4)) == 5 ** 9 * 4 * 9
    assert butterfly_cost.busiest_partners(5 ** 9, 4) == (4,) * 9


def test_transpose_senders():
    # a square grid keeps its diagonal; 2x3: ranks 0 and 5 keep their pieces
    assert fold_cost.transpose_senders(4, 4) == 12 and fold_cost.transpose_senders(2, 3) == 4
    R, C = 3, 5
    assert fold_cost.transpose_senders(R, C) == sum(1 for q in range(R * C) if fold_cost.transposed(q, R, C) != q)


def test_plan_answers_at_b2d_scale():
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "breadth", "plan", "--scale", "35", "--ranks", "115600", "--hosts",
                          "28900", "--cores", "24", "--network", "infiniband"], capture_output=True, text=True,
                         timeout=300)
    took = time.perf_counter() - t
    assert out.returncode == 0, out.stderr
    assert "recommendation" in out.stdout
    assert took < 120          # 10 s on a quiet machine; generous on a shared one
