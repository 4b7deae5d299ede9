"""MPI side of ``bench/dist_network.py``: one layout on one graph, measured, with the planner's
prediction of every measured layout on the same probe. Run under mpiexec:

    python bench/dist_network_rank.py OUT.json KIND SCALE ROOTS PARTITION EXCHANGE PARAMS_JSON
"""
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from breadth.distributed.comm import Comm  # noqa: E402
from breadth.distributed.engine import DistEngine  # noqa: E402
from breadth.distributed.one_d.build import tuple_share  # noqa: E402
from breadth.distributed.planner import choose, graph  # noqa: E402
from breadth.distributed.planner.probe import probe  # noqa: E402
from breadth.distributed.runtime import auto_threads, install_abort_hook  # noqa: E402
from breadth.graph.generators import kronecker_edges, uniform_random_edges  # noqa: E402

MEASURED = [("alltoall_cost", {}), ("butterfly_cost", {"fanout": 1}), ("fold_cost", None), ("scan_cost", None),
            ("delegates_cost", {"threshold": "auto"})]


def main():
    out, kind, scale, nroots, partition, exchange, params = sys.argv[1:8]
    scale, nroots, params = int(scale), int(nroots), json.loads(params)
    comm = Comm()
    install_abort_hook(comm)
    threads = auto_threads(comm)
    t0 = time.perf_counter()
    machine = probe(comm, threads)
    probe_s = time.perf_counter() - t0
    fanout = params.pop("fanout", 1)
    eng = DistEngine(comm=comm, partition=partition, exchange=exchange, fanout=fanout, params=params,
                     threads=threads)
    n, m = 1 << scale, 16 << scale
    start, stop = tuple_share(m, comm.rank, comm.size)
    make = kronecker_edges if kind == "kronecker" else uniform_random_edges
    src, dst = make(scale, 16, 1, start, stop)
    eng.build_from_edges(src, dst, n, directed=False)
    deg = eng.lg.any_degree()
    rng = np.random.default_rng(7)
    cand = rng.integers(0, n, 8 * nroots)
    ok = eng.nonisolated(cand)
    roots = [int(x) for x in cand[ok][:nroots + 1]]
    eng.search(roots[0])                                  # warm-up, untimed
    times, comm_s, msgs, nbytes, levels = [], [], [], [], []
    for r in roots[1:]:
        comm.barrier()
        t = time.perf_counter()
        res = eng.search(r)
        times.append(comm.mpi.allreduce(time.perf_counter() - t, op=__import__("mpi4py").MPI.MAX))
        c = res.extra["communication"]
        comm_s.append(c["comm_seconds"])
        msgs.append(c["messages"])
        nbytes.append(c["bytes"])
        levels.append([lv.as_dict() for lv in res.levels])
    del deg
    if comm.rank == 0:
        prof_first = graph.from_levels(n, m, levels[0], graph.generated(kind, scale).skew, "first search")
        est = graph.generated(kind, scale)
        preds = {}
        for which, prof in (("estimate", est), ("measured_profile", prof_first)):
            row = {}
            for mod, p in MEASURED:
                model = __import__(f"breadth.distributed.planner.{mod}", fromlist=["x"])
                params_m = p if p is not None else {"grid": "x".join(map(str, _default_grid(comm.size)))}
                pr = choose.predict(model, prof, machine, params_m)
                row[pr.label] = {"seconds": pr.seconds, "comm_seconds": pr.comm_seconds, "messages": pr.messages,
                                 "bytes": pr.bytes}
            preds[which] = row
        got = {"kind": kind, "scale": scale, "ranks": comm.size, "hosts": len(set(machine.hosts)),
               "partition": partition, "exchange": exchange, "fanout": fanout, "params": params,
               "seconds": float(np.mean(times)), "comm_seconds": float(np.mean(comm_s)),
               "messages": float(np.mean(msgs)), "bytes": float(np.mean(nbytes)), "teps": m / float(np.mean(times)),
               "probe_seconds": probe_s, "machine": machine.as_dict(), "predictions": preds}
        with open(out, "w") as f:
            json.dump(got, f)


def _default_grid(P):
    from breadth.distributed.two_d.grid import default_grid

    return default_grid(P)


if __name__ == "__main__":
    main()
