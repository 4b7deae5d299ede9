"""The degree model at the target scale: the Kronecker closed form against a generated graph's own
degrees (the independent reference), a hand-computed two-vertex case, and the delegates layout
priced by degree threshold."""
import math

import numpy as np
import pytest

from breadth.distributed.delegates import cost as delegates_cost
from breadth.distributed.planner import degrees
from breadth.distributed.planner.graph import Level, Profile
from breadth.graph.generators import A, B, kronecker


def test_scale_one_by_hand():
    # two vertices, M = 32 tuples: the only edge {0, 1} is there unless all 32 tuples miss it
    # (each lands on (0,1) with b or (1,0) with c = b); vertex 0 keeps a self loop a, removed
    model = degrees.kronecker(1, 16)
    present = -math.expm1(-2 * 32 * B)
    assert model.lam.tolist() == pytest.approx([present, present])
    assert model.delegates(0) == pytest.approx(2 * -math.expm1(-present))
    # an endpoint is normal at TH = 1 when its other edges, Poisson(lam), number 0; at TH = 0 never
    assert model.nn_share(1) == pytest.approx(math.exp(-present) ** 2)
    assert model.nn_share(0) == pytest.approx(0.0)


@pytest.mark.parametrize("scale", [12, 14])
def test_closed_form_matches_the_generated_graph(scale):
    g = kronecker(scale, 16, 1)
    got, want = degrees.kronecker(scale, 16), degrees.measured(g)
    for th in (16, 32, 64, 128):
        assert got.delegates(th) == pytest.approx(want.delegates(th), rel=0.1, abs=3)
        assert got.nn_share(th) == pytest.approx(want.nn_share(th), rel=0.1, abs=0.002)
    deg = np.diff(np.asarray(g.indptr))
    assert got.isolated() == pytest.approx(np.count_nonzero(deg == 0), rel=0.02)


def test_shares_fall_with_scale_at_n_over_p_delegates():
    # with n/P delegates the nn share falls as the graph grows (the issue: 0.54 at scale 14, 0.28 at 20)
    shares = [degrees.kronecker(s, 16).nn_share(degrees.kronecker(s, 16).auto_threshold(124)) for s in (14, 20, 33)]
    assert shares[0] > shares[1] > shares[2]
    # at scale 33 Pan's delegate share 1.75% (Sec. VI-B) is met at TH = 128
    assert degrees.kronecker(33, 16).delegates(128) / 2 ** 33 == pytest.approx(0.0175, abs=0.001)


def test_uniform_graph_has_no_skew():
    model = degrees.uniform(20, 16)
    assert model.delegates(64) / model.n < 1e-6 and model.nn_share(64) == pytest.approx(1.0)


def test_delegates_priced_by_threshold_and_overrides():
    prof = Profile(2.0 ** 16, 16 * 2.0 ** 16, [Level("top-down", 1, 50, 40, 2 ** 16 - 1)], {},
                   "test", degrees.kronecker(16, 16))
    th, d, nn = prof.delegation(8, 64)
    assert th == 64 and d == pytest.approx(prof.degrees.delegates(64)) and nn == pytest.approx(prof.degrees.nn_share(64))
    ops = {o.name: o for o in delegates_cost.level_ops(prof, prof.levels[0], 8, {"threshold": 64})}
    lv = prof.levels[0]
    from breadth.distributed.planner import words
    ids = words.distinct(lv.examined * nn / 8, prof.n) * lv.unvisited / prof.n * 7 / 8
    assert ops["nn ids"].bytes == pytest.approx(16 * 7 + 4 * ids)
    prof.overrides = {"nn_share": 0.063, "delegate_fraction": 0.0175}
    assert prof.delegation(8, 64) == (64, pytest.approx(0.0175 * prof.n), 0.063)
    assert {"threshold": 128} in delegates_cost.candidates(8) and {"threshold": "auto"} in delegates_cost.candidates(8)


@pytest.mark.parametrize("top", [100, 1000, 6553, 20000])
def test_endpoint_share_of_the_hubs_matches_a_generated_graph(top):
    from breadth.graph.generators import kronecker

    g = kronecker(16, 16, 1)
    deg = np.sort(np.diff(np.asarray(g.indptr)))[::-1]
    assert degrees.kronecker(16, 16).endpoint_share(top) == pytest.approx(deg[:top].sum() / deg.sum(), rel=0.02)


def test_unreached_above_by_hand():
    # one class of Poisson(8) degrees: a share U unreached means exp(-8 y) = U, and the unreached keep
    # Poisson(8 (1 - y)) = Poisson(8 + ln U) degrees, of which P(> TH) are delegates
    model = degrees.DegreeModel(1000, 4000, [1.0], [8.0], [[1.0]], "one class")
    th, U = 10, 0.3
    mu = 8.0 + math.log(U)
    want = 1000 * U * (1.0 - sum(math.exp(-mu) * mu ** k / math.factorial(k) for k in range(th + 1)))
    assert model.unreached_above(U, th) == pytest.approx(want, rel=1e-6)
    assert model.unreached_above(1.0, th) == pytest.approx(model.delegates(th))
    assert model.unreached_above(0.0, th) == 0.0
    # the high-degree vertices go first: their share of the unreached falls as the search goes on
    assert model.unreached_above(0.9, th) / 0.9 > model.unreached_above(0.5, th) / 0.5


def test_root_degrees_by_hand():
    # one class of Poisson(3): a root has degree >= 1, so P(D = 1 | D >= 1) = 3 e^-3 / (1 - e^-3), and
    # the buckets' mean is E[D | D >= 1] = 3 / (1 - e^-3)
    model = degrees.DegreeModel(1000, 1500, [1.0], [3.0], [[1.0]], "one class")
    got = model.root_degrees()
    live = 1.0 - math.exp(-3.0)
    assert got[0] == pytest.approx((3.0 * math.exp(-3.0) / live, 1.0))
    assert sum(w for w, _ in got) == pytest.approx(1.0)
    assert sum(w * d for w, d in got) == pytest.approx(3.0 / live, rel=1e-6)
    # a heavy tail: Kronecker scale 16's non-isolated vertices have degree 39 on average
    kron = degrees.kronecker(16, 16).root_degrees()
    assert sum(w * d for w, d in kron) == pytest.approx(38.9, rel=0.01)
    assert kron[0][0] > 0.15                      # almost a fifth of the roots have one edge
