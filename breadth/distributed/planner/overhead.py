"""The engine's own cost per level and per search, measured per layout (``Machine.engine``).

The cost models count edges and messages; a distributed search also spends time that neither
counts: the Python level loop, the kernels' calls, and sweeps over the rank's vertex arrays
(frontier bitmaps, queues, the unvisited scan) that every level makes whatever its edges. At small
scales and few ranks this is most of a search. ``calibrate`` measures it for each layout by
running the layout itself on one rank (``MPI.COMM_SELF``: no communication) on two Kronecker
graphs (``CAL_SCALES``), a few searches each, and again on two uniform ones (``probe`` keeps both;
a prediction interpolates by its graph's skew, ``Machine.for_hot_share``), and fits by least
squares over the recorded levels

    level seconds - edges / edge rate  =  level_fixed + n x level_vertex_td + edges x edge_td   (top-down)
                                       =  level_fixed + unvisited x level_unvisited_bu
                                                      + edges x edge_bu                          (bottom-up)
                                          + frontier x level_frontier                            (either)

(a bottom-up level sweeps every vertex not yet reached, whether or not it has edges; a top-down one
its queue and the rank's bitmaps; either turns its frontier between a queue and a bitmap;
``edge_td`` and ``edge_bu`` are what the layout's own step spends on an edge beyond the single-node
kernels' edge rate), and over the searches

    search seconds - sum of its levels  =  search_fixed + vertices x search_vertex

(setup and the statistics' gathering; the clearing that a cost model prices, ``setup_bytes`` at
the measured memory bandwidth, left out). The fit is made ``CAL_REPEATS`` times, each on its own
roots, and each term is the median of its fits: one level that a page fault or another process
slows moves a least-squares term by a factor of 2 to 4, and the cache keeps what it measured. A
layout whose exchange works in rounds that a search on one rank never makes (ButterFly) also has
its cost model's ``self_round`` timed: one round on the one-rank communicator with the rank as
its own partner, the round's own work beyond the network (``round_fixed``, priced once per round
of every level). A layout whose step after the search scans arcs only when other ranks exist
(ButterFly's parent recovery, ``finish_edges``) has its ``self_finish`` timed: seconds per arc
scanned, on the larger graph with every parent forgotten (``finish_edge``). A layout that routes
top-down candidates to their owners, which a one-rank search never does, has its ``self_route``
timed: seconds per pair packed and settled, on the larger graph (``route_pair``,
``owned.route_cost``). A layout whose one-rank
defaults no distributed run has (the delegates' automatic threshold, TH = 1 on one rank) runs with
its cost model's ``calibration_params``. ``VERSION`` names how the costs are measured: a cache of
another version is measured again. ``Machine.engine_level``,
``engine_rounds`` and ``engine_search`` price a search's levels and the rest with them on
``n / P`` vertices per rank (a bottom-up level: its ``unvisited / P``): the per-vertex and per-edge
terms run in numba kernels, on the rank's threads; the fixed terms (the Python level loop, its
calls, a round's own work) on one core whatever the threads. Measured once per machine
(cached beside the edge rates, ``calibration.cache_path``); never fitted to the runs it predicts.
"""
from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from types import SimpleNamespace

import numpy as np

from ...errors import BreadthError

log = logging.getLogger("breadth.planner")

VERSION = 2            # how the costs are measured: a cache of another version is measured again
CAL_SCALES = (11, 15)
CAL_SEARCHES = 8
CAL_REPEATS = 3


@dataclass(frozen=True)
class EngineCost:
    """One layout's measured engine cost (module header); seconds on one core."""

    level_fixed: float = 0.0
    level_vertex_td: float = 0.0
    level_unvisited_bu: float = 0.0
    edge_td: float = 0.0
    edge_bu: float = 0.0
    search_fixed: float = 0.0
    search_vertex: float = 0.0
    round_fixed: float = 0.0       # one exchange round's own work (layouts whose model has ``self_round``)
    finish_edge: float = 0.0       # one arc of the step after the search (layouts whose model has ``self_finish``)
    level_frontier: float = 0.0    # one vertex of the level's frontier (its queue, its bitmap), either direction
    route_pair: float = 0.0        # one (vertex, parent) pair routed to its owner (layouts whose model has ``self_route``)

    def level_seconds(self, direction: str, vertices: float, edges: float = 0.0) -> float:
        """One level's engine cost on a rank holding ``vertices`` vertices (top-down) or
        ``vertices`` vertices not yet reached (bottom-up), examining ``edges`` edges."""
        if direction == "top-down":
            return self.level_fixed + self.level_vertex_td * vertices + self.edge_td * edges
        return self.level_fixed + self.level_unvisited_bu * vertices + self.edge_bu * edges

    def search_seconds(self, vertices: float) -> float:
        """The per-search engine cost outside the levels on a rank holding ``vertices`` vertices."""
        return self.search_fixed + self.search_vertex * vertices

    def as_dict(self) -> dict:
        return asdict(self)


def key(partition: str, exchange: str) -> str:
    """The name of a layout in ``Machine.engine`` and the cache."""
    return f"{partition}/{exchange}"


def fit_levels(rows, rate_td: float, rate_bu: float) -> tuple:
    """(level_fixed, level_vertex_td, level_unvisited_bu, edge_td, edge_bu, level_frontier) from
    ``rows`` of (direction, vertices (top-down: the rank's; bottom-up: those not yet reached), edges
    examined, seconds[, frontier]): least squares of seconds less edges / rate, each kept >= 0."""
    a, y = [], []
    for direction, vertices, edges, seconds, *front in rows:
        td = direction == "top-down"
        a.append([1.0, vertices if td else 0.0, 0.0 if td else vertices, edges if td else 0.0, 0.0 if td else edges,
                  float(front[0]) if front else 0.0])
        y.append(seconds - edges / (rate_td if td else rate_bu))
    return _nonnegative(np.asarray(a), np.asarray(y))


def fit_searches(rows) -> tuple:
    """(search_fixed, search_vertex) from ``rows`` of (vertices, seconds outside the levels)."""
    a = np.asarray([[1.0, v] for v, _ in rows])
    return _nonnegative(a, np.asarray([s for _, s in rows]))


def _nonnegative(a, y) -> tuple:
    """Least squares with each coefficient >= 0 (a negative one is dropped and the rest refitted)."""
    keep = np.ones(a.shape[1], dtype=bool)
    coef = np.zeros(a.shape[1])
    while keep.any():
        got = np.linalg.lstsq(a[:, keep], y, rcond=None)[0]
        if (got >= 0).all():
            coef[keep] = got
            break
        idx = np.flatnonzero(keep)
        keep[idx[np.argmin(got)]] = False
    return tuple(float(c) for c in coef)


def calibrate(rates: dict, memory_bandwidth: float, layouts, kind: str = "kronecker") -> dict:
    """{layout key: EngineCost as a dict} of ``layouts`` (the modelled ones, ``choose.modelled``),
    measured on this process alone (``COMM_SELF``, one thread) on graphs of ``kind`` ("kronecker"
    or "uniform"); the clearing the cost model prices already (``setup_bytes`` at
    ``memory_bandwidth``) is left out."""
    from ...graph.generators import kronecker_edges, uniform_random_edges
    from ..faults.watchdog import HEARTBEAT
    from ..runtime import get_mpi

    MPI = get_mpi()
    out = {}
    edges = uniform_random_edges if kind == "uniform" else kronecker_edges
    graphs = [(s, edges(s, 16, 1, 0, 16 << s)) for s in CAL_SCALES]
    saved = {k: getattr(HEARTBEAT, k) for k in HEARTBEAT.__slots__}
    try:
        _measure(MPI, graphs, layouts, rates, memory_bandwidth, out)
    finally:                      # these searches teach the job's stall watchdog nothing (``faults.watchdog``)
        for k, v in saved.items():
            setattr(HEARTBEAT, k, v)
    return out


def _measure(MPI, graphs, layouts, rates, memory_bandwidth, out) -> None:
    """``calibrate``'s searches: each layout on each graph, on this process alone, ``CAL_REPEATS``
    fits on their own roots; each term the median of its fits (``median_cost``)."""
    from ..engine import DistEngine
    from ..runtime import numba_threads

    with numba_threads(1):
        for lay in layouts:
            try:
                fits = _fits(MPI, DistEngine, graphs, lay, rates, memory_bandwidth)
            except BreadthError as exc:       # a layout that cannot run on one rank is priced without it
                log.warning("no engine cost for %s/%s: %s", lay.partition, lay.exchange, exc)
                continue
            out[key(lay.partition, lay.exchange)] = median_cost(fits)


def median_cost(fits) -> dict:
    """The term-by-term median of ``EngineCost`` dicts."""
    return {k: float(np.median([f[k] for f in fits])) for k in fits[0]}


def _level_rows(n, levels) -> list:
    """``fit_levels``'s rows of one search's ``levels`` on ``n`` vertices."""
    rows, unvisited = [], float(n)
    for lv in levels:
        if lv.level == 0:
            unvisited -= lv.frontier
        rows.append((lv.direction, n if lv.direction == "top-down" else unvisited, lv.edges_examined, lv.seconds,
                     lv.frontier))
        unvisited -= lv.discovered
    return rows


def _fits(MPI, DistEngine, graphs, lay, rates, memory_bandwidth) -> list:
    """``CAL_REPEATS`` ``EngineCost`` dicts of one layout (``calibrate``): each graph built once,
    each fit over its own roots."""
    rows = [([], []) for _ in range(CAL_REPEATS)]           # per fit: level rows, search rows
    setup = getattr(lay.cost, "setup_bytes", None)
    tune = getattr(lay.cost, "calibration_params", None)     # a layout whose one-rank defaults no run has
    for scale, (src, dst) in graphs:
        n = 1 << scale
        eng = DistEngine(comm=MPI.COMM_SELF, partition=lay.partition, exchange=lay.exchange, threads=1,
                         params=tune(src, dst, n) if tune is not None else None)
        eng.build_from_edges(src, dst, n, directed=False)
        cleared = setup(SimpleNamespace(n=n), 1, {}) / memory_bandwidth if setup is not None else 0.0
        for rep, (levels, searches) in enumerate(rows):
            cand = np.random.default_rng((scale, rep)).integers(0, n, 16 * (CAL_SEARCHES + 1))
            roots = [int(x) for x in cand[eng.nonisolated(cand)][:CAL_SEARCHES + 1]]
            eng.search(roots[0])                  # loads the kernels, warms the caches
            for r in roots[1:]:
                t = time.perf_counter()
                res = eng.search(r)
                wall = time.perf_counter() - t
                levels += _level_rows(n, res.levels)
                searches.append((n, wall - sum(lv.seconds for lv in res.levels) - cleared))
    probe_round = getattr(lay.cost, "self_round", None)
    round_fixed = probe_round(MPI.COMM_SELF) if probe_round is not None else 0.0
    probe_finish = getattr(lay.cost, "self_finish", None)       # on the last (largest) graph
    finish = [probe_finish(eng, roots[1]) if probe_finish is not None else 0.0 for _ in rows]
    probe_route = getattr(lay.cost, "self_route", None)
    route = [probe_route(1 << scale, src, dst, seed=k) if probe_route is not None else 0.0 for k in range(len(rows))]
    out = []
    for (levels, searches), f, rp in zip(rows, finish, route):
        fixed, vertex_td, unvisited_bu, edge_td, edge_bu, front = fit_levels(levels, rates["rate_td"], rates["rate_bu"])
        out.append(EngineCost(fixed, vertex_td, unvisited_bu, edge_td, edge_bu, *fit_searches(searches), round_fixed,
                              f, front, rp).as_dict())
    return out
