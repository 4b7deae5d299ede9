"""Distributed BFS with degree separation (Pan, Pearce, Owens): a sweep of the delegate threshold TH
next to 1D all-to-all (and 2D when a "2d" partition is registered) on the same Kronecker graph.

Runs ``breadth graph500`` under ``mpiexec -n P`` once per configuration and prints per row:
harmonic-mean TEPS, bytes per search (all communication, summed over ranks), its split into
delegate-mask bytes and normal-exchange bytes (plus the parent stage after the last level:
nn vertices' parents asked of their senders, delegates' parents), levels with a mask
reduction, the delegate count, the nn-arc share and the graph memory per rank (largest rank:
subgraphs, the 1D CSR, a 16-byte-per-arc edge list), and Pan's model of one mask level (the d-bit
mask Allreduce, P(P - 1) copies: ``planner.words.pan_mask_bytes``). At TH=auto every ``--masks`` mode
(``--delegate-mask``) gets a row.
Byte counts are deterministic (the same on a loaded machine); TEPS are not -- time them on
a quiet machine.

    .venv/bin/python bench/dist_delegates.py --scale 18 --ranks 4 --roots 16
    .venv/bin/python bench/dist_delegates.py --scale 18 --thresholds 16 64 auto --no-baselines
    .venv/bin/python bench/dist_delegates.py --thresholds auto --masks allreduce overlap iallreduce --no-baselines
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import graph500_runs  # noqa: E402  (bench/, beside this file)

THRESHOLDS = ["8", "16", "32", "64", "128", "256", "512", "1024", "auto"]


def graph500(args, partition, exchange=None, threshold=None, mask=None):
    extra = ["--partition", partition] + (["--exchange", exchange] if exchange else [])
    extra += (["--threshold", threshold] if threshold else []) + (["--delegate-mask", mask] if mask else [])
    return graph500_runs.graph500(args, extra, ranks=args.ranks)


def row(label, d):
    from breadth.distributed.planner.words import pan_mask_bytes

    c = d.get("communication") or {}
    part = d.get("graph", {}).get("partition", {})
    mem = part.get("memory_per_rank", {})
    r = {"config": label, "teps": d["bfs_TEPS"]["harmonic_mean"], "bytes": c.get("bytes_per_search", 0.0),
         "messages": c.get("messages_per_search", 0.0),
         "levels": sum(len(x["levels"]) for x in d["searches"]) / max(1, len(d["searches"])),
         "mask_bytes": c.get("mask_bytes_per_search"), "normal_bytes": c.get("normal_bytes_per_search"),
         "parent_bytes": c.get("delegate_parent_bytes_per_search"),
         "nn_parent_bytes": c.get("nn_parent_bytes_per_search"),
         "mask_levels": c.get("delegate_mask_levels_per_search"),
         "threshold": part.get("threshold"), "delegates": part.get("delegates"),
         "mask_model_bytes": (pan_mask_bytes(part["delegates"]) * d["num_mpi_processes"] * (d["num_mpi_processes"] - 1)
                              if part.get("delegates") is not None and "num_mpi_processes" in d else None),
         "nn_percent": part.get("nn_percent"), "construct_s": d["construction_time"]}
    if mem:
        k = max(range(len(mem["subgraphs_bytes"])), key=lambda i: mem["subgraphs_bytes"][i])
        r.update(sub_bytes=mem["subgraphs_bytes"][k], csr_bytes=mem["csr_1d_bytes"][k],
                 edge_list_bytes=mem["edge_list_16B_bytes"][k])
    return r


def main():
    from breadth.distributed import registry

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--roots", type=int, default=16, help="search keys per configuration (NBFS)")
    ap.add_argument("--thresholds", nargs="+", default=THRESHOLDS, help="TH values (integers or auto)")
    ap.add_argument("--masks", nargs="+", default=["allreduce", "overlap", "iallreduce"],
                    choices=["allreduce", "overlap", "iallreduce"],
                    help="delegate-mask sharings measured at TH=auto (other thresholds: the default, allreduce)")
    ap.add_argument("--no-baselines", action="store_true", help="skip the 1D (and 2D) rows")
    ap.add_argument("--validate", action="store_true", help="also validate every tree (untimed, slower runs)")
    ap.add_argument("--json", default=None, help="write the rows as JSON")
    args = ap.parse_args()

    rows = []
    if not args.no_baselines:
        rows.append(row("1d alltoall", graph500(args, "1d", "alltoall")))
        if "2d" in registry.partitions():
            rows.append(row("2d", graph500(args, "2d")))
    for th in args.thresholds:
        for mask in (args.masks if th == "auto" else ["allreduce"]):
            label = f"delegates TH={th}" + {"allreduce": "", "overlap": " overlap", "iallreduce": " Iallr"}[mask]
            rows.append(row(label, graph500(args, "delegates", threshold=th, mask=mask)))
            print(f"... TH={th} {mask} done", file=sys.stderr, flush=True)

    print(f"Graph500 scale {args.scale}, edgefactor 16, {args.ranks} ranks, {args.roots} search keys per row "
          f"(harmonic-mean TEPS; bytes = mean per search, summed over ranks; memory: the rank with the "
          f"largest subgraphs)")
    head = (f"{'configuration':<26}{'TEPS':>10}{'bytes':>11}{'mask B':>10}{'normal B':>11}{'nn par B':>10}"
            f"{'del par B':>10}"
            f"{'mask lv':>8}{'Pan mask/lv':>12}{'levels':>7}{'TH':>6}{'d':>8}{'nn %':>7}{'subgraph B':>12}{'1D CSR B':>11}"
            f"{'16B list':>11}")
    print(head)
    print("-" * len(head))

    def cell(value, width, spec):
        return f"{'-':>{width}}" if value is None else f"{value:>{width}{spec}}"

    for r in rows:
        print(f"{r['config']:<26}{r['teps']:>10.4g}{r['bytes']:>11.4g}{cell(r['mask_bytes'], 10, '.4g')}"
              f"{cell(r['normal_bytes'], 11, '.4g')}{cell(r['nn_parent_bytes'], 10, '.4g')}"
              f"{cell(r['parent_bytes'], 10, '.4g')}"
              f"{cell(r['mask_levels'], 8, '.1f')}{cell(r['mask_model_bytes'], 12, '.4g')}{r['levels']:>7.1f}{cell(r['threshold'], 6, '')}"
              f"{cell(r['delegates'], 8, '')}{cell(r['nn_percent'], 7, '.1f')}{cell(r.get('sub_bytes'), 12, '')}"
              f"{cell(r.get('csr_bytes'), 11, '')}{cell(r.get('edge_list_bytes'), 11, '')}")
    graph500_runs.write_rows(args.json, rows)


if __name__ == "__main__":
    main()
