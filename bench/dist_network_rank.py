"""MPI side of ``bench/dist_network.py``: every layout on one graph in one job, searches
interleaved root by root (so the machine's load falls alike on every layout), each measured
search priced by the planner's model on the probe taken at the start of the job. Run under
mpiexec:

    python bench/dist_network_rank.py OUT.json KIND SCALE ROOTS LAYOUTS_JSON

LAYOUTS_JSON: a list of [partition, exchange, params] (params may hold "fanout"). With
$BENCH_SYNC_DIR set, the job waits after construction until the driver has capped the links
(``wait_for_cap``); the probe runs after that, under the cap. With $BENCH_REPROBE=1 the probe runs
again before every round of searches (one of each layout), and each search is priced on the
machine of its round (``bench/plan_calibrate.py``: a shared machine's load changes within a job).
With $BENCH_WARM=N every timed search follows N untimed ones of the same layout (the previous
rounds' roots), and the layouts take turns going first: a timed search then finds its layout's
graph in the caches as a run of that layout does, not evicted by the other layouts' searches or
the probe's memory fill, and no layout always runs right after the same other one. Rank 0 prices
the searches after the last round, so that no pricing work runs between two searches: with
$BENCH_WARM=0 and one layout the searches run back to back, as in a run of that layout.

Per layout it writes the mean search seconds (slowest rank), communication seconds (the slowest
rank's time inside MPI calls), messages and bytes per search as ``Comm`` counts them (also per
operation and per rank), and three predictions of each: from the levels the searches of that root
actually ran ("measured_profile": 1D all-to-all's levels, whose edges are a one-rank search's, with
the estimate's degree model; it isolates the network model), from the expected levels of a search
from a root of the searched root's degree ("root_rounds", ``graph.generated(root_degree=)``), and
from the down-scaled estimate that ``--partition auto`` uses before the graph exists ("estimate").
"""
import dataclasses
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from breadth.distributed import registry  # noqa: E402
from breadth.distributed.comm import Comm  # noqa: E402
from breadth.distributed.engine import DistEngine  # noqa: E402
from breadth.distributed.owned.build import tuple_share  # noqa: E402
from breadth.distributed.planner import choose, graph  # noqa: E402
from breadth.distributed.planner.probe import probe  # noqa: E402
from breadth.distributed.runtime import auto_threads, get_mpi, install_abort_hook  # noqa: E402
from breadth.distributed.two_d.grid import default_grid  # noqa: E402
from breadth.graph.generators import kronecker_edges, uniform_random_edges  # noqa: E402

def model_params(part, ex, params, P):
    if part == "2d":
        return {"grid": "x".join(map(str, default_grid(P)))}
    if ex == "butterfly":
        return {"fanout": int(params.get("fanout", 1))}
    if part == "delegates":
        return {"threshold": "auto"}
    return {}


def price(model, prof, machine, mp):
    """The layout's (``model``) prediction, with its latency-only part (the same machine, bandwidth unbounded):
    over the profile's root draws where it has them (auto's estimate, ``choose.expected``)."""
    pr = choose.expected(model, prof, machine, mp)
    fast = dataclasses.replace(machine, beta_local=1e18, beta_remote=1e18, beta_remote_bulk=None,
                               beta_remote_p2p=None)
    lat = choose.expected(model, prof, fast, mp)
    return {"seconds": pr.seconds, "comm_seconds": pr.comm_seconds, "compute_seconds": pr.compute_seconds,
            "comm_latency_seconds": lat.comm_seconds, "messages": pr.messages, "bytes": pr.bytes,
            "counted_bytes": pr.counted_bytes, "operations": pr.operations, "label": pr.label}


def mean_dicts(rows):
    """Field-wise mean of prediction dicts (operations merged by name)."""
    out = {k: float(np.mean([r[k] for r in rows])) for k in ("seconds", "comm_seconds", "compute_seconds",
                                                             "comm_latency_seconds", "messages", "bytes",
                                                             "counted_bytes")}
    ops = {}
    for r in rows:
        for name, o in r["operations"].items():
            t = ops.setdefault(name, {"seconds": 0.0, "messages": 0.0, "bytes": 0.0})
            for k in t:
                t[k] += o[k] / len(rows)
    out["operations"] = ops
    out["label"] = rows[0]["label"]
    return out


def price_round(rows, layouts, ran, est, root_est, now, scale, P) -> None:
    """Rank 0: a round's three predictions of each layout (``rows``) on its probe's machine ``now``:
    auto's estimate ``est``, the estimate from a root of the round root's degree ``root_est``, and
    the levels the searches ran (``ran``: each row's level dicts): 1D all-to-all's, whose edges are
    a one-rank search's (each layout's model adds its own passes); a layout's own where the job has
    no such layout."""
    n, m = 1 << scale, 16 << scale
    plain = next((ran[id(row)] for row, lay in zip(rows, layouts) if tuple(lay[:2]) == ("1d", "alltoall")), None)
    for row, (part, ex, params) in zip(rows, layouts):
        model, mp = registry.get(part, ex), model_params(part, ex, params, P)
        row["est"].append(price(model, est, now, mp))
        row["est_root"].append(price(model, root_est, now, mp)["seconds"])
        prof = graph.from_levels(n, m, plain or ran[id(row)], est.skew, "measured")
        prof.degrees, prof.root_degree = est.degrees, root_est.root_degree
        row["pred"].append(price(model, prof, now, mp))


def conditions(machine) -> dict:
    """What a probe saw (``BENCH_REPROBE``): latencies, bandwidths, memory bandwidth."""
    return {k: getattr(machine, k) for k in ("alpha_local", "alpha_remote", "beta_local", "beta_remote",
                                             "memory_bandwidth", "cpu_share", "late_step", "burst_bytes", "speed")}


def build_engines(comm, layouts, src, dst, n, threads) -> list:
    """A ``DistEngine`` of every layout ([partition, exchange, params]; params may hold "fanout")
    built from this rank's share of the edges."""
    engines = []
    for part, ex, params in layouts:
        p = dict(params)
        fanout = p.pop("fanout", 1)
        eng = DistEngine(comm=comm, partition=part, exchange=ex, fanout=fanout, params=p, threads=threads)
        eng.build_from_edges(src, dst, n, directed=False)
        engines.append(eng)
    return engines


def wait_for_cap(comm):
    """With $BENCH_SYNC_DIR set: rank 0 writes ``built`` there and waits for ``capped`` (the driver
    caps the links once the graphs are built: construction is not what is measured); every
    rank sleeps, not spins, meanwhile."""
    where = os.environ.get("BENCH_SYNC_DIR")
    if not where:
        return
    if comm.rank == 0:
        open(os.path.join(where, "built"), "w").close()
        while not os.path.exists(os.path.join(where, "capped")):
            time.sleep(0.05)
    req = comm.mpi.Ibarrier()
    while not req.Test():
        time.sleep(0.01)


def main():
    out, kind, scale, nroots, layouts = sys.argv[1:6]
    scale, nroots, layouts = int(scale), int(nroots), json.loads(layouts)
    MPI = get_mpi()
    comm = Comm()
    install_abort_hook(comm)
    threads = auto_threads(comm)
    n, m = 1 << scale, 16 << scale
    start, stop = tuple_share(m, comm.rank, comm.size)
    make = kronecker_edges if kind == "kronecker" else uniform_random_edges
    src, dst = make(scale, 16, 1, start, stop)
    engines = build_engines(comm, layouts, src, dst, n, threads)
    del src, dst
    wait_for_cap(comm)
    t0 = time.perf_counter()
    machine = probe(comm, threads)
    probe_s = time.perf_counter() - t0
    rng = np.random.default_rng(7)
    cand = rng.integers(0, n, 8 * nroots)
    roots = [int(x) for x in cand[engines[0].nonisolated(cand)][:nroots + 1]]
    est = graph.generated(kind, scale) if comm.rank == 0 else None
    degree = engines[0].key_degrees(roots)
    by_root = {}                                           # rank 0: the estimate from each root's degree
    rows = [{"times": [], "comm": [], "msgs": [], "bytes": [], "ops": [], "per_rank_bytes": [], "pred": [], "op_seconds": [],
             "loop": [], "levels": [], "est": [], "est_root": []} for _ in layouts]
    reprobe = os.environ.get("BENCH_REPROBE") == "1"
    warm = int(os.environ.get("BENCH_WARM") or 0)
    probes, rounds = [], []
    for i, r in enumerate(roots):
        now = machine
        if reprobe and i > 0:                              # the conditions of this round, as auto would see them
            now = probe(comm, threads)
            probes.append(conditions(now))
        turn, ran = list(zip(engines, rows, layouts)), {}
        if warm:
            turn = turn[i % len(turn):] + turn[:i % len(turn)]
        for eng, row, (part, ex, params) in turn:
            for back in range(1, warm + 1) if i > 0 else ():
                eng.search(roots[i - back])                # untimed: this layout's data back in the caches
            comm.barrier()
            t = time.perf_counter()
            res = eng.search(r)
            secs = comm.mpi.allreduce(time.perf_counter() - t, op=MPI.MAX)
            mine = {}
            for lv in comm.operation_log:                  # this search's labelled operations, per level
                for name, t in lv.items():
                    mine[name] = mine.get(name, 0.0) + t.seconds
            every = comm.mpi.allgather(mine)               # reporting only: not counted
            loop = comm.mpi.allreduce(res.seconds, op=MPI.MAX)
            if i == 0:
                continue                                   # the first root warms up, untimed
            row["op_seconds"].append({k: max(e.get(k, 0.0) for e in every) for k in set().union(*every)})
            c = res.extra["communication"]
            row["times"].append(secs)
            row["loop"].append(loop)
            row["levels"].append(len(res.levels))
            row["comm"].append(c["comm_seconds"])
            row["msgs"].append(c["messages"])
            row["bytes"].append(c["bytes"])
            row["ops"].append(c.get("operations", {}))
            row["per_rank_bytes"].append(c["per_rank"]["bytes"])
            if comm.rank == 0:
                ran[id(row)] = [lv.as_dict() for lv in res.levels]
        if comm.rank == 0 and i > 0:
            rounds.append((i, r, now, ran))
    if reprobe:                                            # and after the last round: each round between two probes
        probes.append(conditions(probe(comm, threads)))
    if comm.rank != 0:
        return
    for i, r, now, ran in rounds:      # priced after the searches: no pricing work between two searches
        if r not in by_root:
            by_root[r] = graph.generated(kind, scale, root_degree=float(degree[i]))
        price_round(rows, layouts, ran, est, by_root[r], now, scale, comm.size)
    got = []
    for row, (part, ex, params) in zip(rows, layouts):
        model = registry.get(part, ex)
        ops = {}
        for o in row["ops"]:
            for name, t in o.items():
                s = ops.setdefault(name, {"messages": 0.0, "bytes": 0.0})
                s["messages"] += t["messages"] / len(row["ops"])
                s["bytes"] += t["bytes"] / len(row["ops"])
        for o in row["op_seconds"]:
            for name, t in o.items():
                ops.setdefault(name, {"messages": 0.0, "bytes": 0.0})
                ops[name]["seconds"] = ops[name].get("seconds", 0.0) + t / len(row["op_seconds"])
        mp = model_params(part, ex, params, comm.size)
        got.append({"partition": part, "exchange": ex, "params": params, "searches": len(row["times"]),
                    "seconds": float(np.mean(row["times"])), "seconds_median": float(np.median(row["times"])),
                    "comm_seconds": float(np.mean(row["comm"])), "loop_seconds": float(np.mean(row["loop"])),
                    "levels": float(np.mean(row["levels"])), "times": row["times"], "messages": float(np.mean(row["msgs"])),
                    "bytes": float(np.mean(row["bytes"])), "teps": m / float(np.mean(row["times"])),
                    "operations": ops, "per_rank_bytes": np.mean(row["per_rank_bytes"], axis=0).tolist(),
                    "measured_profile": mean_dicts(row["pred"]), "estimate": mean_dicts(row["est"]),
                    "estimate_start": price(model, est, machine, mp),
                    "estimate_rounds": [e["seconds"] for e in row["est"]], "root_rounds": row["est_root"]})
    with open(out, "w") as f:
        json.dump({"kind": kind, "scale": scale, "ranks": comm.size, "hosts": len(set(machine.hosts)),
                   "roots": len(roots) - 1, "probe_seconds": probe_s, "machine": machine.as_dict(),
                   "layouts": got, "probes": probes}, f)


if __name__ == "__main__":
    main()
