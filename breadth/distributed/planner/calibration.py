"""The per-machine calibration the planner prices with, and the probe's comparison with it.

* edge rates: single-node top-down and bottom-up searches of a small Kronecker graph and of a
  uniform one on one core (``calibrate_rates``), with each graph's hot share, and beside them a
  reference step's time (``reference_seconds``: the cores' speed as the rates were measured);
* each layout's own cost per level and per search on both graphs (``engine_costs``,
  ``overhead.calibrate``);
* the bandwidth of clearing memory (``memory_bandwidth``).

They are cached per kind of machine (``cache_path``: the namespace cluster's hosts, and a real
cluster's identical nodes, share one measurement), measured once (``breadth doctor``, ``breadth
warmup``, or the first ``--partition auto``), and measured again when the cache lacks a term
measured since. ``run_speed`` and ``uniform_part`` turn them into ``network.Machine`` fields at a
probe.
"""
from __future__ import annotations

import json
import logging
import os
import socket
import time
from functools import lru_cache

import numpy as np

from ...errors import BreadthError

log = logging.getLogger("breadth.planner")

CAL_SCALE = 14
REF_GATHERS = 6       # ``reference_seconds``: gathers per round (about 1 ms each here)
REF_ROUNDS = 5        # rounds at a probe (the median)
REF_CAL_ROUNDS = 21   # rounds beside the calibration's rates


def cache_path() -> str:
    """Where the edge rates and engine costs are kept: $BREADTH_CACHE_DIR, else the user cache dir,
    per kind of machine (``machine_kind``: the namespace cluster's hosts, and a real cluster's
    identical nodes, share one measurement)."""
    base = os.environ.get("BREADTH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "breadth")
    return os.path.join(base, f"planner-{machine_kind()}.json")


def machine_kind() -> str:
    """The CPU model and core count (``/proc/cpuinfo``'s model name; the hostname where it cannot
    be read), as a file-name-safe string."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            model = next((line.split(":", 1)[1] for line in f if line.lower().startswith("model name")), "")
    except OSError:
        pass
    name = "".join(c if c.isalnum() else "-" for c in (model.strip() or socket.gethostname()))
    return "-".join(x for x in name.split("-") if x)[:80] + f"-{os.cpu_count()}"


def calibrate_rates(refresh: bool = False) -> dict:
    """{"rate_td", "rate_bu", "hot", "uniform": {"rate_td", "rate_bu", "hot"}}: edges per second of
    one core on a Kronecker graph and on a uniform one, with each graph's ``graph.hot_share_of``,
    from the cache or measured now (each rate the median of ``overhead.CAL_REPEATS`` passes over
    the same roots). A prediction interpolates between the two by its graph's hot
    share (``Machine.for_hot_share``): the hubs' state stays in cache, a uniform graph's does not."""
    path = cache_path()
    got = _read_cache(path)
    if not refresh and {"rate_td", "rate_bu", "hot", "uniform", "reference"} <= set(got):
        return got
    from ...graph import generators

    out = _rates(generators.kronecker(CAL_SCALE, 16, 1))
    out["uniform"] = _rates(generators.uniform_random(CAL_SCALE, 16, 1))
    out["scale"] = CAL_SCALE
    out["reference"] = reference_seconds(REF_CAL_ROUNDS)         # the cores' speed as the rates were measured
    for k in ("engine", "memory_bandwidth"):         # kept: measured again only when they lack a term
        if k in got:
            out[k] = got[k]
    if "engine" in got.get("uniform", {}):
        out["uniform"]["engine"] = got["uniform"]["engine"]
    _write_cache(path, out)
    return out


def reference_seconds(rounds: int = REF_ROUNDS) -> float:
    """This thread's CPU seconds for a fixed memory-bound step (``REF_GATHERS`` gathers of 2^18
    random entries of a 4 MiB table, as a search's state accesses), the median of ``rounds``: the
    calibration keeps one beside its rates, the probe compares the run's (``Machine.speed``). CPU
    time, so that time other processes take from the core (``Machine.cpu_share``) is not counted."""
    table, idx, out = _reference_arrays()
    np.take(table, idx, out=out)                                  # its lines warm
    times = []
    for _ in range(rounds):
        c0 = time.thread_time()
        for _ in range(REF_GATHERS):
            np.take(table, idx, out=out)
        times.append(time.thread_time() - c0)
    return float(np.median(times))


@lru_cache(maxsize=1)
def _reference_arrays() -> tuple:
    """``reference_seconds``'s table, indices and output, made once a process (the same every time)."""
    rng = np.random.default_rng(0)
    table = rng.integers(0, 1 << 30, 1 << 20, dtype=np.int32)
    idx = rng.integers(0, table.size, 1 << 18)
    return table, idx, np.empty(idx.size, dtype=np.int32)


def _rates(g) -> dict:
    """``calibrate_rates``'s measurement on one graph."""
    from ...search import bfs
    from ..runtime import numba_threads
    from .graph import hot_share_of, pick_roots
    from .overhead import CAL_REPEATS

    roots = pick_roots(g, 3)
    out = {"hot": hot_share_of(g)}
    with numba_threads(1):
        for alg, key in (("td", "rate_td"), ("bu", "rate_bu")):
            bfs(g, roots[0], alg)                      # loads the kernels
            got = []
            for _ in range(CAL_REPEATS):               # the median: a slowed pass is not kept
                edges = secs = 0.0
                for r in roots:
                    res = bfs(g, r, alg)
                    edges += sum(lv.edges_examined for lv in res.levels)
                    secs += sum(lv.seconds for lv in res.levels)
                got.append(edges / secs if secs > 0 else 1e8)
            out[key] = float(np.median(got))
    return out


def engine_costs(rates: dict, refresh: bool = False, kind: str = "kronecker") -> dict:
    """{layout key: ``overhead.EngineCost`` dict} of every modelled layout on graphs of ``kind``
    ("kronecker" or "uniform"), from the cache (beside the edge rates; a uniform graph's under
    "uniform") or measured now (``overhead.calibrate``, at the cache's memory bandwidth)."""
    from . import overhead
    from .choose import modelled

    path = cache_path()
    want = {overhead.key(lay.partition, lay.exchange) for lay in modelled()}
    got = _read_cache(path)
    fields = set(overhead.EngineCost().as_dict())
    here = got if kind == "kronecker" else got.setdefault("uniform", {})     # where this kind's entry lives
    cached = here.get("engine", {})
    if (not refresh and here.get("engine_version") == overhead.VERSION and want <= set(cached)
            and all(fields <= set(cached[k]) for k in want)):
        return cached                  # (an entry lacking a term, or measured another way, is measured again)
    if "memory_bandwidth" not in got:
        got["memory_bandwidth"] = memory_bandwidth()
    got.update({k: rates[k] for k in ("rate_td", "rate_bu", "hot") if k in rates})
    if "uniform" in rates:                     # its rates beside a uniform engine cost already cached
        got.setdefault("uniform", {}).update({k: v for k, v in rates["uniform"].items() if k != "engine"})
    log.warning("measuring each layout's own cost on a %s graph for --partition auto (once per kind of "
                "machine, kept in %s; 'breadth warmup' does it ahead)", kind, path)
    mine = rates if kind == "kronecker" else rates.get("uniform", rates)
    here["engine"] = overhead.calibrate(mine, got["memory_bandwidth"], modelled(), kind)
    here["engine_version"] = overhead.VERSION
    _write_cache(path, got)
    return here["engine"]


def machine_costs(refresh: bool = False) -> dict:
    """The edge rates and engine costs of this kind of machine on both calibration graphs
    (``calibrate_rates`` with "engine" added to it and to its "uniform"): what ``probe`` prices
    with, from the cache or measured now."""
    rates = calibrate_rates(refresh)
    out = {**rates, "engine": engine_costs(rates, refresh)}
    out["uniform"] = {**rates["uniform"], "engine": engine_costs(rates, refresh, kind="uniform")}
    return out


def _read_cache(path) -> dict:
    """The cache at ``path``; {} where there is none or it cannot be read (measured again then)."""
    if not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _write_cache(path, got) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        from ...files import atomic_output

        with atomic_output(path, "w") as f:
            f.write(json.dumps(got))
    except (OSError, BreadthError) as exc:        # a cache that cannot be written costs a re-measure only
        log.debug("could not cache the machine's rates at %s: %s", path, exc)


MEMORY_BYTES = 32 << 20


def memory_bandwidth(nbytes: int = MEMORY_BYTES) -> float:
    """Bytes per second this process writes when it clears an array of ``nbytes`` (larger than the
    caches): the fastest of three fills on one thread (numpy's, which needs no kernel loaded), as a
    rank clears its per-search state."""
    a = np.empty(nbytes // 8, dtype=np.int64)
    a.fill(-1)                                     # touches the pages
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        a.fill(-1)
        best = min(best, time.perf_counter() - t)
    return a.nbytes / best if best > 0 else 5e9


def run_speed(calibrated: float | None, now: float) -> float:
    """``Machine.speed``: the calibration's reference step over the run's slowest (1 without one),
    within [1/4, 4]: a step a page fault or an interrupt slowed is not taken for the machine."""
    if not calibrated or now <= 0:
        return 1.0
    return float(min(4.0, max(0.25, calibrated / now)))


def uniform_part(rates: dict) -> dict:
    """``Machine.uniform`` from the calibration (``calibrate_rates``, ``engine_costs``): the uniform
    graph's rates and engine costs and both graphs' hot shares; {} when it lacks them."""
    u = rates.get("uniform") or {}
    if not {"rate_td", "rate_bu", "hot"} <= set(u) or "hot" not in rates:
        return {}
    return {"rate_td": u["rate_td"], "rate_bu": u["rate_bu"], "engine": dict(u.get("engine", {})),
            "hot_uniform": u["hot"], "hot_kronecker": rates["hot"]}
