"""The direction policy of every BFS driver: Beamer's alpha/beta rule.

Reference: S. Beamer, K. Asanović, D. Patterson, "Direction-Optimizing
Breadth-First Search", SC'12, Section 4 (the heuristic), with the constants and
the "at least one top-down step after coming back" detail of GAP's ``DOBFS``.
The distributed papers use the same rule on global counts (Beamer, Buluç et
al., Section IV; Pan et al., Section IV-B applies it per subgraph).

The rule, with m_f the out-edges of the current frontier (the *scout* count),
m_u the edges not yet explored, n_f the frontier's size and n the vertices:

* top-down → bottom-up when ``m_f > m_u / alpha`` (the frontier has grown large);
* bottom-up → top-down when the frontier shrinks and is small:
  not ``(n_f >= previous n_f or n_f > n / beta)``;
* after switching back, the next level is top-down whatever m_f says.

``mode`` pins the rule: ``TOP_DOWN`` never goes bottom-up, ``BOTTOM_UP`` never
comes back. Every driver -- single-node, distributed, multi-source, GPU --
decides through ``go_bottom_up`` / ``stay_bottom_up``: the njit functions are
callable from numba kernels and from Python alike. Drivers that keep m_u by
subtracting each top-down frontier's scout count (Beamer's bookkeeping) can use
the ``Policy`` stepper, whose state lives in a small array so that numba drivers
and Python drivers step exactly the same code.

Invariants: ``unexplored`` never grows; a level decided bottom-up stays so until
``stay_bottom_up`` says otherwise; the same counts give the same directions on
every engine, which is why a distributed search takes the same directions as
``breadth.bfs`` on the same graph.
"""
import numpy as np
from numba import njit

ALPHA = 15.0
BETA = 18.0

DIRECTION_OPTIMIZING, TOP_DOWN, BOTTOM_UP = 0, 1, 2
ALGORITHMS = {"do": DIRECTION_OPTIMIZING, "td": TOP_DOWN, "bu": BOTTOM_UP}
ALGORITHM_HELP = {"do": "direction-optimizing", "td": "top-down only", "bu": "bottom-up only"}

TD, BU = 0, 1                      # the direction a level took (LevelStats.direction)
DIRECTIONS = ("top-down", "bottom-up")


@njit(cache=True)
def go_bottom_up(mode, force_td, scout, unexplored, alpha):
    """Before a top-down level: run it bottom-up instead?"""
    if mode == BOTTOM_UP:
        return True
    if mode == TOP_DOWN or force_td:
        return False
    return scout > unexplored / alpha


@njit(cache=True)
def stay_bottom_up(mode, awake, old_awake, n, beta, stay_at_limit=False):
    """After a bottom-up level that woke ``awake`` vertices from a frontier of ``old_awake``:
    is the next level bottom-up too?

    A frontier of exactly n / beta vertices counts as small (GAP's ``awake > n / beta``
    to stay), unless ``stay_at_limit``: then it counts as large, i.e. back to top-down
    only when n_f < n / beta, as Beamer's paper writes the rule (the multi-source
    traversal's form, kept so that its directions do not change).
    """
    if mode != DIRECTION_OPTIMIZING:
        return mode == BOTTOM_UP
    if awake >= old_awake:
        return True
    return awake >= n / beta if stay_at_limit else awake > n / beta


# ---------------------------------------------------------------- the stepper
_MODE, _ALPHA, _BETA, _N, _UNEXPLORED, _BOTTOM_UP, _FORCE_TD = range(7)


@njit(cache=True)
def policy_state(mode, alpha, beta, n, num_arcs):
    """A fresh stepper state: top-down, nothing explored (``num_arcs`` edges to explore)."""
    s = np.zeros(7, dtype=np.float64)
    s[_MODE] = mode
    s[_ALPHA] = alpha
    s[_BETA] = beta
    s[_N] = n
    s[_UNEXPLORED] = num_arcs
    return s


@njit(cache=True)
def policy_direction(state, scout):
    """The direction of the next level (``scout``: out-edges of its frontier); True = bottom-up.

    A top-down level's scout edges count as explored from here on.
    """
    if state[_BOTTOM_UP] == 0.0:
        go = go_bottom_up(int(state[_MODE]), state[_FORCE_TD] != 0.0, scout, state[_UNEXPLORED], state[_ALPHA])
        state[_FORCE_TD] = 0.0
        if go:
            state[_BOTTOM_UP] = 1.0
        else:
            state[_UNEXPLORED] -= scout
    return state[_BOTTOM_UP] != 0.0


@njit(cache=True)
def policy_after_bottom_up(state, awake, old_awake):
    """Record a finished bottom-up level; the next is top-down when the frontier became small."""
    if not stay_bottom_up(int(state[_MODE]), awake, old_awake, state[_N], state[_BETA]):
        state[_BOTTOM_UP] = 0.0
        state[_FORCE_TD] = 1.0


class Policy:
    """The stepper for drivers written in Python (distributed, GPU host loops).

    ``direction(scout)`` before each level, ``after_bottom_up(awake, old_awake)``
    after each bottom-up level -- the same njit code the single-node driver runs.
    """

    def __init__(self, mode, alpha, beta, num_vertices, num_arcs):
        self.state = policy_state(int(mode), float(alpha), float(beta), float(num_vertices), float(num_arcs))

    def direction(self, scout) -> bool:
        return bool(policy_direction(self.state, float(scout)))

    def after_bottom_up(self, awake, old_awake) -> None:
        policy_after_bottom_up(self.state, float(awake), float(old_awake))

    @property
    def bottom_up(self) -> bool:
        return self.state[_BOTTOM_UP] != 0.0

    @property
    def unexplored(self) -> float:
        return float(self.state[_UNEXPLORED])
