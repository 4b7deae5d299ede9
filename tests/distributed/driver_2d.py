"""MPI test driver of the 2D layout, run by tests/distributed/test_2d*.py under
``mpiexec -n P python tests/distributed/driver_2d.py MODE ...``.

Modes:
  check GRID GRAPHS...  build each graph (driver.edges_for) on the R x C grid GRID, search it with
                        both 2D exchanges (fold, scan) and check on every rank that the depths equal the
                        single-node search, that the tree passes the 2D validator and (rank 0, on
                        the gathered arrays) breadth.validate, that a do search takes the
                        single-node directions, and that every level's messages are exactly the
                        schedule (``expected_messages``, and per operation ``operation_messages``);
                        scan's parents step after the last level too; then that a corrupted tree
                        fails validation on every rank alike. Prints "OK <graph> <grid>
                        <exchange> P=<P>" on rank 0 per graph and exchange.
  loop GRID             search a 2D-partitioned Kronecker graph forever (the failure tests make
                        rank FAIL_RANK raise after FAIL_AFTER searches, or kill a rank; PID_DIR
                        makes every rank write its pid there).
A failed check raises on that rank, which aborts the whole job (exit status != 0).
"""
import dataclasses
import os
import sys

import numpy as np

import breadth
from breadth.distributed import registry
from breadth.distributed.comm import Comm
from breadth.distributed.engine import DistEngine
from breadth.distributed.runtime import install_abort_hook, numba_threads
from breadth.errors import ValidationError
from breadth.graph500.engine import tuple_degree
from breadth.kernels.policy import BU, TD

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver import load, loop  # noqa: E402


def build(comm, name, grid):
    return load(DistEngine(comm=comm, partition="2d", params={"grid": grid}, threads=1), name)


def check_counts(state, result, name):
    info = result.extra["communication"]
    assert info["grid"] == state.exchange.describe()["grid"]
    for lv, per in zip(result.levels, info["levels"]):
        ex, ct = sum(per["exchange_messages"]), sum(per["control_messages"])
        assert lv.messages == ex + ct and lv.bytes == sum(per["bytes"]), (name, lv.level)
        direction = TD if lv.direction == "top-down" else BU
        assert (ex, ct) == state.expected_messages(lv.level, direction), (name, lv.level, ex, ct)
        ops = {k: v["messages"] for k, v in per["operations"].items() if v["messages"]}
        assert ops == state.exchange.operation_messages(direction), (name, lv.level, ops)
        assert sum(v["bytes"] for v in per["operations"].values()) == sum(per["exchange_bytes"]), (name, lv.level)
    after = info.get("after_levels")
    want = state.expected_after_levels()
    if after is None:
        assert want == (0, 0), (name, want)
    else:
        assert (sum(after["exchange_messages"]), sum(after["control_messages"])) == want, (name, after, want)
        ops = {k: v["messages"] for k, v in after["operations"].items() if v["messages"]}
        assert ops == ({"parents": want[0]} if want[0] else {}), (name, ops)
    assert info["messages"] == sum(lv.messages for lv in result.levels) + (sum(after["messages"]) if after else 0)


def check_corrupt(comm, engine, result, root):
    """A reached non-root vertex re-parented to one at the same depth fails on every rank alike."""
    full_depth = engine.lg.partition.allgather(comm, result.depth)
    parent = result.parent.copy()
    reached = np.flatnonzero(full_depth > 1)
    if reached.size == 0:
        return
    v = int(reached[-1])
    same = np.flatnonzero(full_depth == full_depth[v])
    p = int(same[0]) if int(same[0]) != v else int(same[-1])
    if p == v:
        return
    part = engine.lg.partition
    if part.owns(np.array([v]))[0]:
        parent[int(part.to_local(np.array([v]))[0])] = p
    try:
        engine.layout.validate(comm, engine.lg, root, parent, result.depth)
    except ValidationError as exc:
        assert exc.rule in ("depth", "edge"), exc.rule
    else:
        raise AssertionError(f"corrupted parent of {v} passed validation")


def check(grid, names):
    comm = Comm()
    install_abort_hook(comm)
    for name in names:
        engine, g, (src, dst), roots = build(comm, name, grid)
        tdeg = tuple_degree(src, dst, g.num_vertices) if comm.rank == 0 else None
        for exchange, algorithm in [(x, a) for x in ("fold", "scan") for a in ("do", "td", "bu")]:
            options = dataclasses.replace(engine.options, algorithm=algorithm)
            with numba_threads(1):
                state = registry.get("2d", exchange).search(comm, engine.lg, options)
            for root in roots:
                with numba_threads(1):
                    result = state.search(root)
                    engine.validate(root, result)
                check_counts(state, result, name)
                nedge = engine.nedge(result)
                full = engine.gather(result)
                if comm.rank == 0:
                    ref = breadth.bfs(g, root, algorithm=algorithm)
                    bad = np.flatnonzero(full.depth != ref.depth)
                    assert bad.size == 0, (name, grid, exchange, algorithm, root, bad[:5])
                    breadth.validate(g, root, full.parent, full.depth)
                    assert result.num_reached == ref.num_reached and result.max_depth == ref.max_depth
                    assert nedge == int(tdeg[ref.parent >= 0].sum()) // 2, (name, nedge)
                    dirs = [lv.direction for lv in result.levels]
                    assert dirs == [lv.direction for lv in ref.levels], (name, algorithm, root, dirs)
            with numba_threads(1):
                check_corrupt(comm, engine, result, root)
                seeds = np.array(roots[:2], dtype=np.int64)
                result = state.search(seeds, max_depth=2)
            full = engine.gather(result)
            if comm.rank == 0:
                ref = breadth.bfs(g, seeds, max_depth=2)
                assert np.array_equal(full.depth, ref.depth), (name, exchange, "multi-seed max_depth=2")
            if comm.rank == 0 and algorithm == "bu":
                print(f"OK {name} {grid} {exchange} P={comm.size}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "loop":
        loop(partition="2d", params={"grid": sys.argv[2]})
    else:
        raise SystemExit(f"unknown mode {sys.argv[1]}")
