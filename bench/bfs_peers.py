"""breadth's BFS against Python peers on Graph500 Kronecker graphs, measured in the same run.

For each scale: build the graph (breadth's parallel CSR build vs scipy's COO->CSR with
symmetrisation and dedupe), then time single-source BFS from the same search keys with
breadth (DO, TD, BU), scipy.sparse.csgraph.breadth_first_order, networkit distance.BFS,
igraph Graph.bfs, a push/pull direction-optimizing BFS written on python-graphblas
(SuiteSparse:GraphBLAS) and networkx (small scales only). Numba compilation is done
before timing (one warm-up search). Prints per-library median ms, GTEPS (distinct
undirected edges / median time) and the ratio to breadth DO, plus the *anchors*: GAP's and a
hand-written python-graphblas push/pull BFS's figures measured alone on a quiet machine of
this kind (2 cores, 24 GiB, 2026-11-22; ``GAP_MS`` and the tables below).

    .venv/bin/python bench/bfs_peers.py --scales 18 20 22 --roots 16 --peer-roots 4
"""
from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

import breadth

GAP_MS = {20: 13.8, 22: 79.4}                 # anchors (see the module docstring), 2 threads
GAP_BUILD_S = {20: 0.56, 22: 3.6}
GRAPHBLAS_PUSHPULL_MS = {20: 35.8, 22: 152.7}


def timed(fn, roots):
    """The median seconds of ``fn(root)`` over ``roots`` (also ``gpu_bfs``'s timer)."""
    out = []
    for r in roots:
        t0 = time.perf_counter()
        fn(int(r))
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def peers(g, src, dst, want):
    """name -> (build seconds, search(root) function)."""
    n = g.num_vertices
    a = g.to_scipy()
    out = {}
    if "scipy" in want:
        import scipy.sparse as sp
        from scipy.sparse.csgraph import breadth_first_order

        t0 = time.perf_counter()
        m = sp.coo_array((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n)).tocsr()
        m = ((m + m.T) != 0).astype(np.int8)
        m.setdiag(0)
        m.eliminate_zeros()
        build = time.perf_counter() - t0
        # csgraph wants float64 data and int32 indices: convert once, not on every call
        af = sp.csr_array((np.ones(g.num_arcs), g.indices.astype(np.int32), g.indptr.astype(np.int32)),
                          shape=(n, n)) if g.num_arcs < 2**31 else a.astype(np.float64)
        out["scipy"] = (build, lambda r: breadth_first_order(af, r, directed=False,
                                                             return_predecessors=True))
    if "networkit" in want:
        try:
            import networkit as nk

            nk.setNumberOfThreads(numba.get_num_threads())
            keep = src != dst
            t0 = time.perf_counter()
            G = nk.Graph(n, directed=False)
            G.addEdges((src[keep].astype(np.uint64), dst[keep].astype(np.uint64)))
            G.removeMultiEdges()
            build = time.perf_counter() - t0
            out["networkit"] = (build, lambda r, G=G: nk.distance.BFS(G, r, storePaths=False).run())
        except ImportError:
            pass
    if "igraph" in want:
        try:
            import igraph as ig

            keep = src != dst
            t0 = time.perf_counter()
            G = ig.Graph(n=n, edges=np.column_stack([src[keep], dst[keep]]), directed=False)
            G.simplify()
            build = time.perf_counter() - t0
            out["igraph"] = (build, lambda r, G=G: G.bfs(r))
        except ImportError:
            pass
    if "graphblas" in want:
        try:
            import graphblas as gb

            t0 = time.perf_counter()
            A = gb.io.from_scipy_sparse(a.astype(bool))
            build = time.perf_counter() - t0
            out["graphblas-pushpull"] = (build, lambda r, A=A: graphblas_bfs(gb, A, r))
        except ImportError:
            pass
    if "networkx" in want and n <= 1 << 16:
        import networkx as nx

        t0 = time.perf_counter()
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(zip(src.tolist(), dst.tolist()))
        build = time.perf_counter() - t0
        out["networkx"] = (build, lambda r, G=G: nx.single_source_shortest_path_length(G, r))
    return out


def graphblas_bfs(gb, A, root, AT=None):
    """Level BFS with Beamer's switch, on GraphBLAS: push (vxm) while the frontier is small,
    pull (mxv over the complement mask, dot products) while it is large. ``AT``: the transpose
    of a directed graph's A (pull reads in-edges), A itself when symmetric (the default)."""
    AT = A if AT is None else AT
    n = A.nrows
    nnz = A.nvals
    levels = gb.Vector(gb.dtypes.INT32, n)
    frontier = gb.Vector(bool, n)
    frontier[root] = True
    levels[root] = 0
    depth = 0
    while frontier.nvals:
        depth += 1
        if frontier.nvals * (nnz / n) > nnz / 15:       # pull
            frontier(~levels.S, replace=True) << AT.mxv(frontier, gb.semiring.any_pair)
        else:                                           # push
            frontier(~levels.S, replace=True) << frontier.vxm(A, gb.semiring.any_pair)
        levels(frontier.S) << depth
    return levels


def run_scale(scale, nroots, peer_roots, want):
    print(f"\n## Kronecker scale {scale} (edge factor 16), {numba.get_num_threads()} threads")
    src, dst = breadth.kronecker_edges(scale, 16, 1)
    t0 = time.perf_counter()
    g = breadth.Graph.from_edges(src, dst, 1 << scale)
    build = time.perf_counter() - t0
    print(f"{g.num_vertices:,} vertices, {g.num_edges:,} distinct undirected edges; "
          f"breadth build (kernel 1) {build:.3f} s"
          + (f" (GAP {GAP_BUILD_S[scale]} s)" if scale in GAP_BUILD_S else ""))
    rng = np.random.default_rng(scale)
    cand = np.flatnonzero(g.degree() > 0)
    roots = rng.choice(cand, size=min(nroots, cand.size), replace=False)
    rows = []
    for alg in ("do", "td", "bu"):
        breadth.bfs(g, int(roots[0]), alg)                # warm-up: load compiled kernels
        rows.append((f"breadth {alg}", timed(lambda r, a=alg: breadth.bfs(g, r, a), roots), build))
    base = rows[0][1]
    for name, (pbuild, fn) in peers(g, src, dst, want).items():
        fn(int(roots[0]))
        rows.append((name, timed(fn, roots[:peer_roots]), pbuild))
    print("| library | median ms | GTEPS | slower than breadth do | build s |")
    print("|---|---:|---:|---:|---:|")
    for name, t, b in rows:
        print(f"| {name} | {t * 1e3:.1f} | {g.num_edges / t / 1e9:.3f} | {t / base:.2f}x | {b:.2f} |")
    if scale in GAP_MS:
        print(f"| GAP (anchor) | {GAP_MS[scale]} | {g.num_edges / GAP_MS[scale] / 1e6:.3f} | "
              f"{GAP_MS[scale] / 1e3 / base:.2f}x | {GAP_BUILD_S[scale]} |")
        print(f"| graphblas push/pull (anchor) | {GRAPHBLAS_PUSHPULL_MS[scale]} | | "
              f"{GRAPHBLAS_PUSHPULL_MS[scale] / 1e3 / base:.2f}x | |")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="+", default=[18, 20, 22])
    ap.add_argument("--roots", type=int, default=16, help="search keys timed for breadth")
    ap.add_argument("--peer-roots", type=int, default=4, help="search keys timed for each peer")
    ap.add_argument("--peers", nargs="*", default=["scipy", "networkit", "igraph", "graphblas", "networkx"],
                    help="peers to time (igraph's construction alone takes ~10 min at scale 22)")
    args = ap.parse_args()
    for s in args.scales:
        run_scale(s, args.roots, args.peer_roots, set(args.peers))


if __name__ == "__main__":
    main()
