"""Graph parameters for the planner: n, m, degree skew and the per-level profile of a search.

The profile lists, per level, the direction the direction-optimizing search takes, the frontier,
the edges examined, the vertices discovered and the vertices still unreached before it: the
same for every layout (their per-level statistics equal the single-node search's), so one
profile prices every layout. It comes from

* an estimate before construction: up to ``SAMPLE_SCALE``, single-node searches of the graph
  itself (same kind, scale and seed), a few roots averaged; above it, the expected level table
  of the degree model at the target scale (``profile_fit.expected``: Kronecker's closed form,
  or the uniform graph's), never a small sample scaled up -- the shares that matter move with
  the scale (Kronecker graphs leave 24% of their vertices isolated at scale 14 and 70% at 35);
* or a real search's ``LevelStats`` (``from_levels``: the first search refines the estimate).

A profile that carries its level table (``Profile.table``) gives the levels of any direction
rule (``levels_for``): breadth's own, top-down throughout, or a paper's (``profile_fit.RULES``).
An expected profile is a search from a root of the mean degree; its ``root_draws`` are the
expected profiles from the root-degree buckets a Graph500 draw gives, over which the planner
prices a search (``choose.expected``).

Degree skew (``skew``): for delegate fractions 2^-k of the vertices (the highest-degree ones,
Pan et al.'s delegates at threshold "auto" are at most n/P of them), the share of arcs between
two normal vertices (nn), and the share of arcs incident to the delegates.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from . import degrees, profile_fit
from .profile_fit import Level

SAMPLE_SCALE = 14
SAMPLE_ROOTS = 4
HOT_FRACTION = 1 / 64      # ``hot_share``: the highest-degree vertices whose share of endpoints is taken


@dataclass
class Profile:
    n: float
    m: float                   # undirected edges (Graph500 tuples, duplicates included)
    levels: list
    skew: dict = field(default_factory=dict)     # {k: (nn share, delegate-incident share)} for n / 2^k delegates
    source: str = ""
    degrees: object = None     # a ``degrees.DegreeModel`` at the target scale (None: ``skew`` as sampled)
    overrides: dict = field(default_factory=dict)    # the user's "nn_share" and "delegate_fraction"
    table: object = None       # a ``profile_fit.LevelTable`` (shares per level): the levels of any rule
    arcs: float = 0.0          # the arcs the table's edge shares are of (distinct, both directions)
    hot: float | None = None   # ``hot_share`` as counted on the graph itself (``sample``)
    root_degree: float | None = None   # the levels are a search's from a root of this degree (None: drawn)
    kind: str | None = None    # a generated graph's kind, whose ``root_draws`` ``generated`` can make
    edgefactor: int = 16

    def root_draws(self) -> list:
        """[(probability, profile)]: the expected levels from roots of each degree bucket a Graph500
        root draw gives (``DegreeModel.root_degrees``), for an expected profile of a generated graph
        (none for a sampled profile, which averages real roots, or one from a given root). A search's
        time bends with its root's degree -- a hub's first levels carry most of the traffic -- so
        the expected time over roots is the mean over these, not the time at the mean degree (a few
        hubs set it: 39 at Kronecker scale 16, where the median root has degree 6). Made once."""
        if self.kind is None or self.root_degree is not None or self.degrees is None or self.table is None:
            return []
        got = self.__dict__.get("_draws")
        if got is None:
            scale = int(round(math.log2(self.n)))
            got = [(w, generated(self.kind, scale, self.edgefactor, root_degree=d))
                   for w, d in self.degrees.root_degrees()]
            self.__dict__["_draws"] = got
        for _, p in got:                  # the user's numbers hold for every root
            p.overrides = dict(self.overrides)
        return got

    def hot_share(self) -> float | None:
        """Share of arc endpoints on the ``HOT_FRACTION`` highest-degree vertices: counted on the
        graph (``hot``), else from the degree model at the target scale; None when neither is known."""
        if self.hot is not None:
            return self.hot
        if self.degrees is not None and not self.degrees.is_measured:
            return float(self.degrees.endpoint_share(self.n * HOT_FRACTION))
        return None

    def levels_for(self, rule: str | None) -> list:
        """The levels under direction rule ``rule`` (``profile_fit.RULES``; None or "breadth": the
        profile's own levels, which the user may have replaced)."""
        if rule in (None, "breadth"):
            return self.levels
        if rule == "top-down":
            return self.top_down_levels()
        if self.table is None:          # the user's own levels (``plan --levels``) are taken as given
            return self.levels
        return profile_fit.directed(self.table, self.n, self.m, rule, self.arcs)

    def top_down_levels(self) -> list:
        """The levels of a search that runs top-down throughout (ButterFly's code, Green Sec. 4): from
        the level table, else every level top-down with the frontier's arcs examined (the frontier's
        share of the 2m arcs)."""
        if self.table is not None:
            return profile_fit.directed(self.table, self.n, self.m, "top-down", self.arcs)
        arcs = 2.0 * self.m / max(self.n, 1.0)
        return [Level("top-down", x.frontier, x.frontier * arcs, x.discovered, x.unvisited, x.biased)
                for x in self.levels]

    def nn_share(self, P: int) -> float:
        """Share of arcs between normals when the n/P highest-degree vertices are delegates."""
        return self._skew(P)[0]

    def delegate_share(self, P: int) -> float:
        """Share of arcs touching a delegate (the degree skew: edges on the top n/P vertices)."""
        return self._skew(P)[1]

    def delegation(self, P: int, threshold="auto") -> tuple:
        """(TH, delegates, nn share) of the delegates layout on P ranks with ``threshold`` (an int,
        or "auto": the layout's rule, d <= n / P), from the degree model at the target scale, else
        from the sampled ``skew`` with n / P delegates; the user's overrides replace either number."""
        if self.degrees is not None:
            th = self.degrees.auto_threshold(P) if threshold in (None, "auto") else int(threshold)
            d, nn = self.degrees.delegates(th), self.degrees.nn_share(th)
        else:
            th, d, nn = threshold, self.n / max(P, 1), self._skew(P)[0]
        if "delegate_fraction" in self.overrides:
            d = self.overrides["delegate_fraction"] * self.n
        if "nn_share" in self.overrides:
            nn = self.overrides["nn_share"]
        return th, max(1.0, min(d, self.n - 1.0)), nn

    def _skew(self, P):
        if not self.skew:
            return (1.0, 0.0)
        k = min(max(int(round(math.log2(max(P, 1)))), min(self.skew)), max(self.skew))
        return tuple(self.skew[k])

    def scaled(self, factor: float, source: str) -> "Profile":
        """The same profile for a graph ``factor`` times larger (every count multiplied; the level
        table's shares unchanged)."""
        grown = [Level(x.direction, x.frontier * factor, x.examined * factor, x.discovered * factor,
                       x.unvisited * factor, x.biased) for x in self.levels]
        return Profile(self.n * factor, self.m * factor, grown, dict(self.skew), source, self.degrees,
                       dict(self.overrides), self.table, self.arcs * factor, self.hot, self.root_degree)

    def as_dict(self) -> dict:
        d = asdict(Profile(self.n, self.m, self.levels, {}, self.source, None, dict(self.overrides), None, self.arcs))
        d.pop("table", None)
        d["skew"] = {str(k): list(v) for k, v in self.skew.items()}
        d["degrees"] = self.degrees.source if self.degrees is not None else None
        d["hot"] = self.hot_share()
        return d


def from_levels(n, m, levels, skew=None, source="search") -> Profile:
    """A profile from a search's levels (``LevelStats`` or their dicts)."""
    out, unvisited = [], float(n)
    for lv in levels:
        g = lv if isinstance(lv, dict) else lv.as_dict()
        if g["level"] == 0:
            unvisited -= 1
        out.append(Level(g["direction"], float(g["frontier"]), float(g["edges_examined"]), float(g["discovered"]),
                         unvisited))
        unvisited -= g["discovered"]
    return Profile(float(n), float(m), out, dict(skew or {}), source)


def skew_table(graph) -> dict:
    """{k: (nn share, delegate-incident share)} with the n / 2^k highest-degree vertices as delegates."""
    indptr = np.asarray(graph.indptr)
    deg = np.diff(indptr)
    n = deg.size
    arcs = int(indptr[-1])
    if arcs == 0:
        return {}
    order = np.argsort(-deg, kind="stable")
    src = np.repeat(np.arange(n), deg)
    dst = np.asarray(graph.indices)
    out = {}
    for k in range(1, min(int(math.log2(n)), 20) + 1):
        d = max(1, n >> k)
        is_del = np.zeros(n, dtype=bool)
        is_del[order[:d]] = True
        touch = is_del[src] | is_del[dst]
        out[k] = (float(1 - touch.mean()), float(touch.mean()))
    return out


def sample(graph, roots, source) -> Profile:
    """A profile averaged over single-node searches of ``graph`` from ``roots``: direction-optimizing
    (the levels), and top-down and bottom-up throughout (the level table, ``profile_fit.measure``)."""
    from ...search import bfs

    def mean(alg):
        runs = [from_levels(graph.num_vertices, 0, bfs(graph, int(r), alg).levels) for r in roots]
        depth = int(np.median([len(p.levels) for p in runs]))
        levels = []
        for i in range(depth):
            have = [p.levels[i] for p in runs if i < len(p.levels)]
            dirs = [x.direction for x in have]
            levels.append(Level(max(set(dirs), key=dirs.count), *(float(np.mean([getattr(x, f) for x in have]))
                                                                   for f in ("frontier", "examined", "discovered",
                                                                             "unvisited"))))
        return levels
    arcs = int(graph.indptr[-1])
    m = arcs / (1 if graph.directed else 2)
    levels = mean("do")
    depths = profile_fit.td_depths(graph, roots)            # one top-down search per root serves both
    for lv, k in zip(levels, biased_by_depth(graph, roots, depths)):
        lv.biased = float(k) or None
    return Profile(float(graph.num_vertices), float(m), levels, skew_table(graph), source, degrees.measured(graph),
                   {}, profile_fit.measure(graph, roots, depths), float(arcs), hot_share_of(graph))


def biased_by_depth(graph, roots, depths=None) -> np.ndarray:
    """Per depth, sum(d^2) / sum(d) over the vertices at that depth, summed over searches from
    ``roots`` (``balance``: how unevenly a top-down level's arcs fall on the ranks); ``depths``:
    their ``profile_fit.td_depths`` where the caller has them."""
    deg = np.diff(np.asarray(graph.indptr)).astype(np.float64)
    sq, td = np.zeros(0), np.zeros(0)
    for d in depths if depths is not None else profile_fit.td_depths(graph, roots):
        hit = d >= 0
        a = np.bincount(d[hit], weights=deg[hit] ** 2)
        b = np.bincount(d[hit], weights=deg[hit], minlength=a.size)
        size = max(a.size, sq.size)
        sq = np.pad(sq, (0, size - sq.size)) + np.pad(a, (0, size - a.size))
        td = np.pad(td, (0, size - td.size)) + np.pad(b, (0, size - b.size))
    return profile_fit.size_biased(sq, td)


def hot_share_of(graph) -> float:
    """``Profile.hot_share`` counted on ``graph``: the arcs' endpoints on its ``HOT_FRACTION``
    highest-degree vertices (0 for a graph without arcs)."""
    deg = np.diff(np.asarray(graph.indptr))
    total = float(deg.sum())
    if total <= 0:
        return 0.0
    top = max(1, int(deg.size * HOT_FRACTION))
    return float(np.partition(deg, deg.size - top)[-top:].sum()) / total


def pick_roots(graph, count, seed=2) -> list:
    deg = np.diff(np.asarray(graph.indptr))
    nz = np.flatnonzero(deg)
    rng = np.random.default_rng(seed)
    return [int(x) for x in rng.choice(nz, size=min(count, nz.size), replace=False)] if nz.size else [0]


def generated(kind: str, scale: int, edgefactor: int = 16, seed: int = 1, sample_scale: int = SAMPLE_SCALE,
              roots: int = SAMPLE_ROOTS, root_degree: float | None = None) -> Profile:
    """The estimate for a generated graph (``kind`` "kronecker" or "uniform") of ``scale`` (module
    header): sampled searches up to ``sample_scale``, the degree model's expected levels above;
    with ``root_degree``, the expected levels of a search from a root of that degree at any scale."""
    from ...graph.generators import kronecker, uniform_random

    s, M = int(scale), float(edgefactor) * (1 << int(scale))
    model = (degrees.kronecker if kind == "kronecker" else degrees.uniform)(s, edgefactor)
    if s <= int(sample_scale) and root_degree is None:
        g = {"kronecker": kronecker, "uniform": uniform_random}[kind](s, edgefactor, seed)
        out = sample(g, pick_roots(g, roots), f"{kind} scale {s}, {roots} sampled searches")
        out.m, out.degrees = M, model     # Graph500 m counts tuples (duplicates and self loops included)
        return out
    arcs = float(model.n * (model.weight @ model.lam))
    table = profile_fit.expected(model, root_degree=root_degree)
    whose = "" if root_degree is None else f" from a root of degree {root_degree:g}"
    prof = Profile(model.n, M, [], {}, f"{kind} scale {s}, expected levels of its degree model{whose}",
                   model, {}, table, arcs)
    prof.levels = profile_fit.directed(table, prof.n, prof.m, "breadth", arcs)
    prof.root_degree, prof.kind, prof.edgefactor = root_degree, kind, int(edgefactor)
    return prof
