"""MPI test driver of the delegates layout, run by tests/distributed/test_delegates_mpi.py under
``mpiexec -n P python tests/distributed/driver_delegates.py check GRAPHS...``.

For every graph and every threshold of ``THRESHOLDS`` (env, comma-separated; "big" = the vertex
count, i.e. no delegates) it builds the graph distributed with ``partition="delegates"`` and
checks, on every rank: nn + nd + dn + dd = the graph's arcs; the delegates are exactly the
vertices of out-degree > TH; for each root and algorithm (do, td, bu) the depths equal the
single-node search, the tree passes the distributed validator and (rank 0, gathered)
``breadth.validate``, the Graph500 edge count matches, and the per-level messages are exactly
the search's schedule (``expected_messages``) with the mask bytes the model's. Also a
multi-seed, depth-limited search whose seeds include a delegate. Prints one "OK ..." line per
graph and threshold on rank 0.
"""
import os
import sys
import zlib

import numpy as np

import breadth
from breadth.distributed import registry
from breadth.distributed.comm import Comm
from breadth.distributed.engine import DistEngine
from breadth.distributed.runtime import install_abort_hook, numba_threads
from breadth.distributed.search_base import SearchOptions
from breadth.graph500.engine import tuple_degree
from driver import edges_for, load


def graph_for(name):
    if name == "star":                 # one giant hub, a few leaves linked among themselves
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        n = 600
        leaves = np.arange(1, n)
        src = np.concatenate([np.zeros(n - 1, dtype=np.int64), rng.integers(1, n, 60)])
        dst = np.concatenate([leaves, rng.integers(1, n, 60)])
        return src, dst, n, False, [0, 5, n - 1]
    return edges_for(name)


def build(comm, name, threshold):
    threads = os.environ.get("THREADS")
    engine = DistEngine(comm=comm, partition="delegates", params={"threshold": threshold,
                                                                  "mask": os.environ.get("MASK", "allreduce")},
                        threads=int(threads) if threads else None)
    return load(engine, name, graph_for)


def check_partition(engine, g, threshold):
    part, lg = engine.lg.partition, engine.lg
    stats = part.stats
    arcs = int(g.indptr[-1])
    assert stats["arcs"] == arcs, (stats["arcs"], arcs)
    assert sum(stats[f"{s}_arcs"] for s in ("nn", "nd", "dn", "dd")) == arcs, stats
    outdeg = np.diff(g.indptr)
    th = part.threshold
    assert threshold == "auto" or th == threshold
    assert np.array_equal(part.delegates, np.flatnonzero(outdeg > th)), (th, part.delegates[:5])
    sub = lg.sub
    assert sub.nn_ip[-1] == sub.nn_ix.size and sub.dn_ip.size == part.num_delegates + 1
    return stats


def check_counts(comm, state, result):
    P = comm.size
    info = result.extra["communication"]
    dinfo = result.extra["delegates"]
    for lv, per, dl in zip(result.levels, info["levels"], dinfo["levels"]):
        ex, ct = sum(per["exchange_messages"]), sum(per["control_messages"])
        assert (ex, ct) == state.expected_messages(lv.level, 0), (lv.level, ex, ct)
        sched = state.schedule[lv.level]
        header = 8 if state.exchange.mask != "iallreduce" else 0    # the bit count riding in the count Alltoall
        if sched["mask"] == "bitmap":      # the count (allreduce) and the mask (All- or Iallreduce)
            assert dl["mask_bytes"] == P * (P - 1) * (header + state.dnew.nbytes), (lv.level, dl)
        elif sched["mask"] == "none":
            assert header and dl["mask_bytes"] == P * (P - 1) * 8
        elif sched["mask"] == "-":
            assert dl["mask_bytes"] == 0
        assert dl["normal_bytes"] >= P * (P - 1) * 8
        if P == 1:
            assert lv.messages == 0 and lv.bytes == 0
    control = sum(P * (P - 1) * 8 * (6 if lv.level else 10) for lv in result.levels)    # scout Allreduces
    assert dinfo["mask_mode"] == state.exchange.mask
    if dinfo["nn_parents_asked"] == 0:
        assert dinfo["nn_parent_bytes"] == 0
    else:                                # request and answer: an id and a parent, the vertex id type each
        item = np.dtype(state.lg.vid_dtype).itemsize
        assert dinfo["nn_parent_bytes"] == dinfo["nn_parents_asked"] * 2 * item, dinfo
        if P == 1:
            raise AssertionError("an nn id claimed on one rank")
    assert (dinfo["mask_bytes"] + dinfo["normal_bytes"] + dinfo["delegate_parent_bytes"] + dinfo["nn_parent_bytes"]
            + control
            == info["exchange_bytes"] + info["control_bytes"]), (dinfo, info["exchange_bytes"], info["control_bytes"])


def check(names, thresholds, algorithms):
    comm = Comm()
    install_abort_hook(comm)
    layout = registry.get("delegates")
    for name in names:
        for raw in thresholds:
            n = graph_for(name)[2]
            threshold = "auto" if raw == "auto" else (n if raw == "big" else int(raw))
            engine, g, (src, dst), roots = build(comm, name, threshold)
            asked = 0
            stats = check_partition(engine, g, threshold)
            part = engine.lg.partition
            tdeg = tuple_degree(src, dst, g.num_vertices) if comm.rank == 0 else None
            for algorithm in algorithms:
                with numba_threads(engine.threads):
                    state = layout.search(comm, engine.lg, SearchOptions(algorithm))
                for root in roots:
                    with numba_threads(engine.threads):
                        result = state.search(root)
                        layout.validate(comm, engine.lg, root, result.parent, result.depth)
                    check_counts(comm, state, result)
                    asked += result.extra["delegates"]["nn_parents_asked"]
                    nedge = engine.nedge(result)
                    full = engine.gather(result)
                    if comm.rank == 0:
                        ref = breadth.bfs(g, root)
                        bad = np.flatnonzero(full.depth != ref.depth)
                        assert bad.size == 0, (name, threshold, algorithm, root, bad[:5])
                        breadth.validate(g, root, full.parent, full.depth)
                        assert result.num_reached == ref.num_reached and result.max_depth == ref.max_depth
                        assert nedge == int(tdeg[ref.parent >= 0].sum()) // 2, (name, nedge)
                seeds = np.array(roots[:2] + ([int(part.delegates[-1])] if part.num_delegates else []))
                for max_depth in (None, 2):
                    with numba_threads(engine.threads):
                        result = state.search(seeds, max_depth=max_depth)
                        if max_depth is None:
                            layout.validate(comm, engine.lg, seeds, result.parent, result.depth)
                    check_counts(comm, state, result)
                    full = engine.gather(result)
                    if comm.rank == 0:
                        ref = breadth.bfs(g, seeds, max_depth=max_depth)
                        assert np.array_equal(full.depth, ref.depth), (name, threshold, "multi-seed", max_depth)
                        if max_depth is None:
                            breadth.validate(g, seeds, full.parent, full.depth)
            if comm.rank == 0:
                shares = " ".join(f"{s}={stats[f'{s}_percent']}%" for s in ("nn", "nd", "dn", "dd"))
                print(f"OK {name} TH={part.threshold} d={part.num_delegates} {shares} asked={asked} P={comm.size}",
                      flush=True)


def comm_ops():
    """Comm.alltoallv_header (with ``between``), Comm.iallreduce and Comm.iallgatherv: right values,
    counted by the rules."""
    comm = Comm()
    P, me = comm.size, comm.rank
    comm.begin_levels()
    comm.next_level()
    counts = np.arange(P, dtype=np.int64) % 3
    send = np.concatenate([np.full(c, 100 * me + q, dtype=np.int32) for q, c in enumerate(counts)])
    header = np.stack([np.full(P, 7 * me), np.arange(P)], axis=1)
    seen = []
    recv, rcounts, got = comm.alltoallv_header(send, counts, header, between=lambda h: seen.append(h.copy()))
    assert len(seen) == 1 and np.array_equal(seen[0], got)
    assert np.array_equal(rcounts, np.full(P, me % 3))
    assert np.array_equal(recv, np.repeat(100 * np.arange(P) + me, me % 3).astype(np.int32))
    assert np.array_equal(got, np.stack([7 * np.arange(P), np.full(P, me)], axis=1))
    log = comm.level_log[-1]["exchange"]
    assert log.messages == 2 * (P - 1)
    assert log.bytes == 16 * (P - 1) + 8 * (P - 1) + 4 * (int(counts.sum()) - int(counts[me])), log
    before = log.bytes
    mask = np.zeros(3, dtype=np.uint64)
    mask[me % 3] = np.uint64(1) << np.uint64(me)
    pending = comm.iallreduce(mask, "bor")
    assert comm.level_log[-1]["exchange"].messages == 3 * (P - 1)
    want = np.zeros(3, dtype=np.uint64)
    for r in range(P):
        want[r % 3] |= np.uint64(1) << np.uint64(r)
    assert np.array_equal(pending.wait(), want) and pending.wait() is pending.wait()
    assert log.bytes == before + 24 * (P - 1) and log.messages == 3 * (P - 1)
    sizes = np.arange(P) % 2 + 1
    gathering = comm.iallgatherv(np.full(sizes[me], me, dtype=np.int32), sizes)
    assert log.messages == 4 * (P - 1) and log.bytes == before + (24 + 4 * int(sizes[me])) * (P - 1)
    assert np.array_equal(gathering.wait(), np.repeat(np.arange(P), sizes).astype(np.int32))
    comm.end_levels()
    if me == 0:
        print(f"OK comm P={P}", flush=True)


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "comm":
        comm_ops()
    elif mode == "check":
        ths = os.environ.get("THRESHOLDS", "big,auto,4,0").split(",")
        algs = os.environ.get("ALGORITHMS", "do,td,bu").split(",")
        check(sys.argv[2:], ths, algs)
    else:
        raise SystemExit(f"unknown mode {mode}")
