"""Distributed BFS: all-to-all vs ButterFly exchange (fanout 1, 2, 4) vs the single-node run.

Runs the Graph500 benchmark (``breadth graph500``) once on one process (no MPI) and then
under ``mpiexec -n P`` for every P and exchange, all in the same run, and prints per
configuration: harmonic-mean TEPS, median search time, the ratio to the single-node TEPS,
communication per search (messages, bytes, seconds in MPI, max over ranks), levels, and
kernel-1 time. The Graph500 reference MPI code's TEPS on this kind of machine (measured
alone on a quiet 2-core machine, 2026-11-22: ``REFERENCE_MPI``) are printed alongside where it
has a figure for that scale.

    .venv/bin/python bench/dist_exchange.py --scale 18 --ranks 2 4 --roots 16

Ranks beyond the cores are oversubscribed (Open MPI, ``--oversubscribe``); each rank gets
cores / ranks-per-host numba threads (at least 1), so P ranks on 2 cores share them.
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import graph500_runs  # noqa: E402  (bench/, beside this file)

# Graph500 reference MPI code (graph500 3.0.0), harmonic-mean TEPS, quiet machine, Open MPI
# (measured on a quiet 2-core machine, 2026-11-22): {scale: {ranks: (low, high)}}
REFERENCE_MPI = {16: {1: (9.1e7, 10.1e7), 2: (7.1e7, 7.5e7), 4: (6.7e7, 6.7e7)},
                 18: {1: (6.6e7, 6.7e7), 2: (6.0e7, 6.4e7), 4: (5.7e7, 5.7e7)},
                 20: {1: (4.9e7, 5.2e7), 2: (5.5e7, 5.5e7), 4: (5.2e7, 5.2e7)}}


def graph500(args, ranks=None, exchange=None, fanout=None):
    extra = [] if ranks is None else ["--partition", "1d", "--exchange", exchange]
    extra += ["--fanout", str(fanout)] if fanout else []
    return graph500_runs.graph500(args, extra, ranks=ranks)


def row(label, ranks, d, base_teps):
    teps = d["bfs_TEPS"]["harmonic_mean"]
    c = d.get("communication") or {}
    return {"config": label, "ranks": ranks, "teps": teps, "median_ms": 1e3 * d["bfs_time"]["median"],
            "vs_single": teps / base_teps, "messages": c.get("messages_per_search", 0.0),
            "bytes": c.get("bytes_per_search", 0.0), "comm_ms": 1e3 * c.get("comm_seconds_per_search", 0.0),
            "levels": sum(len(x["levels"]) for x in d["searches"]) / max(1, len(d["searches"])),
            "construct_s": d["construction_time"], "nedge": d["nedge"]["mean"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--roots", type=int, default=16, help="search keys per configuration (NBFS)")
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--fanouts", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--validate", action="store_true", help="also validate every tree (untimed, slower runs)")
    ap.add_argument("--json", default=None, help="write the rows as JSON")
    args = ap.parse_args()

    single = graph500(args)
    base = single["bfs_TEPS"]["harmonic_mean"]
    rows = [row("single node (numba, no MPI)", 1, single, base)]
    for p in args.ranks:
        d = graph500(args, p, "alltoall")
        rows.append(row("all-to-all", p, d, base))
        for f in args.fanouts:
            d = graph500(args, p, "butterfly", f)
            rows.append(row(f"butterfly f={f}", p, d, base))
        print(f"... {p} ranks done", file=sys.stderr, flush=True)

    ref = REFERENCE_MPI.get(args.scale, {})
    print(f"Graph500 scale {args.scale}, edgefactor 16, {args.roots} search keys per configuration "
          f"(harmonic-mean TEPS; communication = mean per search, summed over ranks; comm ms = max over ranks)")
    head = (f"{'configuration':<30}{'ranks':>6}{'TEPS':>12}{'vs single':>10}{'median ms':>11}{'messages':>10}"
            f"{'bytes':>12}{'comm ms':>9}{'levels':>7}{'kernel1 s':>10}{'ref MPI TEPS':>16}")
    print(head)
    print("-" * len(head))
    for r in rows:
        lo_hi = ref.get(r["ranks"])
        refs = "" if lo_hi is None else (f"{lo_hi[0]:.2g}" if lo_hi[0] == lo_hi[1] else f"{lo_hi[0]:.2g}-{lo_hi[1]:.2g}")
        print(f"{r['config']:<30}{r['ranks']:>6}{r['teps']:>12.4g}{r['vs_single']:>10.2f}{r['median_ms']:>11.2f}"
              f"{r['messages']:>10.1f}{r['bytes']:>12.4g}{r['comm_ms']:>9.2f}{r['levels']:>7.1f}"
              f"{r['construct_s']:>10.3f}{refs:>16}")
    if ref:
        print("ref MPI TEPS: the Graph500 reference MPI code on this kind of machine (quiet, 2026-11-22); "
              "single-node row compared with its 1-rank figure")
    graph500_runs.write_rows(args.json, rows)


if __name__ == "__main__":
    main()
