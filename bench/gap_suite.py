"""breadth against GAP's ``bfs`` (and Python peers) on every kind of graph, same CSR, same roots.

For each graph kind (bench/suite_graphs.py: Kronecker, uniform random, a 1000 x 1000 grid,
a road-like mesh, a directed web-like power-law graph) at ``--scale``:

1. construction: ``breadth.Graph.from_edges`` on the raw edge list (median of ``--build-reps``
   calls), and with
   ``--gap --build`` GAP's build of the identical edges from a ``.el`` text file (``-s`` for
   undirected graphs). GAP prints "Build Time" *without* its squish pass (sorting,
   deduplication, self-loop removal, which ``from_edges`` does); the table also gives GAP's
   build including the squish, taken as its wall time minus "Read Time" and the trial (so it
   also holds the process start, a few ms);
2. search: ``breadth.bfs(g, root)`` (a fresh call, int64 parent and depth, the level
   statistics; nothing reused) from ``--roots`` roots drawn from the vertices with out-edges
   (GAP's rule; the largest component for ``road``), each timed ``--reps`` times, median per
   root, then median over roots; GAP reads the same CSR from a ``.sg`` file and searches the
   same roots (``-r root -n reps``, median of its trial times per root, median over roots);
   scipy, python-graphblas (a direction-optimizing push/pull), networkit and igraph search the
   first ``--peer-roots`` roots once each.

Threads: ``--threads`` (default numba's) for breadth, GAP (``OMP_NUM_THREADS``) and networkit.
Numba compilation is done before timing. Files go to ``--workdir`` and are reused.

    .venv/bin/python bench/gap_suite.py --gap /work/gap/bfs --build           # all kinds, scale 20
    .venv/bin/python bench/gap_suite.py --kinds kron urand --scale 22 --gap /work/gap/bfs \
        --peers scipy graphblas networkit igraph
    .venv/bin/python bench/gap_suite.py --kinds grid road --threads 1 --roots 4 --gap /work/gap/bfs
    .venv/bin/python bench/gap_suite.py --quick --gap /work/gap/bfs --build    # smoke test, seconds
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import time
from pathlib import Path

import numba
import numpy as np

import breadth
import suite_graphs as sg
from bfs_peers import graphblas_bfs


def median_ms(values):
    return 1e3 * statistics.median(values)


def ratio_words(other_ms, breadth_ms):
    """How ``other_ms`` compares with breadth's time, as words for the table."""
    if other_ms >= breadth_ms:
        return f"{other_ms / breadth_ms:.2f}x slower than breadth"
    return f"{breadth_ms / other_ms:.2f}x faster than breadth"


def time_breadth(g, roots, reps):
    per_root = []
    for r in roots:
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            breadth.bfs(g, int(r))
            ts.append(time.perf_counter() - t0)
        per_root.append(statistics.median(ts))
    return median_ms(per_root)


def run_gap(gap, args, threads):
    env = {k: v for k, v in os.environ.items() if k not in breadth.omp_env.APPLIED}   # GAP's own defaults
    env["OMP_NUM_THREADS"] = str(threads)
    t0 = time.perf_counter()
    out = subprocess.run([gap, *args], env=env, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t0
    times = {key: [float(x) for x in re.findall(rf"{key}:\s+([0-9.eE+-]+)", out)]
             for key in ("Read Time", "Build Time", "Trial Time")}
    return times, wall


def time_gap(gap, sg_path, roots, reps, threads):
    per_root = []
    for r in roots:
        times, _ = run_gap(gap, ["-f", str(sg_path), "-r", str(int(r)), "-n", str(reps)], threads)
        per_root.append(statistics.median(times["Trial Time"]))
    return median_ms(per_root)


def gap_build(gap, el_path, directed, threads):
    """(printed Build Time, build including squish = wall - read - trial) in seconds."""
    args = ["-f", str(el_path), "-n", "1"] + ([] if directed else ["-s"])
    times, wall = run_gap(gap, args, threads)
    rest = wall - times["Read Time"][0] - sum(times["Trial Time"])
    return times["Build Time"][0], rest


def peer_searches(g, want, threads):
    """name -> search(root) for the Python peers that are installed."""
    n = g.num_vertices
    out = {}
    if "scipy" in want:
        import scipy.sparse as sp
        from scipy.sparse.csgraph import breadth_first_order

        af = sp.csr_array((np.ones(g.num_arcs), g.indices.astype(np.int32), g.indptr.astype(np.int32)),
                          shape=(n, n))
        out["scipy"] = lambda r: breadth_first_order(af, r, directed=g.directed, return_predecessors=True)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(g.indptr))
    dst = g.indices.astype(np.int64)
    keep = np.ones(src.size, dtype=bool) if g.directed else src < dst
    if "graphblas" in want:
        try:
            import graphblas as gb

            A = gb.io.from_scipy_sparse(g.to_scipy().astype(bool))
            AT = A.T.new() if g.directed else A
            out["graphblas push/pull"] = lambda r: graphblas_bfs(gb, A, r, AT)
        except ImportError:
            pass
    if "networkit" in want:
        try:
            import networkit as nk

            nk.setNumberOfThreads(threads)
            G = nk.Graph(n, directed=g.directed)
            G.addEdges((src[keep].astype(np.uint64), dst[keep].astype(np.uint64)))
            out["networkit"] = lambda r, G=G: nk.distance.BFS(G, r, storePaths=False).run()
        except ImportError:
            pass
    if "igraph" in want:
        try:
            import igraph as ig

            G = ig.Graph(n=n, edges=np.column_stack([src[keep], dst[keep]]), directed=g.directed)
            out["igraph"] = lambda r, G=G: G.bfs(r, mode="out")
        except ImportError:
            pass
    return out


def run_kind(kind, args, threads):
    src, dst, n, directed = sg.make(kind, args.scale, args.seed, args.grid_side)
    breadth.Graph.from_edges(src[:64], dst[:64], n, directed=directed)      # warm-up: load compiled kernels
    builds = []
    for _ in range(args.build_reps):
        t0 = time.perf_counter()
        g = breadth.Graph.from_edges(src, dst, n, directed=directed)
        builds.append(time.perf_counter() - t0)
    build = statistics.median(builds)
    rng = np.random.default_rng(args.seed)
    cand = sg.root_candidates(kind, g)
    roots = rng.choice(cand, size=min(args.roots, cand.size), replace=False)
    breadth.bfs(g, int(roots[0]))                              # warm-up: load compiled kernels
    first = breadth.bfs(g, int(roots[0]))
    name = f"{kind}-{args.scale}" if kind != "grid" else f"grid-{args.grid_side}"
    print(f"\n## {name}: {g.num_vertices:,} vertices, {g.num_edges:,} {'arcs' if directed else 'edges'}, "
          f"{len(first.levels)} levels from the first root; {threads} threads")
    row = {"graph": name, "build": build, "roots": [int(r) for r in roots]}
    row["breadth"] = time_breadth(g, roots, args.reps)
    if args.gap:
        work = Path(args.workdir)
        work.mkdir(parents=True, exist_ok=True)
        sg_path = work / f"{name}-s{args.seed}.sg"
        if not sg_path.exists():
            sg.write_sg(sg_path, g)
        row["gap"] = time_gap(args.gap, sg_path, roots, args.reps, threads)
        if args.build:
            el_path = work / f"{name}-s{args.seed}.el"
            if not el_path.exists():
                sg.write_el(el_path, src, dst)
            row["gap_build"], row["gap_build_squish"] = gap_build(args.gap, el_path, directed, threads)
    del src, dst
    print("| search | median ms | vs breadth |")
    print("|---|---:|---:|")
    print(f"| breadth.bfs | {row['breadth']:.2f} | 1.00x |")
    if "gap" in row:
        print(f"| GAP bfs | {row['gap']:.2f} | {ratio_words(row['gap'], row['breadth'])} |")
    for peer, fn in peer_searches(g, set(args.peers), threads).items():
        fn(int(roots[0]))
        t = []
        for r in roots[:args.peer_roots]:
            t0 = time.perf_counter()
            fn(int(r))
            t.append(time.perf_counter() - t0)
        ms = median_ms(t)
        row[peer] = ms
        print(f"| {peer} | {ms:.2f} | {ratio_words(ms, row['breadth'])} |")
    line = f"construction: breadth Graph.from_edges {build:.3f} s"
    if "gap_build" in row:
        line += (f"; GAP Build Time {row['gap_build']:.3f} s (without squish), "
                 f"{row['gap_build_squish']:.3f} s with squish")
    print(line)
    return row


def summary(rows):
    print("\n## Summary (median ms per search; speed = GAP ms / breadth ms, above 1: breadth is faster)\n")
    print("| graph | breadth ms | GAP ms | speed vs GAP | from_edges s | GAP build s (+squish) | build speed vs GAP |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        gap = f"{r['gap']:.2f}" if "gap" in r else "-"
        ratio = f"{r['gap'] / r['breadth']:.2f}" if "gap" in r else "-"
        gb = f"{r['gap_build']:.3f} ({r['gap_build_squish']:.3f})" if "gap_build" in r else "-"
        bratio = f"{r['gap_build_squish'] / r['build']:.2f}" if "gap_build" in r else "-"
        print(f"| {r['graph']} | {r['breadth']:.2f} | {gap} | {ratio} | {r['build']:.3f} | {gb} | {bratio} |")


QUICK = {"scale": 10, "grid_side": 48, "roots": 2, "reps": 1, "peer_roots": 1, "build_reps": 1}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kinds", nargs="+", default=list(sg.KINDS), choices=sg.KINDS)
    ap.add_argument("--scale", type=int, default=20, help="2^scale vertices (not the grid: --grid-side)")
    ap.add_argument("--grid-side", type=int, default=1000)
    ap.add_argument("--roots", type=int, default=16, help="roots (median over them)")
    ap.add_argument("--reps", type=int, default=3, help="searches per root (median per root)")
    ap.add_argument("--build-reps", type=int, default=3, help="Graph.from_edges calls (median)")
    ap.add_argument("--peer-roots", type=int, default=4, help="roots timed once for each Python peer")
    ap.add_argument("--peers", nargs="*", default=[], choices=["scipy", "graphblas", "networkit", "igraph"],
                    help="Python peers to time (none by default; igraph is slow to build at scale 22)")
    ap.add_argument("--gap", help="path of GAP's bfs binary")
    ap.add_argument("--build", action="store_true", help="also time GAP's construction from a .el file")
    ap.add_argument("--workdir", default="/tmp/breadth-gap-suite", help="where .sg/.el files are written")
    ap.add_argument("--threads", type=int, help="threads (default: numba's)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: scale 10, a 48 x 48 grid, 2 roots, 1 repetition (numbers mean nothing)")
    ap.add_argument("--json", help="also write the rows (times in ms, builds in s) to this JSON file")
    args = ap.parse_args(argv)
    if args.quick:
        for key, value in QUICK.items():
            setattr(args, key, value)
    if args.threads:
        numba.set_num_threads(args.threads)
    threads = numba.get_num_threads()
    rows = [run_kind(kind, args, threads) for kind in args.kinds]
    summary(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"threads": threads, "scale": args.scale, "roots": args.roots, "reps": args.reps,
                       "rows": rows}, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
