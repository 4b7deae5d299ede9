"""The policy state against GAP's direction decisions (GAP's ``bfs.cc``, ``DOBFS``).

GAP, with m_u = ``edges_to_check`` and m_f = ``scout_count``: before a level, go bottom-up
when ``scout_count > edges_to_check / alpha``; stay bottom-up while the frontier grows or
``awake_count > num_nodes / beta``; after the bottom-up run ``scout_count = 1``, i.e. one
top-down level (with more than alpha edges left, as in these profiles). A top-down level
subtracts its scout count from ``edges_to_check``.
"""
import numpy as np
import pytest

from breadth.kernels.policy import (ALPHA, BETA, BOTTOM_UP, DIRECTION_OPTIMIZING, POLICY_DTYPE, TOP_DOWN, Policy,
                                    policy_after_bottom_up, policy_decide, policy_direction, policy_explored,
                                    policy_measured, policy_state, policy_top_down_run, policy_unexplored,
                                    RUN_STEPS, run_row)

# a hand-made profile: n, m and, per level, the frontier size and its out-edges (scout count);
# the frontier of level i + 1 is what level i woke
N, M = 1000, 10000
FRONTIER = [1, 10, 100, 400, 300, 50, 40, 5]
SCOUT = [10, 100, 1000, 4000, 3000, 500, 400, 50]
# worked by hand with GAP's rule, alpha 15, beta 18 (n / beta = 55.6):
#  0: 10 > 10000/15 = 666.7? no -> TD, m_u 9990       1: 100 > 666.0? no -> TD, m_u 9890
#  2: 1000 > 659.3? yes -> BU, woke 400 >= 100: stay   3: woke 300 < 400 but > 55.6: stay
#  4: woke 50 < 300 and <= 55.6: back                  5: the one top-down level after coming back
#  6: 400 > 9390/15 = 626? no -> TD                     7: 50 > 599.3? no -> TD
GAP = ["TD", "TD", "BU", "BU", "BU", "TD", "TD", "TD"]


def gap_directions(frontier, scout, n, m, alpha, beta):
    """GAP's DOBFS loop, transcribed, on a profile instead of a graph: one direction per level."""
    out, edges_to_check, level, came_back = [], m, 0, False
    scout_count = scout[0]
    while level < len(frontier):
        if scout_count > edges_to_check / alpha:
            awake_count = frontier[level]
            while True:
                old_awake_count = awake_count
                out.append("BU")
                level += 1
                awake_count = frontier[level] if level < len(frontier) else 0
                if not (awake_count >= old_awake_count or awake_count > n / beta) or level == len(frontier):
                    break
            scout_count, came_back = 1, True
        else:
            edges_to_check -= scout[level] if came_back else scout_count
            came_back = False
            out.append("TD")
            level += 1
            scout_count = scout[level] if level < len(frontier) else 0
    return out


def policy_directions(policy, frontier, scout):
    out = []
    for level, (f, s) in enumerate(zip(frontier, scout)):
        bottom_up = policy.direction(s)
        out.append("BU" if bottom_up else "TD")
        if bottom_up:
            policy.after_bottom_up(frontier[level + 1] if level + 1 < len(frontier) else 0, f)
    return out


def test_hand_made_profile_takes_gaps_decisions():
    assert gap_directions(FRONTIER, SCOUT, N, M, ALPHA, BETA) == GAP
    policy = Policy(DIRECTION_OPTIMIZING, ALPHA, BETA, N, M)
    assert policy_directions(policy, FRONTIER, SCOUT) == GAP
    # top-down levels' scout counts are explored: 10 + 100 + 500 + 400 + 50
    assert policy.unexplored == M - 1060


@pytest.mark.parametrize("seed", range(20))
def test_random_profiles_take_gaps_decisions(seed):
    """Frontiers that grow and shrink at random: the stepper and GAP's loop agree level by level.

    GAP subtracts the ``scout_count = 1`` of its first top-down level after a bottom-up run; breadth
    subtracts that level's real scout count (known to every driver): the transcription does the same."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(500, 5000))
    levels = int(rng.integers(3, 12))
    frontier = [1] + [int(x) for x in rng.integers(1, n // 3, levels - 1)]
    scout = [int(f * rng.integers(1, 20)) for f in frontier]
    m = max(sum(scout), 16 * ALPHA)
    alpha, beta = float(rng.choice([2.0, ALPHA])), float(rng.choice([4.0, BETA]))
    expected = gap_directions(frontier, scout, n, m, alpha, beta)
    assert policy_directions(Policy(DIRECTION_OPTIMIZING, alpha, beta, n, m), frontier, scout) == expected


def test_frontier_of_exactly_n_over_beta_goes_back_unless_stay_at_limit():
    n = int(BETA) * 100                      # n / beta = 100
    frontier, scout = [1, 200, 150, 100, 10], [10 ** 6, 1, 1, 1, 1]
    assert policy_directions(Policy(DIRECTION_OPTIMIZING, ALPHA, BETA, n, 10 ** 6), frontier, scout) == \
        ["BU", "BU", "BU", "TD", "TD"]
    at_limit = Policy(DIRECTION_OPTIMIZING, ALPHA, BETA, n, 10 ** 6, stay_at_limit=True)
    assert policy_directions(at_limit, frontier, scout) == ["BU", "BU", "BU", "BU", "TD"]


def test_pinned_modes():
    assert policy_directions(Policy(TOP_DOWN, ALPHA, BETA, N, M), FRONTIER, SCOUT) == ["TD"] * len(FRONTIER)
    assert policy_directions(Policy(BOTTOM_UP, ALPHA, BETA, N, M), FRONTIER, SCOUT) == ["BU"] * len(FRONTIER)


def test_measured_unexplored_edges_drive_decide():
    """A driver that measures m_u itself (iBFS): ``policy_decide`` leaves it, the driver reports it."""
    state = policy_state(DIRECTION_OPTIMIZING, ALPHA, BETA, N, 1500.0, True)
    assert not policy_decide(state, 100.0)          # 100 > 1500 / 15? no
    assert policy_unexplored(state) == 1500.0
    policy_explored(state, 60.0)
    assert policy_decide(state, 100.0)              # 100 > 1440 / 15 = 96
    policy_measured(state, 3000.0)
    assert policy_decide(state, 100.0)              # bottom-up until after_bottom_up says otherwise


def fields(state):
    """The state's fields by name, as plain Python values."""
    return {name: state[name][0].item() for name in POLICY_DTYPE.names}


def test_named_state_steps_by_hand():
    """n 1000, m 10000, alpha 15, beta 18 (n / beta = 55.6), every field checked by name."""
    state = policy_state(DIRECTION_OPTIMIZING, ALPHA, BETA, 1000, 10000)
    assert state.shape == (1,) and state.dtype == POLICY_DTYPE
    assert fields(state) == {"mode": DIRECTION_OPTIMIZING, "alpha": 15.0, "beta": 18.0, "n": 1000.0,
                             "unexplored": 10000.0, "bottom_up": False, "force_td": False, "at_limit": False}
    assert not policy_direction(state, 600)          # 600 > 10000 / 15 = 666.7? no: top-down, 600 explored
    assert fields(state)["unexplored"] == 9400.0
    assert policy_direction(state, 630)              # 630 > 9400 / 15 = 626.7: bottom-up, nothing explored
    assert fields(state)["unexplored"] == 9400.0 and fields(state)["bottom_up"]
    policy_after_bottom_up(state, 200, 100)          # the frontier grew: stay
    policy_after_bottom_up(state, 60, 200)           # shrank, but 60 > 55.6: stay
    assert fields(state)["bottom_up"] and not fields(state)["force_td"]
    policy_after_bottom_up(state, 55, 60)            # shrank to 55 <= 55.6: back to top-down, forced once
    assert not fields(state)["bottom_up"] and fields(state)["force_td"]
    assert not policy_direction(state, 5000)         # 5000 > 9400 / 15, but the level after coming back
    assert fields(state)["unexplored"] == 4400.0 and not fields(state)["force_td"]
    assert policy_direction(state, 300)              # 300 > 4400 / 15 = 293.3


def test_named_state_of_the_python_stepper_is_the_same_record():
    policy = Policy(DIRECTION_OPTIMIZING, 2.0, 4.0, 100, 50, stay_at_limit=True)
    assert fields(policy.state)["at_limit"] and fields(policy.state)["alpha"] == 2.0
    assert policy.decide(26)                         # 26 > 50 / 2
    assert policy.bottom_up and policy.unexplored == 50.0
    policy.after_bottom_up(25, 30)                   # 25 >= 100 / 4 stays at the limit
    assert policy.bottom_up
    policy.after_bottom_up(24, 25)
    assert not policy.bottom_up and fields(policy.state)["force_td"]


def run_bounds(m_u, max_scout=16384, mode=DIRECTION_OPTIMIZING):
    bounds = np.zeros((RUN_STEPS, 2))
    policy_top_down_run(policy_state(mode, ALPHA, BETA, 1000, m_u), max_scout, bounds)
    return bounds


def test_top_down_run_bounds_by_hand():
    """Rows of (explored limit, scout cap): each keeps 3/4 of the edges left by the one before,
    from at most alpha * max_scout = 245760."""
    b = run_bounds(600000.0)
    assert b[0].tolist() == [600000 - 245760, 16384.0]
    assert b[1].tolist() == [600000 - 184320, 12288.0]             # 184320 = 245760 * 3/4
    assert b[2].tolist() == [600000 - 138240, 9216.0]
    b = run_bounds(3000.0)
    assert b[0].tolist() == [0.0, 200.0] and b[1].tolist() == [750.0, 150.0]
    assert b[2].tolist() == [np.floor(3000 - 1687.5), np.floor(1687.5 / 15)]   # 1312, 112
    assert (np.diff(b[:, 0]) >= 0).all() and (np.diff(b[:, 1]) <= 0).all() and b[-1, 1] == 0
    assert run_bounds(5.0, 7, TOP_DOWN)[-1].tolist() == [np.inf, 7.0]
    assert run_row(b, 0, 0) == 0 and run_row(b, 0, 751) == 2 and run_row(b, 1, 3000) == RUN_STEPS


@pytest.mark.parametrize("m_u", [600000.0, 200000.0, 3000.0, 1e6 + 7, 31.0, 1234567.0])
def test_top_down_run_bounds_keep_levels_top_down(m_u):
    """Every level within a row (explored <= its limit, scout <= its cap) is one the rule takes
    top-down after that many edges were explored; one edge past a row's corner on both sides, the
    rule goes bottom-up where the cap is not max_scout's (the corners are on the rule's line)."""
    def decide(explored, scout):
        state = policy_state(DIRECTION_OPTIMIZING, ALPHA, BETA, 1000, m_u)
        policy_explored(state, explored)
        return policy_decide(state, scout)

    for limit, cap in run_bounds(m_u):
        for explored in np.linspace(0, max(limit, 0), 5):
            assert not decide(np.floor(explored), cap)
        if 0 <= limit and cap < 16384:
            assert decide(limit + 1, cap + 1)
