"""Predict every layout's search time and pick the fastest (``--partition auto``, ``breadth plan``).

For each registered layout with a cost model (``Layout.cost``) and each of its candidate parameters
(grids, fanouts, thresholds), the predicted time of one search is

    sum over levels of  the busiest rank's local work / measured rate  +  sum over the level's operations of
                        (latency x steps + bytes / bandwidth)
    + the step after the last level (if the layout has one: its operations, and the arcs it
      scans, ``finish_edges``) + clearing the per-search state
    + the engine's own cost per level, per exchange round, per candidate pair routed to its owner
      and per search (``Machine.engine``, ``overhead``),

from a ``graph.Profile`` and a ``network.Machine``. A level's edges are the busiest rank's, not the
average's: the level waits for it (``balance``). A search's time bends with its root's degree, so a
generated graph's candidates are priced as the mean over the roots a Graph500 draw gives
(``expected``, ``Profile.root_draws``), not at the mean root. ``predict_all`` returns every
candidate, fastest first; ``table`` formats them for ``-v`` and ``breadth plan``.
"""
from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field

from .. import registry
from . import balance, overhead

log = logging.getLogger("breadth.planner")


def modelled() -> list:
    """The registered layouts that have a cost model, in registration order."""
    return [lay for lay in registry.layouts() if lay.cost is not None]


@dataclass
class Prediction:
    partition: str
    exchange: str
    params: dict
    label: str
    seconds: float
    compute_seconds: float
    comm_seconds: float
    messages: float
    bytes: float               # bytes on the wire in the whole job (``network.wire_bytes``)
    teps: float
    counted_bytes: float = 0.0  # bytes as ``Comm`` counts them (an Allreduce: q - 1 copies a rank)
    levels: list = field(default_factory=list)       # per level: {"direction", "compute", "comm", "messages", "bytes", "words"}
    operations: dict = field(default_factory=dict)   # per operation name: {"seconds", "messages", "bytes"}
    fits: bool = True          # within ``--memory`` per host (``breadth plan``)

    @property
    def words(self) -> float:
        """64-bit words on the wire (the unit of B2D's Table I)."""
        return self.bytes / 8.0

    def engine_kwargs(self) -> dict:
        """``DistEngine`` keyword arguments for this layout (``Layout.engine_kwargs``)."""
        return registry.get(self.partition, self.exchange).engine_kwargs(self.params)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def predict(layout, prof, machine, params) -> Prediction:
    """``layout``'s predicted search (its cost model ``layout.cost`` with ``params``)."""
    model, P = layout.cost, machine.size
    machine = with_memory_rates(machine.for_hot_share(prof.hot_share()), model, prof, params)
    compute = comm = msgs = vol = counted = 0.0
    per_level, ops_total = [], {}

    def add(ops, credit=0.0):
        nonlocal comm, msgs, vol, counted
        t_ops = items = pairs = lv_msgs = lv_bytes = 0.0
        for op in ops:
            t = machine.op_seconds(op, credit)
            if credit:
                credit = max(0.0, credit - machine.link_bytes(op))
            w, mw = wire_bytes(op, P), wire_messages(op, P)
            t_ops += t
            items += op.items
            pairs += op.pairs
            msgs += mw
            vol += w
            counted += op.volume
            lv_msgs += mw
            lv_bytes += w
            o = ops_total.setdefault("rounds" if op.is_round else op.name,
                                     {"seconds": 0.0, "messages": 0.0, "bytes": 0.0})
            o["seconds"] += t
            o["messages"] += mw
            o["bytes"] += w
        comm += t_ops
        local = machine.compute(0.0, 0.0, items) + machine.engine_route(engine, pairs)   # packing, merging, settling
        return t_ops, local, lv_msgs, lv_bytes, credit

    rule = getattr(model, "rule", None)          # the direction rule the layout's code runs (None: breadth's)
    ranks_of = getattr(model, "spread", None)
    replicated = getattr(model, "replicated_frontier", False)      # every rank handles the whole frontier
    sweeps = getattr(model, "swept", None)       # the share of a level's swept vertices one rank sweeps

    def spread(direction):                       # the ranks one vertex's arcs fall on (``balance``)
        return ranks_of(direction, P, params) if ranks_of is not None else 1

    levels = prof.levels_for(rule(params) if rule is not None else None)
    engine = overhead.key(layout.partition, layout.exchange)          # ``Machine.engine``'s key
    setup = getattr(model, "setup_bytes", None)
    start = machine.engine_search(engine, prof.n / P) + (setup(prof, P, params) / machine.memory_bandwidth
                                                         if setup is not None else 0.0)
    # the links' buckets: what refilled while the search set itself up (the search before it, or
    # anything else, may have drained them)
    bucket = machine.refilled(start)
    for lv in levels:
        ops = model.level_ops(prof, lv, P, params)
        td, bu = balance.level_edges(*level_edges(model, prof, lv, P, params), lv, P, spread)   # the busiest rank's
        swept = prof.n if lv.direction == "top-down" else lv.unvisited      # the vertices its engine work sweeps
        own, other = (td, bu) if lv.direction == "top-down" else (bu, td)
        front = lv.frontier if replicated else lv.frontier / P          # the frontier a rank's engine handles
        share = sweeps(prof, lv, P, params) if sweeps is not None else 1.0 / P
        step = machine.compute(td, bu) * machine.imbalance + machine.engine_level(engine, lv.direction,
                                                                                swept * share, own, other, front)
        t_ops, local, lm, lb, bucket = add(ops, machine.refilled(step, bucket))   # refilled during the step
        rounds = sum(1 for op in ops if op.is_round)
        after = local * machine.imbalance + machine.engine_rounds(engine, rounds)
        bucket = machine.refilled(after, bucket)
        c = step + after
        compute += c
        per_level.append({"direction": lv.direction, "compute": c, "comm": t_ops, "messages": lm, "bytes": lb,
                          "words": lb / 8.0})
    t_ops, local, _, _, _ = add(model.after_ops(prof, P, params), bucket)
    finish = getattr(model, "finish_edges", None)
    scanned = finish(prof, P, params) if finish is not None else 0.0
    # the step after the search at its own measured cost per arc, else at the bottom-up kernel's rate
    finished = machine.engine_finish(engine, scanned) if scanned else 0.0
    if finished is None:
        finished = machine.compute(0.0, scanned)
    compute += local + finished * machine.imbalance + start
    total = compute + comm
    return Prediction(layout.partition, layout.exchange, dict(params), model.label(params), total, compute, comm, msgs, vol,
                      prof.m / total if total > 0 else 0.0, counted, per_level, ops_total)


def level_edges(model, prof, lv, P: int, params) -> tuple:
    """(top-down, bottom-up) edges level ``lv`` examines, summed over ranks: the cost model's own
    count (``level_edges``) where it has one, else the level's edges in its one direction."""
    own = getattr(model, "level_edges", None)
    if own is not None:
        return own(prof, lv, P, params)
    return (lv.examined, 0.0) if lv.direction == "top-down" else (0.0, lv.examined)


def with_memory_rates(machine, model, prof, params):
    """``machine`` with edge rates from its ``memory_rule`` for this layout (the vertices whose state
    a rank keeps: the cost model's ``state_vertices``, else its n / P owned vertices); unchanged
    without a rule."""
    rule = machine.memory_rule
    if rule is None:
        return machine
    P = machine.size
    kept = model.state_vertices(prof.n, P, params) if hasattr(model, "state_vertices") else prof.n / P
    rate = rule.rate(machine.memory_bandwidth, rule.hit(prof.degrees, prof.n, kept))
    out = copy.copy(machine)
    out.rate_td = out.rate_bu = rate
    return out


def wire_bytes(op, P: int) -> float:
    """Bytes ``op`` puts on the wire in the whole job: its counted volume, but for an Allreduce,
    which moves 2 (q - 1) / q of the buffer per rank (reduce-scatter and all-gather) where ``Comm``
    counts q - 1 copies: the busiest rank's bytes times P."""
    return op.bytes * P if op.kind == "allreduce" else op.volume


def wire_messages(op, P: int) -> float:
    """Messages ``op`` puts on the wire: its counted messages, but for an Allreduce one message per
    rank and latency step (recursive doubling), where ``Comm`` counts q - 1 per rank."""
    return float(P * op.rounds) if op.kind == "allreduce" else op.messages


def candidates(layout, P: int, fixed=None) -> list:
    """``layout``'s candidate parameters on P ranks, with the user's ``fixed`` values (by parameter
    name: grid, fanout, threshold) in place of the layout's own choices for the parameters it has."""
    got = [dict(c) for c in layout.cost.candidates(P)]
    for name, value in (fixed or {}).items():
        if value is not None and layout.param(name) is not None:
            got = [{**c, name: value} for c in got]
    out = []
    for c in got:
        if c not in out:
            out.append(c)
    return out


def expected(layout, prof, machine, params) -> Prediction:
    """``predict`` as the mean over the roots a Graph500 draw gives (``Profile.root_draws``): every
    total is the weighted mean of the draws' predictions (per level: the profile's own, a search
    from a root of the mean degree). ``predict`` itself where the profile has no draws."""
    draws = prof.root_draws()
    own = predict(layout, prof, machine, params)
    if not draws:
        return own
    each = [(w, predict(layout, p, machine, params)) for w, p in draws]
    mean = {k: sum(w * getattr(x, k) for w, x in each) for k in
            ("seconds", "compute_seconds", "comm_seconds", "messages", "bytes", "counted_bytes")}
    ops = {}
    for w, x in each:
        for name, o in x.operations.items():
            t = ops.setdefault(name, {"seconds": 0.0, "messages": 0.0, "bytes": 0.0})
            for k in t:
                t[k] += w * o[k]
    own = copy.copy(own)
    own.__dict__.update(mean, operations=ops, teps=prof.m / mean["seconds"] if mean["seconds"] > 0 else 0.0)
    return own


def predict_all(prof, machine, only=None, fixed=None, paper=False) -> list:
    """Every candidate layout (``only``: a list of (partition, exchange) to keep; ``fixed``: the
    user's parameter values, ``candidates``; ``paper``: priced as the paper's own code runs, where
    it differs from breadth's -- the cost models read ``params["code"] == "paper"``), fastest first,
    each priced over the profile's root draws (``expected``)."""
    out = []
    for layout in modelled():
        if only is not None and (layout.partition, layout.exchange) not in only:
            continue
        for params in candidates(layout, machine.size, fixed):
            out.append(expected(layout, prof, machine, {**params, "code": "paper"} if paper else params))
    out.sort(key=lambda p: p.seconds)
    return out


def best_per_layout(preds) -> list:
    """The fastest candidate of each (partition, exchange), fastest first."""
    seen, out = set(), []
    for p in preds:
        key = (p.partition, p.exchange)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def table(preds, limit=None) -> str:
    rows = preds if limit is None else preds[:limit]
    head = f"{'layout':<22}{'search s':>11}{'compute s':>11}{'comm s':>10}{'messages':>11}{'bytes':>11}{'TEPS':>10}"
    lines = [head]
    for p in rows:
        lines.append(f"{p.label:<22}{p.seconds:>11.4g}{p.compute_seconds:>11.4g}{p.comm_seconds:>10.4g}"
                     f"{p.messages:>11.4g}{p.bytes:>11.4g}{p.teps:>10.3g}")
    return "\n".join(lines)


def why(preds) -> str:
    """One line: the pick and its margin over the runner-up."""
    best = preds[0]
    other = next((p for p in preds if (p.partition, p.exchange) != (best.partition, best.exchange)), None)
    share = best.comm_seconds / best.seconds if best.seconds else 0.0
    text = f"{best.label}: predicted {best.seconds * 1e3:.3g} ms per search ({share:.0%} communication)"
    if other is not None:
        text += f", {other.seconds / best.seconds:.2f}x faster than {other.label}"
    return text
