"""The level profile of a search at the target scale, and the directions a policy takes on it.

A BFS's levels (which vertices are at which depth) do not depend on the direction each level
runs in; only the edges it examines do. So one table gives, per level, everything any direction
policy needs (``LevelTable``): the frontier n_f, its out-edges m_f (what top-down examines), the
edges a bottom-up level examines, and from those the vertices discovered and unreached and the
edges not yet explored m_u. The table comes from

* ``measure``: searches of a graph at hand (top-down and bottom-up from the same roots);
* ``expected``: the expected table of a random graph with a ``degrees.DegreeModel``'s classes at
  any scale -- the edge-based equations of BFS on a graph with Poisson degrees per class and a
  joint class distribution of edge endpoints (Kronecker's closed form, or the uniform graph's).
  Against measured Kronecker graphs at scales 14-18 it gives the reached share within 0.2%
  and the per-level shares of the big levels within about 1.3x (the model expands a level
  early: Kronecker graphs correlate hubs beyond their degree classes); uniform graphs within a
  few percent.

``directed`` runs a rule (``kernels.policy.Policy``: breadth's own, or a paper's, ``RULES``)
over the absolute counts and returns the planner's levels.

Invariants: frontier shares sum to the reached share; m_u never grows; a bottom-up level never
examines more than m_u.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...kernels.policy import ALPHA, BETA, DIRECTION_OPTIMIZING, TOP_DOWN, Policy

FIELDS = ("frontier", "td", "bu")


@dataclass
class Level:
    """One level of a search as the planner prices it."""

    direction: str            # "top-down" or "bottom-up"
    frontier: float
    examined: float
    discovered: float
    unvisited: float          # vertices not reached before this level
    biased: float | None = None   # sum(d^2) / sum(d) over the frontier (None: unknown; ``balance``)


@dataclass
class LevelTable:
    """Per level (aligned so that ``peak`` is the largest frontier): frontier (share of n), td
    (its out-edges, share of arcs), bu (edges a bottom-up level examines, share of arcs); and the
    reached share of n."""

    frontier: np.ndarray
    td: np.ndarray
    bu: np.ndarray
    peak: int
    reached: float
    biased: np.ndarray | None = None   # per level, sum(d^2) / sum(d) over the frontier (``balance``)

    def counts(self, n: float, arcs: float) -> dict:
        """Absolute per-level counts: frontier, td, bu, discovered, unvisited (not reached before
        the level: the frontier is not among them, as in ``graph.from_levels``), unexplored (arcs
        of vertices not expanded before the level)."""
        f = self.frontier * n
        td = self.td * arcs
        explored = np.concatenate(([0.0], np.cumsum(td)[:-1]))
        unexplored = np.maximum(arcs - explored, 0.0)
        return {"frontier": f, "td": td, "bu": np.minimum(self.bu * arcs, unexplored),
                "discovered": np.concatenate((f[1:], [0.0])), "unvisited": np.maximum(n - np.cumsum(f), 0.0),
                "unexplored": unexplored}


def td_depths(graph, roots) -> list:
    """Each root's depth array from a top-down search of ``graph`` (the levels are the same in any
    direction)."""
    from ...search import bfs

    return [np.asarray(bfs(graph, int(r), "td").depth) for r in roots]


def measure(graph, roots, depths=None) -> LevelTable:
    """The table of ``graph``, averaged over searches from ``roots`` (each aligned at its peak);
    ``depths``: their ``td_depths`` where the caller has them."""
    from ...search import bfs

    deg = np.diff(np.asarray(graph.indptr)).astype(np.float64)
    n, arcs = float(deg.size), float(deg.sum()) or 1.0
    runs = []
    for r, d in zip(roots, depths if depths is not None else td_depths(graph, roots)):
        hit = d >= 0
        f = np.bincount(d[hit], minlength=1).astype(np.float64)
        td = np.bincount(d[hit], weights=deg[hit], minlength=f.size)
        sq = np.bincount(d[hit], weights=deg[hit] ** 2, minlength=f.size)
        bu = np.array([lv.edges_examined for lv in bfs(graph, int(r), "bu").levels], dtype=np.float64)
        bu = np.pad(bu, (0, max(0, f.size - bu.size)))[:f.size]
        runs.append((int(np.argmax(f)), f / n, td / arcs, bu / arcs, sq / arcs, hit.mean()))
    before = max(p for p, *_ in runs)
    after = max(len(f) - p for p, f, *_ in runs)
    table = {k: np.zeros(before + after) for k in FIELDS + ("sq",)}
    for p, *arrays, _ in runs:
        for k, a in zip(FIELDS + ("sq",), arrays):
            table[k][before - p: before - p + a.size] += a / len(runs)
    return LevelTable(table["frontier"], table["td"], table["bu"], before,
                      float(np.mean([x[-1] for x in runs])), size_biased(table["sq"], table["td"]))


def size_biased(sq, td) -> np.ndarray:
    """Per level, sum(d^2) / sum(d) (0 where a level has no arcs)."""
    return np.divide(sq, td, out=np.zeros_like(td), where=td > 0)


@dataclass(frozen=True)
class Rule:
    """A direction policy as a code runs it: ``kernels.policy`` with its alpha and beta; with
    ``total_edges`` the switch to bottom-up compares m_f with all the arcs, not the unexplored
    ones (B2D Sec. VI: m_f > m / 10); ``beta_degree`` makes beta that factor times the degree
    k = m / n (B2D: n_f < n / (14 k))."""

    name: str
    alpha: float
    beta: float
    total_edges: bool = False
    beta_degree: bool = False
    stay_at_limit: bool = False


RULES = {
    "breadth": Rule("breadth", ALPHA, BETA),
    # B2D Sec. VI: "m_f > m/10" (m undirected edges; m_f counts arcs: alpha 20 on the 2m arcs) and
    # "n_f < n/(14k)"
    "b2d": Rule("b2d", 20.0, 14.0, total_edges=True, beta_degree=True, stay_at_limit=True),
    "top-down": Rule("top-down", ALPHA, BETA),
}


def directed(table: LevelTable, n: float, m: float, rule: str = "breadth", arcs: float | None = None) -> list:
    """The planner's levels (``graph.Level``) of ``table`` at n vertices and m edges (the degree
    k = m / n of B2D's rule) under ``rule``; ``arcs``: what the table's edge shares are of
    (default 2m)."""
    r = RULES[rule]
    arcs = 2.0 * m if not arcs else float(arcs)
    c = table.counts(n, arcs)
    beta = r.beta * (m / n) if r.beta_degree else r.beta
    pol = Policy(TOP_DOWN if rule == "top-down" else DIRECTION_OPTIMIZING, r.alpha, beta, n, arcs, r.stay_at_limit)
    out = []
    biased = table.biased if table.biased is not None else np.zeros(c["frontier"].size)
    for i in range(c["frontier"].size):
        if r.total_edges:
            pol.measured(arcs)
            up = pol.decide(c["td"][i])
        else:                               # Beamer's bookkeeping, as breadth's drivers keep m_u
            up = pol.direction(c["td"][i])
        if up:
            out.append(Level("bottom-up", c["frontier"][i], c["bu"][i], c["discovered"][i], c["unvisited"][i],
                             float(biased[i]) or None))
            pol.after_bottom_up(c["discovered"][i], c["frontier"][i])
        else:
            out.append(Level("top-down", c["frontier"][i], c["td"][i], c["discovered"][i], c["unvisited"][i],
                             float(biased[i]) or None))
    return out


def expected(model, levels_max: int = 64, root_degree: float | None = None) -> LevelTable:
    """The expected level table of a random graph with ``model``'s degree classes (a
    ``degrees.DegreeModel``: class shares w_j, Poisson degrees of mean lambda_j, the joint class
    distribution of an edge's endpoints), from a root of degree >= 1 (the expectation over such
    roots, as Graph500 draws them), or from a root of degree ``root_degree``: its class is j with
    probability proportional to w_j Poisson(root_degree; lambda_j). On a heavy-tailed graph the two
    differ: Kronecker scale 16's non-isolated vertices have degree 39 on average and 6 at the
    median, and the first level's edges follow the root's degree.

    The edge-based form of BFS on such a graph (as percolation's generating functions): theta_k
    is the probability that a class-k vertex's edge has not yet brought it a parent, i.e. that
    its other endpoint is not reached one level earlier. A class-k vertex is unreached while
    none of its Poisson(lambda_k) edges has, exp(-lambda_k (1 - theta_k)); the other endpoint of
    an edge, of class j with probability q_kj, is reached through its own other edges with
    1 - exp(-lambda_j (1 - theta_j)) (its other edges are Poisson(lambda_j) too), plus the root's
    own edges. A bottom-up level scans an unvisited vertex's edges (Poisson(lambda theta) of them
    are still open) until the first that leads into the frontier."""
    w, lam, n = model.weight, np.maximum(model.lam, 1e-300), model.n
    arcs = float((n * w * lam).sum())
    front, td, bu, sq = [1.0], [0.0], [], [0.0]
    for theta, new_theta in steps(model, levels_max, root_degree, td, sq):
        p = np.divide(theta - new_theta, theta, out=np.zeros_like(theta), where=theta > 0)
        open_ = lam * theta
        scan = np.where(p > 1e-12, -np.expm1(-open_ * p) / np.maximum(p, 1e-300), open_)
        bu.append(float((n * w * unreached(lam, theta) * scan).sum()))
        found = n * w * (unreached(lam, theta) - unreached(lam, new_theta))
        if found.sum() < 0.5:
            break
        front.append(float(found.sum()))
        by_class = n * w * (open_degree(lam, theta) - open_degree(lam, new_theta))
        td.append(float(by_class.sum()))
        sq.append(float((by_class * (lam + 1.0)).sum()))       # E[d^2] / E[d] of a Poisson(lambda) class
    bu = bu[:len(front)] + [0.0] * (len(front) - len(bu))
    f = np.array(front)
    return LevelTable(f / n, np.array(td) / arcs, np.array(bu) / arcs, int(np.argmax(f)), float(f.sum() / n),
                      size_biased(np.array(sq), np.array(td)))


def unreached(lam, theta):
    """A class's probability of being unreached: none of its Poisson(lambda) edges has brought it a
    parent (``expected``)."""
    return np.exp(-lam * (1.0 - theta))


def open_degree(lam, theta):
    """E[D theta^D], D ~ Poisson(lambda): a class's edges still open (``expected``)."""
    return lam * theta * np.exp(-lam * (1.0 - theta))


def steps(model, levels_max: int = 64, root_degree: float | None = None, root_td: list | None = None,
          root_sq: list | None = None):
    """The edge-based recursion of ``expected``: per level, (theta, new_theta) per degree class,
    theta before the level and after it. ``root_td``'s first entry is set to the root's expected
    edges (the first level's top-down arcs), ``root_sq``'s to the expected square of its degree.
    Stops after ``levels_max`` levels; the caller stops sooner when a level finds nothing."""
    w, lam = model.weight, np.maximum(model.lam, 1e-300)
    rows = model.joint.sum(axis=1, keepdims=True)
    q = np.divide(model.joint, rows, out=np.zeros_like(model.joint), where=rows > 0)
    slots = model.n * w * lam                             # edge endpoints (arcs) of each class
    if root_degree is None:
        live = w * -np.expm1(-lam)
        root = live / live.sum()                          # the root's class: degree >= 1
        spread = root * lam / -np.expm1(-lam)             # its expected edges, by its class
    else:
        from scipy.stats import poisson
        like = w * poisson.pmf(int(round(root_degree)), lam)
        root = like / like.sum() if like.sum() > 0 else w
        spread = root * float(root_degree)
    if root_td is not None:
        root_td[0] = float(spread.sum())
    if root_sq is not None:
        root_sq[0] = float(spread.sum() * root_degree if root_degree is not None else (spread * (lam + 1.0)).sum())
    root_arcs = spread @ q                                # its edges, by the class they lead to
    from_root = np.divide(root_arcs, slots, out=np.zeros_like(slots), where=slots > 0)
    theta = np.ones_like(lam)
    reached_other = np.zeros_like(lam)                    # 1 - exp(-lambda_j (1 - theta_j)) one level back
    for _ in range(levels_max - 1):
        new_theta = np.clip(1.0 - from_root - q @ reached_other, 0.0, 1.0)
        yield theta, new_theta
        reached_other = 1.0 - unreached(lam, new_theta)
        theta = new_theta
