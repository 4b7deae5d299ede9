"""Run under ``mpiexec -n P python tests/gpu/dist_driver.py [device-mpi]`` (tests/gpu/test_dist.py).

Every rank builds its share of a few graphs with ``DistEngine(device="cuda")`` (1D, butterfly, the
local steps on its GPU) and, for each algorithm, checks that the gathered depths equal the single-node
search, that the directions are the single-node search's, that the distributed validator and (rank 0)
``breadth.validate`` pass, and that the host<->device copies per level stay within the design's bound
(``device.count_transfers``): down, one counter row and the step's new vertices; up, the synchronised
frontier and the owned top-down frontier; plus the seeds up and the parents down once. With
``device-mpi`` the device buffers go to MPI directly (as with a CUDA-aware MPI; in the simulator device
arrays are host memory, so any MPI reads them): then only counters and small frontiers come down per
level. Either way the exchange sends exactly the schedule's messages. Rank 0 prints one JSON line per
search.
"""
import json
import sys

import numpy as np

import breadth
from breadth.distributed.owned.build import tuple_share
from breadth.distributed.comm import Comm
from breadth.distributed.engine import DistEngine
from breadth.distributed.runtime import install_abort_hook
from breadth.errors import InputError
from breadth.gpu import count_transfers, simulated


DEVICE_MPI = "device-mpi" in sys.argv[1:]     # hand device buffers to MPI (as with a CUDA-aware MPI)


def graphs():
    s, d = breadth.kronecker_edges(8, 8, 3)
    yield "kron8", s, d, 256, False
    yield "kron8-directed", s, d, 256, True
    v = np.arange(24)
    yield "path24+isolated", v[:-1], v[1:], 70, False          # deep and thin; 46 isolated vertices


# the simulator is slow: every algorithm on the undirected Kronecker graph, the rest sampled so that each
# step kind meets each graph kind; device buffers to MPI: three searches
HOST_CASES = {("kron8", "do"), ("kron8", "td"), ("kron8", "bu"), ("kron8-directed", "do"),
              ("path24+isolated", "do"), ("path24+isolated", "bu")}
DEVICE_MPI_CASES = {("kron8-directed", "do"), ("kron8", "td"), ("path24+isolated", "bu")}


def main():
    install_abort_hook(Comm())
    for name, s, d, n, directed in graphs():
        g = breadth.Graph.from_edges(s, d, n, directed=directed)
        root = int(np.argmax(g.out_degree()))
        for algorithm in ("do", "td", "bu"):
            if (name, algorithm) not in (DEVICE_MPI_CASES if DEVICE_MPI else HOST_CASES):
                continue
            engine = DistEngine(device="cuda", threads=1, algorithm=algorithm, params={"device_mpi": DEVICE_MPI})
            lo, hi = tuple_share(s.size, engine.rank, engine.nprocs)
            try:
                engine.build_from_edges(s[lo:hi], d[lo:hi], n, directed=directed)
            except InputError as exc:       # device buffers forced on a GPU whose MPI is not CUDA-aware
                assert DEVICE_MPI and not simulated() and "CUDA-aware" in str(exc), exc
                if engine.is_root:
                    print(json.dumps({"refused": str(exc), "device_mpi": DEVICE_MPI}), flush=True)
                return
            with count_transfers() as t:
                res = engine.search(root)
            levels = len(res.levels)
            assert engine.state.device_mpi is DEVICE_MPI and (engine.state.cuda_aware is False or not simulated())
            if DEVICE_MPI:      # counters only (a row per level, 8 bytes per round), small frontiers, levels once
                rounds = len(engine.state.exchange.partners)
                small = sum(1 for lv in res.levels if 0 < lv.discovered <= 256)
                assert t.to_host <= 2 * levels + levels * rounds + small + 3, (t.to_host, levels)
                assert t.to_device <= 1, t.to_device
                big = [b for b in t.sizes_to_host if b > 8 * 256 + 1024]
                assert len(big) <= 2, t.sizes_to_host          # the levels and the parents, once per search
            else:
                assert t.to_host <= 2 * levels + 1, (t.to_host, levels)
                assert t.to_device <= 2 * levels + 1, (t.to_device, levels)
            assert max(t.sizes_to_host) <= max(n, 1) * 8, t.sizes_to_host
            per_level = engine.state.exchange.messages_per_level(0)      # the schedule's, on either path
            assert res.extra["communication"]["exchange_messages"] == levels * per_level
            engine.validate(root, res)
            full = engine.gather(res)
            if engine.is_root:
                ref = breadth.bfs(g, root, algorithm)
                np.testing.assert_array_equal(full.depth, ref.depth)
                assert [lv.direction for lv in res.levels] == [lv.direction for lv in ref.levels]
                breadth.validate(g, root, full.parent, full.depth)
                print(json.dumps({"graph": name, "algorithm": algorithm, "levels": levels, "to_host": t.to_host,
                                  "to_device": t.to_device, "engine": res.engine, "device_mpi": DEVICE_MPI,
                                  "messages": res.extra["communication"]["exchange_messages"],
                                  "describe": engine.describe()["device"]}), flush=True)


if __name__ == "__main__":
    main()
