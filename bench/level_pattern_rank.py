"""MPI side of ``bench/level_pattern.py``: every MPI call of a search's levels, timed on every rank.

    python bench/level_pattern_rank.py OUT.json KIND SCALE SEARCHES THREADS ORDER LAYOUTS_JSON

THREADS: numba threads per rank, or "auto" (``runtime.auto_threads``, what a run without
``--threads`` gets); ORDER: "back-to-back" (each layout's searches in a row) or "interleaved"
(one search of each layout in turn). Each counted operation of ``Comm`` (and the wait of a non-blocking one) is
wrapped to record its entry and exit times with the level it belongs to, so a level splits
into the time inside MPI calls (each call on its own; waiting for a late peer included) and the
time outside them (the local step, the Python between the calls). Beside the searches it times
the probe's small Allreduce back to back (``_steady_step``): what one step of the pattern costs
when no rank computes in between. The wrappers are this script's; the engine is untouched.
"""
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

import numpy as np  # noqa: E402

from dist_network_rank import build_engines  # noqa: E402  (bench/, beside this file)

from breadth.distributed import comm_ops, search_base  # noqa: E402
from breadth.distributed.comm import Comm  # noqa: E402
from breadth.distributed.owned.build import tuple_share  # noqa: E402
from breadth.distributed.runtime import auto_threads, get_mpi, host_cores, install_abort_hook  # noqa: E402
from breadth.graph.generators import kronecker_edges, uniform_random_edges  # noqa: E402

TRACED = ("barrier", "allreduce", "iallreduce", "iallgatherv", "allgatherv", "alltoallv", "alltoallv_header",
          "sendrecv", "isend", "recv_all", "wait_all")
EVENTS = []          # (level index or None, operation, entry, exit) of this rank
OWN = []             # (start, end) of each level of the search in progress on this rank
WORK = 6e-5          # seconds of local work before each step of ``_worked_step``: a small level's local step


def _level(comm):
    log = comm._ledger.level_log
    return len(log) - 1 if log else None


def _traced(name, fn):
    def wrapper(self, *args, **kw):
        t0 = time.perf_counter()
        try:
            return fn(self, *args, **kw)
        finally:
            EVENTS.append((_level(self), name, t0, time.perf_counter()))
    return wrapper


def install_tracing():
    for name in TRACED:
        setattr(comm_ops.Operations, name, _traced(name, getattr(comm_ops.Operations, name)))
    wait = comm_ops.PendingReduce.wait

    def traced_wait(self):
        t0 = time.perf_counter()
        try:
            return wait(self)
        finally:
            EVENTS.append((_level(self.comm), "wait", t0, time.perf_counter()))
    comm_ops.PendingReduce.wait = traced_wait
    record = search_base.new_record

    def own_record(*args):
        rec = record(*args)
        end = time.perf_counter()
        OWN.append((end - rec.seconds, end))
        return rec
    search_base.new_record = own_record


def _steady_step(comm, reps=2000):
    """Seconds of one small Allreduce back to back (the slowest rank's mean): a step with no work between."""
    a, out = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    comm.mpi.Barrier()
    t = time.perf_counter()
    for _ in range(reps):
        comm.mpi.Allreduce(a, out)
    return comm.mpi.allreduce((time.perf_counter() - t) / reps, op=get_mpi().MAX)


def _worked_step(comm, work=WORK, seconds=0.05):
    """Seconds one small Allreduce costs beyond ``work`` when every rank computes ``work`` seconds
    before it, as a level's local step comes before its collectives (the slowest rank's mean over
    ``seconds``): the steady step plus what the scheduler takes from ranks that wait and compute in turn."""
    a, out = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    comm.mpi.Barrier()
    reps, t = 0, time.perf_counter()
    while True:
        stop = time.perf_counter() + work
        while time.perf_counter() < stop:
            pass
        comm.mpi.Allreduce(a, out)
        reps += 1
        done = comm.mpi.allreduce(time.perf_counter() - t >= seconds, op=get_mpi().LAND) if reps % 16 == 0 else False
        if done:
            break
    per = (time.perf_counter() - t) / reps
    return comm.mpi.allreduce(per - work, op=get_mpi().MAX)


def one_search(comm, eng, root):
    """The search's levels as {seconds, in_mpi, calls: [(operation, seconds)]} per level, this rank's."""
    del EVENTS[:], OWN[:]
    comm.barrier()
    res = eng.search(root)
    levels = [{"seconds": end - start, "in_mpi": 0.0, "calls": []} for start, end in OWN]
    for lv, name, t0, t1 in EVENTS:             # a call after the level loop (``_finish``) is in no level
        if lv is not None and lv < len(levels) and t1 <= OWN[lv][1]:
            levels[lv]["in_mpi"] += t1 - t0
            levels[lv]["calls"].append((name, t1 - t0))
    return res, levels


def main():
    out, kind, scale, searches, threads, mode, layouts = sys.argv[1:8]
    scale, searches, layouts = int(scale), int(searches), json.loads(layouts)
    install_tracing()
    comm = Comm()
    install_abort_hook(comm)
    th = auto_threads(comm) if threads == "auto" else int(threads)
    n, m = 1 << scale, 16 << scale
    start, stop = tuple_share(m, comm.rank, comm.size)
    src, dst = (kronecker_edges if kind == "kronecker" else uniform_random_edges)(scale, 16, 1, start, stop)
    report = {"ranks": comm.size, "threads": th, "host_cores": host_cores(), "cpu_count": os.cpu_count(),
              "steady_step": _steady_step(comm), "worked_step": _worked_step(comm), "layouts": []}
    engines = []
    for eng, (part, ex, params) in zip(build_engines(comm, layouts, src, dst, n, th), layouts):
        cand = np.random.default_rng(7).integers(0, n, 16 * (searches + 1))
        roots = [int(x) for x in cand[eng.nonisolated(cand)][:searches + 1]]
        eng.search(roots[0])                               # loads the kernels: untimed
        label = f"{part} {ex}" + (f" f={params['fanout']}" if ex == "butterfly" else "")
        engines.append((eng, roots[1:], []))
        report["layouts"].append({"label": label, "searches": engines[-1][2]})
    # back to back: a layout's searches one after another (as a run of one layout makes them);
    # interleaved: one search of each layout in turn (as bench/plan_calibrate.py makes them)
    order = ([(e, i) for i in range(searches) for e in engines] if mode == "interleaved"
             else [(e, i) for e in engines for i in range(searches)])
    for (eng, roots, rows), i in order:
        t = time.perf_counter()
        res, levels = one_search(comm, eng, roots[i])
        wall = time.perf_counter() - t
        for lv, rec in zip(levels, res.levels):
            lv["direction"] = rec.direction
        rows.append(comm.mpi.gather({"wall": wall, "levels": levels}, root=0))
    report["steady_step_after"] = _steady_step(comm)
    report["worked_step_after"] = _worked_step(comm)
    if comm.rank == 0:
        with open(out, "w") as f:
            json.dump(report, f)


if __name__ == "__main__":
    main()
