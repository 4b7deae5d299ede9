"""Peak resident memory per rank of a distributed Graph500 run, streamed build against tuple arrays.

Run under mpiexec, one job per configuration (a rank's peak is per process):

    mpiexec -n 4 python bench/dist_stream_memory.py --partition 2d --exchange fold --scale 18 --stream
    mpiexec -n 4 python bench/dist_stream_memory.py --partition 2d --exchange fold --scale 18 --tuple-list

Rank 0 prints one JSON line: the configuration, every rank's peak resident set (``ru_maxrss``) after
construction and at the end, the layout's estimate of the path that ran, and rank 0's kernel times.
"""
import argparse
import json
import resource

import numpy as np

from breadth.distributed.comm import Comm
from breadth.distributed.engine import DistEngine
from breadth.graph500.benchmark import Graph500Config, run_benchmark


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--partition", default="2d", help="layout partition (default 2d)")
    p.add_argument("--exchange", default=None, help="layout exchange (default: the partition's)")
    p.add_argument("--scale", type=int, default=18, help="Graph500 scale (default 18)")
    p.add_argument("--roots", type=int, default=2, help="search keys (default 2)")
    p.add_argument("--threads", type=int, default=1, help="numba threads per rank (default 1)")
    build = p.add_mutually_exclusive_group(required=True)
    build.add_argument("--stream", dest="streaming", action="store_const", const=True, help="streamed build")
    build.add_argument("--tuple-list", dest="streaming", action="store_const", const=False,
                       help="build from tuple arrays")
    args = p.parse_args()
    comm = Comm()
    eng = DistEngine(comm=comm, partition=args.partition, exchange=args.exchange, threads=args.threads,
                     streaming=args.streaming)
    construct = eng.construct
    built = {}

    def timed_construct():
        construct()
        built["mib"] = peak_mib()

    eng.construct = timed_construct
    res = run_benchmark(Graph500Config(scale=args.scale, edgefactor=16, nroots=args.roots, seed=1), eng,
                        progress=False)
    mine = np.array([built["mib"], peak_mib()])
    peaks = comm.mpi.gather(mine.tolist(), root=0)
    if comm.rank == 0:
        n = 1 << args.scale
        est = eng.estimate(n, 16 * n, args.streaming) / 2**20
        print(json.dumps({"partition": eng.partition, "exchange": eng.exchange, "ranks": comm.size,
                          "scale": args.scale, "streaming": args.streaming,
                          "peak_after_construct_mib": [round(a) for a, _ in peaks],
                          "peak_mib": [round(b) for _, b in peaks], "estimate_mib": round(est),
                          "construction_s": res.construction_time, "regeneration_s": res.regeneration_time,
                          "nedge": list(res.nedges)[:1]}), flush=True)


if __name__ == "__main__":
    main()
