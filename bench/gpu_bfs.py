"""GPU BFS throughput: breadth's CUDA kernels next to its CPU kernels and cuGraph, on Kronecker graphs.

For each scale (default 20..24, edge factor 16): build the graph, upload it once
(``breadth.gpu.DeviceGraph``), warm every kernel, then time single-source
searches from the same random non-isolated keys with the GPU top-down (LRB),
direction-optimizing and bottom-up kernels, the CPU kernels (``breadth.bfs``),
cuGraph's ``bfs`` when it is installed, and one iBFS group of 64 sources on the
GPU (``breadth.gpu.ibfs.traverse``; its TEPS count every instance's edges).
Prints median ms and GTEPS = distinct undirected edges of the searched component /
median time (the convention of bench/bfs_peers.py; iBFS: summed over instances).

Needs a GPU: without one (or under numba-cuda's simulator, far too slow for these
sizes) it says so and exits 0.

    .venv/bin/python bench/gpu_bfs.py --scales 20 22 24 --roots 16
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import breadth
from bfs_peers import timed


def gpu_or_none():
    """The reason there is no GPU to measure on, or None."""
    try:
        from breadth.gpu import device

        device.require_cuda()
        if device.simulated():
            return "numba-cuda's simulator is enabled (NUMBA_ENABLE_CUDASIM=1): it is far too slow to measure"
    except breadth.BreadthError as exc:
        return str(exc)
    return None


def component_edges(g, depth) -> int:
    """Undirected edges with both ends reached (each counted once)."""
    reached = depth >= 0
    deg = np.diff(g.indptr)
    return int(deg[reached].sum() // 2)


def cugraph_search(g):
    try:
        import cudf
        import cugraph
    except ImportError:
        return None
    src = np.repeat(np.arange(g.num_vertices, dtype=np.int32), np.diff(g.indptr))
    df = cudf.DataFrame({"src": src, "dst": g.indices.astype(np.int32)})
    G = cugraph.Graph(directed=False)
    G.from_cudf_edgelist(df, source="src", destination="dst", renumber=False)
    return lambda r: cugraph.bfs(G, start=r)


def row(name, ms, edges):
    print(f"  {name:<24} {ms:10.2f} ms  {edges / (ms / 1e3) / 1e9:8.3f} GTEPS")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[20, 21, 22, 23, 24])
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--roots", type=int, default=16)
    ap.add_argument("--group", type=int, default=64, help="sources of the iBFS group")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    reason = gpu_or_none()
    if reason is not None:
        print(f"bench/gpu_bfs.py needs a CUDA GPU: {reason}")
        return 0
    from breadth import gpu
    from breadth.gpu import device
    from breadth.gpu.ibfs import traverse

    print(f"device: {device.device_name()}")
    for scale in args.scales:
        g = breadth.kronecker(scale, args.edge_factor, seed=args.seed)
        t0 = time.perf_counter()
        dg = gpu.DeviceGraph(g)
        upload = time.perf_counter() - t0
        rng = np.random.default_rng(scale)
        candidates = np.flatnonzero(g.degree() > 0)
        roots = rng.choice(candidates, size=min(args.roots, candidates.size), replace=False)
        edges = statistics.median(component_edges(g, breadth.bfs(g, int(r)).depth) for r in roots)
        print(f"scale {scale}: {g.num_vertices} vertices, {g.num_edges} edges, upload {upload:.2f} s")
        for algorithm in ("td", "do", "bu"):
            gpu.bfs(dg, int(roots[0]), algorithm)                      # compile before timing
            row(f"gpu {algorithm}", 1e3 * timed(lambda r, a=algorithm: gpu.bfs(dg, r, a), roots), edges)
        for algorithm in ("do", "td"):
            breadth.bfs(g, int(roots[0]), algorithm)
            row(f"cpu {algorithm}", 1e3 * timed(lambda r, a=algorithm: breadth.bfs(g, r, a), roots), edges)
        search = cugraph_search(g)
        if search is not None:
            search(int(roots[0]))
            row("cugraph bfs", 1e3 * timed(search, roots), edges)
        else:
            print("  cugraph                  not installed")
        sources = rng.choice(candidates, size=min(args.group, candidates.size), replace=False)
        words = -(-sources.size // 64)
        traverse(dg, sources, words, 0, 15.0, 18.0)
        t0 = time.perf_counter()
        traverse(dg, sources, words, 0, 15.0, 18.0)
        row(f"gpu iBFS x{sources.size}", 1e3 * (time.perf_counter() - t0), edges * sources.size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
