"""Concurrent BFS (iBFS) against running the same sources one by one, and closeness against networkit.

Three measurements, every peer timed in the same run:

1. a Graph500 Kronecker graph (--scale, default 18) and --sources (default 1024) random sources
   with out-edges: breadth's iBFS (the full depth matrix, and per-source summaries only) vs the
   same sources searched one by one with breadth's direction-optimizing BFS (``breadth.bfs``);
2. GroupBy rules vs random grouping on those sources: mean sharing degree SD (eq. 1 of the
   paper) and time, at the paper's group size 128 (W = 2) and at the default W;
3. exact closeness of every vertex of a Kronecker graph (--closeness-scale, default 16):
   ``breadth.closeness`` vs networkit ``centrality.Closeness`` (GENERALIZED = Wasserman-Faust,
   normalized) with the same thread count; scores are compared.

Numba compilation is done before timing. The machine may be shared: run it twice.

multi_bfs is timed over --repeat calls (at least two), each after the previous result was
dropped, as a loop over batches of sources that consumes each matrix would: the first call
allocates the depth matrix (and the scratch kept with the graph); a later call builds its matrix
in the dropped one's memory (``breadth.multisource.recycle``), so the page faults of fresh memory
are paid once. Both are printed: the first call, and the best later call.

    .venv/bin/python bench/concurrent_bfs.py                       # the full table
    .venv/bin/python bench/concurrent_bfs.py --scale 14 --sources 256 --closeness-scale 12   # quick
"""
from __future__ import annotations

import argparse
import time

import numba
import numpy as np

import breadth
from breadth.multisource import choose_words, msbfs, multi_bfs


def timed(fn, repeat=1):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def timed_calls(fn, repeat):
    """Seconds of each of ``repeat`` calls, the previous result dropped before the next call
    (a loop over batches that consumes each result), and the last result."""
    times, out = [], None
    for _ in range(repeat):
        out = None
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return times, out


def row(cells, widths):
    return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"


def table(title, header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    print(f"\n{title}\n")
    print(row(header, widths))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(row(r, widths))


def sequential(g, sources, limit, keep=False):
    """breadth.bfs from each source in turn (keep: store each depth row in a uint8 matrix, the
    output multi_bfs gives); extrapolated from the first `limit` when asked."""
    part = sources if limit is None else sources[:limit]
    t0 = time.perf_counter()
    if keep:
        out = np.empty((part.size, g.num_vertices), dtype=np.uint8)
        for i, s in enumerate(part):
            d = breadth.bfs(g, int(s)).depth
            np.copyto(out[i], d, casting="unsafe")       # -1 (unreached) wraps to 255
    else:
        for s in part:
            breadth.bfs(g, int(s))
    seconds = time.perf_counter() - t0
    return seconds * sources.size / part.size, part.size < sources.size


def networkit_graph(g):
    import networkit as nk

    src = np.repeat(np.arange(g.num_vertices, dtype=np.int64), np.diff(g.indptr))
    dst = g.indices.astype(np.int64)
    keep = src < dst
    G = nk.Graph(g.num_vertices, directed=False)
    G.addEdges((src[keep].astype(np.uint64), dst[keep].astype(np.uint64)))
    return G


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scale", type=int, default=18, help="Kronecker scale of the many-source graph")
    p.add_argument("--sources", type=int, default=1024, help="number of sources")
    p.add_argument("--sequential-limit", type=int, default=None, metavar="K",
                   help="time only K one-by-one searches and extrapolate (default: all)")
    p.add_argument("--closeness-scale", type=int, default=16, help="Kronecker scale of the closeness graph")
    p.add_argument("--no-networkit", action="store_true", help="skip the networkit closeness run")
    p.add_argument("--repeat", type=int, default=3, help="take the best of this many iBFS runs")
    p.add_argument("--threads", type=int, default=None, help="threads for breadth and networkit")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.threads:
        numba.set_num_threads(args.threads)
    threads = numba.get_num_threads()

    g = breadth.kronecker(args.scale, seed=args.seed)
    candidates = np.flatnonzero(g.degree() > 0)
    sources = np.sort(np.random.default_rng(args.seed).choice(candidates, args.sources, replace=False))
    print(f"kron-{args.scale}: {g.num_vertices:,} vertices, {g.num_edges:,} edges; {sources.size} sources; "
          f"{threads} threads")

    # warm-up: compile every kernel variant used below
    small = breadth.kronecker(8, seed=2)
    multi_bfs(small, np.arange(100))
    msbfs(small, np.arange(100))
    breadth.closeness(small)
    breadth.bfs(g, int(sources[0]))

    seq, estimated = sequential(g, sources, args.sequential_limit)
    seq_keep, _ = sequential(g, sources, args.sequential_limit, keep=True)
    depth_calls, depths = timed_calls(lambda: multi_bfs(g, sources), max(args.repeat, 2))
    t_first, t_depth = depth_calls[0], min(depth_calls[1:])
    t_sum, summary = timed(lambda: msbfs(g, sources), args.repeat)
    ref = breadth.bfs(g, int(sources[-1])).depth
    assert np.array_equal(np.where(ref < 0, 255, ref), depths[-1]), "iBFS depths differ from breadth.bfs"
    del depths
    note = f" (extrapolated from {args.sequential_limit})" if estimated else ""
    rows = [
        [f"one by one, breadth.bfs (DO), results dropped{note}", f"{seq:.3f}",
         f"{1e3 * seq / sources.size:.3f}", "1.0x", "-"],
        [f"one by one, breadth.bfs (DO), depth rows kept (uint8){note}", f"{seq_keep:.3f}",
         f"{1e3 * seq_keep / sources.size:.3f}", f"{seq / seq_keep:.2f}x", "1.0x"],
        [f"iBFS msbfs, per-source summaries (W={summary.words})", f"{t_sum:.3f}",
         f"{1e3 * t_sum / sources.size:.3f}", f"{seq / t_sum:.1f}x", "-"],
        [f"iBFS multi_bfs, |S| x n depth matrix (W={summary.words}), first call", f"{t_first:.3f}",
         f"{1e3 * t_first / sources.size:.3f}", f"{seq / t_first:.1f}x", f"{seq_keep / t_first:.1f}x"],
        [f"iBFS multi_bfs, |S| x n depth matrix (W={summary.words}), best later call", f"{t_depth:.3f}",
         f"{1e3 * t_depth / sources.size:.3f}", f"{seq / t_depth:.1f}x", f"{seq_keep / t_depth:.1f}x"],
    ]
    table(f"{sources.size} BFS on kron-{args.scale}", ["method", "seconds", "ms per source",
                                                        "vs dropped", "vs kept"], rows)

    rows = []
    for words in (2, None):
        res = {}
        for how in ("rules", "random"):
            t, r = timed(lambda: msbfs(g, sources, groupby=how, words=words, seed=args.seed), args.repeat)
            res[how] = (t, r)
        for how in ("rules", "random"):
            t, r = res[how]
            sd = r.sharing_degrees
            rows.append([how, r.group_size, len(r.groups), f"{sd.mean():.1f}", f"{sd.min():.1f}-{sd.max():.1f}",
                         f"{t:.3f}", f"{res['random'][0] / t:.2f}x"])
    table(f"GroupBy vs random grouping ({sources.size} sources, kron-{args.scale})",
          ["grouping", "group size", "groups", "mean SD", "SD range", "seconds", "vs random"], rows)

    gc = breadth.kronecker(args.closeness_scale, seed=args.seed)
    t_ours, ours = timed(lambda: breadth.closeness(gc), args.repeat)
    words = choose_words(gc.num_vertices, gc.num_vertices)[0]
    rows = [[f"breadth.closeness (iBFS, W={words})", f"{t_ours:.2f}", "1.0x", "-"]]
    if not args.no_networkit:
        import networkit as nk

        nk.setNumberOfThreads(threads)
        G = networkit_graph(gc)
        algo = nk.centrality.Closeness(G, True, nk.centrality.ClosenessVariant.GENERALIZED)
        t_nk, _ = timed(algo.run)
        diff = float(np.abs(np.asarray(algo.scores()) - ours).max())
        rows.append(["networkit Closeness (GENERALIZED)", f"{t_nk:.2f}", f"{t_nk / t_ours:.1f}x slower"
                     if t_nk >= t_ours else f"{t_ours / t_nk:.1f}x faster", f"{diff:.1e}"])
    table(f"Exact closeness of all {gc.num_vertices:,} vertices of kron-{args.closeness_scale} "
          f"({gc.num_edges:,} edges), {threads} threads", ["method", "seconds", "vs breadth", "max |diff|"],
          rows)


if __name__ == "__main__":
    main()
