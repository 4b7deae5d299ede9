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
callable from numba kernels and from Python alike. Every driver steps one policy
state (``policy_state``: a length-1 record array of ``POLICY_DTYPE`` whose fields
the verbs read and write by name, so that numba drivers and the ``Policy`` class of
Python drivers run exactly the same code): ``policy_direction`` before a level keeps
m_u by subtracting each top-down frontier's scout count (Beamer's bookkeeping);
drivers that measure m_u their own way (the multi-source traversal: in-edges of
vertices not yet full) decide with ``policy_decide`` and report it with
``policy_explored`` / ``policy_measured``. A driver that hands a run of top-down
levels to a kernel that does not decide them (the single-node search's thin levels)
bounds the run with ``policy_top_down_run`` (read with ``run_row``) and reports its explored
edges after it.

Only the three level loops step a state: the single-node one
(``kernels.direction_optimizing.level_loop``, also the GPU search's), the distributed
one (``DistSearch._run`` in ``distributed.search_base``) and the multi-source one
(``multisource.level_loop``, also the GPU iBFS's).

Invariants: ``unexplored`` never grows; a level decided bottom-up stays so until
``stay_bottom_up`` says otherwise; the same counts give the same directions on
every engine, which is why a distributed search takes the same directions as
``breadth.bfs`` on the same graph; every level of a run within
``policy_top_down_run``'s bounds is one that ``policy_decide`` would take top-down (edge counts
are whole numbers).
"""
import numpy as np

from ..jit import njit

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
POLICY_DTYPE = np.dtype([("mode", np.int64), ("alpha", np.float64), ("beta", np.float64), ("n", np.float64),
                         ("unexplored", np.float64), ("bottom_up", np.bool_), ("force_td", np.bool_),
                         ("at_limit", np.bool_)], align=True)
"""The fields of a policy state: the pinned ``mode``, the rule's ``alpha``/``beta``, the vertex count
``n``, the edges still ``unexplored`` (m_u), whether the stepper is in a ``bottom_up`` phase, whether
the next decision is forced top-down (``force_td``: the level after coming back), and ``at_limit``
(``stay_bottom_up``'s ``stay_at_limit``)."""


@njit(cache=True)
def policy_state(mode, alpha, beta, n, unexplored, stay_at_limit=False):
    """A fresh stepper state (a length-1 array of ``POLICY_DTYPE``): top-down, ``unexplored`` edges
    to explore (``stay_bottom_up`` says what ``stay_at_limit`` means)."""
    state = np.zeros(1, dtype=POLICY_DTYPE)
    s = state[0]
    s.mode, s.alpha, s.beta, s.n = mode, alpha, beta, n
    s.unexplored, s.at_limit = unexplored, stay_at_limit
    return state


@njit(cache=True)
def policy_decide(state, scout):
    """The direction of the next level (``scout``: out-edges of its frontier); True = bottom-up.

    Leaves the unexplored count alone: a driver that measures explored edges its own way
    reports them with ``policy_explored`` / ``policy_measured``.
    """
    s = state[0]
    if not s.bottom_up:
        go = go_bottom_up(s.mode, s.force_td, scout, s.unexplored, s.alpha)
        s.force_td = False
        s.bottom_up = go
    return s.bottom_up


@njit(cache=True)
def policy_explored(state, edges):
    """``edges`` more edges count as explored (a top-down level's, or a run's)."""
    state[0].unexplored -= edges


@njit(cache=True)
def policy_measured(state, unexplored):
    """The unexplored edges are ``unexplored`` now (a driver that counts them after a level)."""
    state[0].unexplored = unexplored


@njit(cache=True)
def policy_direction(state, scout):
    """``policy_decide`` with Beamer's bookkeeping: a top-down level's scout edges count as
    explored from here on (GAP's ``edges_to_check -= scout_count``)."""
    bottom_up = policy_decide(state, scout)
    if not bottom_up:
        policy_explored(state, scout)
    return bottom_up


@njit(cache=True)
def policy_after_bottom_up(state, awake, old_awake):
    """Record a finished bottom-up level; the next is top-down when the frontier became small."""
    s = state[0]
    if not stay_bottom_up(s.mode, awake, old_awake, s.n, s.beta, s.at_limit):
        s.bottom_up = False
        s.force_td = True


RUN_STEPS = 64       # rows of a run's staircase (``policy_top_down_run``)
RUN_RATIO = 0.75     # unexplored edges kept from one row to the next


@njit(cache=True)
def policy_top_down_run(state, max_scout, bounds):
    """Fill ``bounds`` (rows of (explored limit, scout cap), float64) for a run of top-down levels
    after the one just decided, which a driver runs without deciding each (``thin_levels``): a
    level reached with ``explored`` edges explored since this call, whose frontier has ``scout``
    out-edges, is one this state would decide top-down if ``scout`` is at most the cap of the row
    ``run_row`` finds for ``explored``; caps are at most ``max_scout``.

    Why a staircase: the rule keeps a level top-down while alpha * scout + explored <= m_u, a line
    in (explored, scout); each row is a box under it whose corner is on it (integer explored
    limits, the rule's own division for the cap), each next row keeps ``RUN_RATIO`` of the edges
    left, so a run ends early (the driver then decides exactly) only within that ratio of the line.
    """
    s = state[0]
    u = s.unexplored
    left = min(u, s.alpha * max_scout)
    for i in range(bounds.shape[0]):
        if s.mode == TOP_DOWN:
            bounds[i, 0], bounds[i, 1] = np.inf, max_scout
        elif s.mode == BOTTOM_UP:
            bounds[i, 0], bounds[i, 1] = -1.0, -1.0
        else:
            explored = np.floor(u - left)
            bounds[i, 0], bounds[i, 1] = explored, min(float(max_scout), np.floor((u - explored) / s.alpha))
            left *= RUN_RATIO


@njit(inline="always", cache=True)
def run_row(bounds, row, explored):
    """The first row of ``bounds`` from ``row`` on whose explored limit is at least ``explored``
    (the number of rows when none is: the run is over)."""
    while row < bounds.shape[0] and explored > bounds[row, 0]:
        row += 1
    return row


@njit(cache=True)
def policy_bottom_up(state):
    """Whether the stepper is in a bottom-up phase."""
    return state[0].bottom_up


@njit(cache=True)
def policy_unexplored(state):
    """The edges still counted as unexplored."""
    return state[0].unexplored


class Policy:
    """The stepper for drivers written in Python (distributed, GPU host loops).

    ``direction(scout)`` before each level (``decide`` without the scout bookkeeping, for
    drivers that report explored edges themselves), ``after_bottom_up(awake, old_awake)``
    after each bottom-up level -- the same njit code the numba drivers run.
    """

    def __init__(self, mode, alpha, beta, num_vertices, num_arcs, stay_at_limit=False):
        self.state = policy_state(int(mode), float(alpha), float(beta), float(num_vertices), float(num_arcs),
                                  bool(stay_at_limit))

    def direction(self, scout) -> bool:
        return bool(policy_direction(self.state, float(scout)))

    def decide(self, scout) -> bool:
        return bool(policy_decide(self.state, float(scout)))

    def explored(self, edges) -> None:
        policy_explored(self.state, float(edges))

    def measured(self, unexplored) -> None:
        policy_measured(self.state, float(unexplored))

    def after_bottom_up(self, awake, old_awake) -> None:
        policy_after_bottom_up(self.state, float(awake), float(old_awake))

    @property
    def bottom_up(self) -> bool:
        return bool(self.state["bottom_up"][0])

    @property
    def unexplored(self) -> float:
        return float(self.state["unexplored"][0])
