"""The networkx backend against plain networkx, on networkx graphs built from Kronecker edge lists.

Two measurements, both peers timed in the same run on the same ``nx.Graph`` (nodes
in edge-list order, as a user's graph would be):

1. ``nx.closeness_centrality(G)`` over all nodes of a scale-12 graph (--closeness-scale):
   networkx vs ``backend="breadth"`` with the conversion included (the cache is cleared
   first). Acceptance: breadth >= 100x faster.
2. ``nx.single_source_shortest_path_length(G, s)`` on a scale-16 graph (--sssp-scale)
   from --sources random sources: networkx; breadth's first call, which converts the
   graph (cache cleared before each), and breadth once the conversion is cached
   (``G.__networkx_cache__``). Acceptance: cached >= 5x faster; converting within
   1.5x of networkx.

Results are checked equal to networkx's. Numba's compilation (or loading from its
cache) is done once on a small graph before timing: a per-process cost, not a
per-graph one. Times are medians over the sources. The machine may be shared:
run it twice.

    .venv/bin/python bench/nx_backend.py
    .venv/bin/python bench/nx_backend.py --closeness-scale 10 --sssp-scale 14   # quick
"""
from __future__ import annotations

import argparse
import statistics
import time

import networkx as nx
import numpy as np

import breadth
from breadth.nx import interface


def kronecker_nx(scale: int, edgefactor: int, seed: int) -> nx.Graph:
    src, dst = breadth.kronecker_edges(scale, edgefactor, seed)
    G = nx.Graph()
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    return G


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def warm_up() -> None:
    """Compile (or load) every kernel the measured calls use, on a small graph."""
    G = kronecker_nx(8, 8, 99)
    nx.closeness_centrality(G, backend="breadth")
    nx.single_source_shortest_path_length(G, next(iter(G)), backend="breadth")


def row(cells, widths):
    return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    print(row(header, widths))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(row(r, widths))


def closeness(scale: int, seed: int) -> list:
    G = kronecker_nx(scale, 16, seed)
    t_nx, want = timed(lambda: nx.closeness_centrality(G))
    G.__networkx_cache__.clear()
    t_br, got = timed(lambda: nx.closeness_centrality(G, backend="breadth"))
    assert got == want, "closeness differs from networkx"
    t_conv, _ = timed(lambda: interface.convert_from_nx(G))
    what = f"closeness_centrality, all {len(G)} nodes, scale {scale} ({G.number_of_edges()} edges)"
    return [[what, "networkx", f"{t_nx:.3f}", "1.0", ""],
            [what, "breadth, conversion included", f"{t_br:.3f}", f"{t_nx / t_br:.0f}x", ">= 100x"],
            [what, "(breadth's conversion alone)", f"{t_conv:.3f}", "", ""]]


def sssp(scale: int, seed: int, sources: int) -> list:
    G = kronecker_nx(scale, 16, seed)
    nodes = list(G)
    picks = [nodes[i] for i in np.random.default_rng(seed).choice(len(nodes), sources, replace=False)]
    t_nx, t_first, t_cached = [], [], []
    for s in picks:
        t, want = timed(lambda: nx.single_source_shortest_path_length(G, s))
        t_nx.append(t)
        G.__networkx_cache__.clear()
        t, got = timed(lambda: nx.single_source_shortest_path_length(G, s, backend="breadth"))
        t_first.append(t)
        assert list(got.items()) == list(want.items()), "lengths (or their order) differ from networkx"
        t, got = timed(lambda: nx.single_source_shortest_path_length(G, s, backend="breadth"))
        t_cached.append(t)
        assert got == want
    m_nx, m_first, m_cached = (statistics.median(t) for t in (t_nx, t_first, t_cached))
    what = f"single_source_shortest_path_length, scale {scale} ({G.number_of_edges()} edges), median of {sources}"
    return [[what, "networkx", f"{m_nx:.4f}", "1.0", ""],
            [what, "breadth, first call (converts)", f"{m_first:.4f}", f"{m_nx / m_first:.2f}x",
             ">= 0.67x (within 1.5x)"],
            [what, "breadth, conversion cached", f"{m_cached:.4f}", f"{m_nx / m_cached:.1f}x", ">= 5x"]]


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--closeness-scale", type=int, default=12)
    p.add_argument("--sssp-scale", type=int, default=16)
    p.add_argument("--sources", type=int, default=5, help="single-source searches to take the median of")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    nx.config.warnings_to_ignore.add("cache")      # networkx notes every use of a cached conversion
    warm_up()
    rows = closeness(args.closeness_scale, args.seed) + sssp(args.sssp_scale, args.seed, args.sources)
    print()
    table(["call", "run", "seconds", "speed-up vs networkx", "target"], rows)


if __name__ == "__main__":
    main()
