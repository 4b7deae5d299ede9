"""Shared links: a host's link carries every rank of the host at once (all groups run an operation
together), and a torus's bisection carries the traffic of groups spread over the machine --
each against a hand-computed case."""
import pytest

from breadth.distributed.planner import network, ops
from breadth.distributed.planner.ops import Op


def _machine(P, H, bw=1e9, **kw):
    m = network.assumed(P, H, 8, 1e-6, bw)
    m.alpha_local = {k: 0.0 for k in ops.KINDS}
    m.alpha_remote = {k: 0.0 for k in ops.KINDS}
    for k, v in kw.items():
        setattr(m, k, v)
    return m


def test_a_column_shares_its_hosts_link_with_the_other_columns():
    # 4 hosts x 2 ranks, a 4 x 2 grid (row-major): column 0 = ranks 0, 2, 4, 6, one on each host.
    m = _machine(8, 4)
    col = range(0, 8, 2)
    assert m.link_sharers(col) == 2
    op = Op("expand", "allgather", col, 2, 3e6, 0.0, 0.0, 0.0)
    # every byte is remote (no peer on the host), and the host's 2 ranks share its 1 GB/s link
    assert m.op_seconds(op) == pytest.approx(3e6 / (1e9 / 2))


def test_a_group_on_one_host_uses_no_link():
    m = _machine(8, 4)
    op = Op("rotate", "p2p", (0, 1), 1, 1e6, 0.0, 0.0, 0.0)
    assert m.op_seconds(op) == pytest.approx(1e6 / m.beta_local)


def test_the_bisection_bounds_traffic_spread_over_the_torus():
    # 64 hosts on a 4 x 4 x 4 torus of 1 GB/s links: the cut has 2 * 64 / 4 = 32 links each way.
    # An Alltoall of the world (1 rank per host) with 63e6 bytes per rank: 64 * 63e6 bytes, all remote,
    # half of them cross: 2016e6 bytes over 2 * 32 * 1e9 bytes/s = 0.0315 s, more than a host's
    # 63e6 / 10e9.
    m = _machine(64, 64, bw=10e9, torus=(4, 4, 4), torus_link=1e9)
    op = Op("a2a", "alltoall", range(64), 63, 63e6, 0.0, 64 * 63, 64 * 63e6)
    assert m.bisection_seconds(op, (1,)) == pytest.approx(64 * 63e6 * 0.5 / (2 * 32 * 1e9))
    assert m.op_seconds(op) == pytest.approx(64 * 63e6 * 0.5 / (2 * 32 * 1e9))


def test_a_group_on_neighbouring_hosts_crosses_little():
    # 8 consecutive hosts of 64: a fraction 8/64 of the machine, so 1/8 of the traffic a spread group
    # would send across the cut
    m = _machine(64, 64, bw=10e9, torus=(4, 4, 4), torus_link=1e9)
    op = Op("a2a", "alltoall", range(8), 7, 7e6, 0.0, 8 * 7, 8 * 7e6)
    spread = 8 * 7e6 * 0.5 / (2 * 32 * 1e9)
    assert m.bisection_seconds(op, (1,)) == pytest.approx(spread * 2 * 8 / 64)


def test_an_allreduce_counts_its_wire_bytes_not_its_copies():
    m = _machine(64, 64, bw=10e9, torus=(4, 4, 4), torus_link=1e9)
    op = ops.control_op(64, 16)
    assert m.bisection_seconds(op, (1,)) == pytest.approx(64 * 16 * 0.5 / (2 * 32 * 1e9))


def test_memory_rule_rate_by_hand():
    rule = network.MemoryRule(access_bytes=32.0, id_bytes=4.0, cache_bytes=4e6, state_bytes=4.0)
    assert rule.rate(900e9, 0.0) == pytest.approx(900e9 / 36.0)
    assert rule.rate(900e9, 0.75) == pytest.approx(900e9 / (4.0 + 8.0))


def test_the_cache_serves_the_hubs_share_of_endpoints():
    from breadth.distributed.planner import degrees

    rule = network.MemoryRule(32.0, 4.0, cache_bytes=4 * 1000, state_bytes=4.0)     # 1000 vertices' state
    model = degrees.kronecker(16, 16)
    # a rank keeping every vertex: the 1000 hottest of n; keeping a quarter: 4000 of n's equivalents
    assert rule.hit(model, model.n, model.n) == pytest.approx(model.endpoint_share(1000))
    assert rule.hit(model, model.n, model.n / 4) == pytest.approx(model.endpoint_share(4000))
    assert rule.hit(None, model.n, model.n) == 0.0
    assert rule.hit(degrees.uniform(16, 16), 2.0 ** 16, 2.0 ** 16) < 0.03
