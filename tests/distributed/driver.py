"""MPI test driver, run by tests/distributed under ``mpiexec -n P python tests/distributed/driver.py MODE ...``.

Modes:
  check GRAPHS...   build each graph distributed, search it with every 1D layout
                    (alltoall; butterfly fanout 1, 2, 4) and check, on every rank,
                    that the depths equal the single-node search, that the tree
                    passes the layout's distributed validator and (rank 0, on the
                    gathered arrays) breadth.validate, and that the per-level message
                    counts are exactly those of the search's schedule
                    (``DistSearch.expected_messages``). Prints one
                    "OK <graph> <config>" line per combination on rank 0.
  split             Comm.split into a grid's rows and columns: collectives on them give
                    the right values and are counted by the rules, in the parent's tallies.
  loop              search a graph forever (the failure tests kill or fail a rank);
                    env FAIL_RANK / FAIL_AFTER make that rank raise after that many
                    searches (inside its next call of the Comm method FAIL_IN, when
                    given: a rank raising inside a collective), PID_DIR makes every
                    rank write its pid there.
A failed check raises on that rank, which aborts the whole job (exit status != 0).
"""
import os
import sys
import time
import zlib

import numpy as np

import breadth
from breadth.distributed import registry
from breadth.distributed.comm import Comm
from breadth.distributed.engine import DistEngine
from breadth.distributed.one_d.butterfly_exchange import formula_messages, messages_per_level
from breadth.distributed.owned.build import tuple_share, vertex_dtype
from breadth.distributed.runtime import install_abort_hook, numba_threads
from breadth.distributed.search_base import SearchOptions
from breadth.graph500.engine import tuple_degree
from breadth.kernels.policy import BU, TD

CONFIGS = [("alltoall", None), ("butterfly", 1), ("butterfly", 2), ("butterfly", 4)]
ENCODING = os.environ.get("ENCODING", "auto")      # butterfly messages: ids or bitmap ("auto") / ids ("queue")


def edges_for(name):
    """(src, dst, n, directed, roots) of a named test graph (deterministic on every rank)."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    if name.startswith("kron"):
        scale = int(name[4:])
        return None, None, 1 << scale, False, None
    if name == "directed":
        n = 1500
        src = rng.integers(0, n, 5 * n)
        dst = rng.integers(0, n, 5 * n)
        return src, dst, n, True, [0, 17, 1499]
    if name == "disconnected":
        parts, off = [], 0
        for size in (300, 200, 5, 1):          # three components with edges, isolated vertices after
            s = rng.integers(0, size, 3 * size) + off
            d = rng.integers(0, size, 3 * size) + off
            parts.append((s, d))
            off += size
        n = off + 40
        src = np.concatenate([p[0] for p in parts])
        dst = np.concatenate([p[1] for p in parts])
        return src, dst, n, False, [0, 350, 502, n - 1]
    if name == "path":
        n = 400
        perm = rng.permutation(n)
        return perm[:-1], perm[1:], n, False, [int(perm[0]), int(perm[n // 2])]
    if name == "tiny":                         # fewer 64-vertex blocks than ranks: empty ranges
        n = 70
        src = rng.integers(0, n, 150)
        dst = rng.integers(0, n, 150)
        return src, dst, n, False, [1, 69]
    raise SystemExit(f"unknown graph {name}")


def build(comm, name):
    """A DistEngine holding the graph, and the single-node graph plus tuples for reference."""
    threads = os.environ.get("THREADS")
    return load(DistEngine(comm=comm, threads=int(threads) if threads else None), name)


def load(engine, name, graph=None):
    """Give ``engine`` the test graph ``name`` (``graph``: its edges, default ``edges_for(name)``);
    returns (engine, the single-node graph, (src, dst), roots). Shared by every layout's driver."""
    src, dst, n, directed, roots = (graph or edges_for)(name)
    comm = engine.comm
    if src is None:                            # Kronecker: distributed generation, seed 5
        scale = int(name[4:])
        engine.generate(scale, 16, 5)
        engine.construct()
        engine.after_construct()
        g, (src, dst) = breadth.kronecker(scale, 16, 5, return_edges=True)
        deg = g.degree()
        roots = [int(v) for v in np.flatnonzero(deg > 0)[[0, -1]]] + [int(np.argmax(deg))]
    else:
        a, b = tuple_share(src.size, comm.rank, comm.size)
        engine.build_from_edges(src[a:b], dst[a:b], n, directed=directed)
        g = breadth.Graph.from_edges(src, dst, num_vertices=n, directed=directed)
    return engine, g, (np.asarray(src), np.asarray(dst)), roots


def check_counts(comm, state, result, exchange, fanout, name):
    P = comm.size
    comm_info = result.extra["communication"]
    for lv, per in zip(result.levels, comm_info["levels"]):
        ex = sum(per["exchange_messages"])
        ct = sum(per["control_messages"])
        assert lv.messages == ex + ct, (name, lv.level)
        assert lv.bytes == sum(per["bytes"]), (name, lv.level)
        # every rank's own edges and level seconds: they sum to the level's edges, its slowest is the level's
        assert len(per["edges_examined"]) == P and sum(per["edges_examined"]) == lv.edges_examined, (name, lv.level)
        assert len(per["seconds"]) == P and max(per["seconds"]) == lv.seconds, (name, lv.level)
        direction = TD if lv.direction == "top-down" else BU
        assert (ex, ct) == state.expected_messages(lv.level, direction), (name, lv.level, ex, ct)
        if exchange == "butterfly":
            want = messages_per_level(P, fanout)
            formula = formula_messages(P, fanout)
            assert formula is None or formula == want
            assert ex == want and ct == 0, (name, lv.level, ex, ct, want)
            # a message is a duplicate-free set of the level's new vertices: each travels once per edge
            itemsize = np.dtype(vertex_dtype(result.partition.num_vertices)).itemsize
            assert lv.bytes <= lv.messages * lv.discovered * itemsize, (name, lv.level, lv.bytes)
        else:
            data = 2 * P * (P - 1) if lv.direction == "top-down" else P * (P - 1)
            control = P * (P - 1) * (2 if lv.level == 0 else 1)
            assert ex == data and ct == control, (name, lv.level, lv.direction, ex, ct, data, control)
        if P == 1:
            assert lv.messages == 0 and lv.bytes == 0


def check(names, algorithms):
    comm = Comm()
    install_abort_hook(comm)
    for name in names:
        engine, g, (src, dst), roots = build(comm, name)
        tdeg = tuple_degree(src, dst, g.num_vertices) if comm.rank == 0 else None
        for exchange, fanout in CONFIGS:
            layout = registry.get("1d", exchange)
            for algorithm in algorithms:
                options = SearchOptions(algorithm, fanout=fanout or 1, encoding=ENCODING)
                with numba_threads(engine.threads):
                    state = layout.search(comm, engine.lg, options)
                for root in roots:
                    with numba_threads(engine.threads):
                        result = state.search(root)
                        layout.validate(comm, engine.lg, root, result.parent, result.depth)
                    check_counts(comm, state, result, exchange, fanout, name)
                    nedge = engine.nedge(result)
                    full = engine.gather(result)
                    if comm.rank == 0:
                        ref = breadth.bfs(g, root)
                        bad = np.flatnonzero(full.depth != ref.depth)
                        assert bad.size == 0, (name, exchange, fanout, algorithm, root, bad[:5])
                        breadth.validate(g, root, full.parent, full.depth)
                        assert result.num_reached == ref.num_reached and result.max_depth == ref.max_depth
                        assert nedge == int(tdeg[ref.parent >= 0].sum()) // 2, (name, nedge)
                        if algorithm == "do":
                            dirs = [lv.direction for lv in result.levels]
                            assert dirs == [lv.direction for lv in ref.levels], (name, root, dirs)
                # a multi-seed search and a depth-limited one
                seeds = np.array(roots[:2], dtype=np.int64)
                with numba_threads(engine.threads):
                    result = state.search(seeds, max_depth=2)
                full = engine.gather(result)
                if comm.rank == 0:
                    ref = breadth.bfs(g, seeds, max_depth=2)
                    assert np.array_equal(full.depth, ref.depth), (name, "multi-seed max_depth=2")
                if comm.rank == 0:
                    print(f"OK {name} {exchange} f={fanout} {','.join(algorithms)} P={comm.size}", flush=True)


def split():
    """Rows and columns of an R x C grid (R = the largest divisor of P up to sqrt(P))."""
    comm = Comm()
    install_abort_hook(comm)
    P, me = comm.size, comm.rank
    R = max(r for r in range(1, int(P ** 0.5) + 1) if P % r == 0)
    C = P // R
    i, j = divmod(me, C)
    comm.begin_levels()
    comm.next_level()
    with comm.phase("grid"):
        row = comm.split(i)                 # the C ranks of grid row i, ordered by column
        col = comm.split(j, key=i)          # the R ranks of grid column j, ordered by row
        assert (row.size, row.rank, col.size, col.rank) == (C, j, R, i), (me, row.size, row.rank, col.rank)
        s_row = row.allreduce(np.array([me], dtype=np.int64))[0]
        s_col = col.allreduce(np.array([me], dtype=np.int64))[0]
        assert s_row == sum(i * C + t for t in range(C)) and s_col == sum(t * C + j for t in range(R))
        got = col.allgatherv(np.full(i + 1, me, dtype=np.int64))
        assert np.array_equal(got, np.concatenate([np.full(t + 1, t * C + j) for t in range(R)]))
    log = comm.end_levels()
    tally = comm.totals["grid"]["control"]
    # two allreduces of 8 bytes (C-1 and R-1 messages) and an allgatherv (counts: R-1, data: R-1)
    want = (C - 1) + (R - 1) + 2 * (R - 1)
    want_bytes = 8 * (C - 1) + 8 * (R - 1) + 8 * (R - 1) + 8 * (i + 1) * (R - 1)
    assert (tally.messages, tally.bytes) == (want, want_bytes), (me, tally, want, want_bytes)
    assert log[0]["control"].messages == want
    row.free()
    col.free()
    everyone = comm.allreduce(np.array([1], dtype=np.int64))[0]
    if me == 0:
        print(f"OK split P={P} grid={R}x{C} ranks={everyone}", flush=True)


def loop(**engine_kwargs):
    """Search until killed (or until rank FAIL_RANK raises after FAIL_AFTER searches)."""
    comm = Comm()
    install_abort_hook(comm)
    fail_rank = int(os.environ.get("FAIL_RANK", "-1"))
    fail_after = int(os.environ.get("FAIL_AFTER", "1"))
    pid_dir = os.environ.get("PID_DIR")
    engine = DistEngine(comm=comm, **engine_kwargs)
    engine.generate(10, 16, 1)
    engine.construct()
    engine.after_construct()
    if pid_dir:
        with open(os.path.join(pid_dir, f"rank{comm.rank}.pid"), "w") as f:
            f.write(str(os.getpid()))
    t0 = time.time()
    k = 0
    fail_in = os.environ.get("FAIL_IN")
    while time.time() - t0 < 120:
        if comm.rank == fail_rank and k == fail_after and fail_in:
            def broken(*args, **kwargs):
                raise RuntimeError(f"injected failure inside Comm.{fail_in}")
            setattr(comm, fail_in, broken)
        elif comm.rank == fail_rank and k == fail_after:
            print(f"driver: rank {comm.rank} fails at {time.time():.3f}", file=sys.stderr, flush=True)
            raise RuntimeError(f"injected failure after {k} searches")
        engine.search(k % 1024)
        k += 1
    raise SystemExit("loop ended without being stopped")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "check":
        algos = os.environ.get("ALGORITHMS", "do").split(",")
        check(sys.argv[2:], algos)
    elif mode == "loop":
        loop()
    elif mode == "split":
        split()
