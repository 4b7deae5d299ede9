"""Where a distributed search level's time goes, call by call: on the namespace cluster and on
one host, each layout's levels split into the time inside each MPI call (waiting for a late peer
included) and the time outside them (the local step and the Python between the calls), per rank,
for each numba thread count asked for.

    .venv/bin/python bench/level_pattern.py --settings shm:2 cluster:2x1:none --threads auto 1 2 \
        --order back-to-back interleaved

Per setting, thread count and layout it prints the mean search (slowest rank), the levels per
search, and per level (means over levels and searches): the level's time (slowest rank), the time
outside MPI calls (the busiest rank's: local work) and inside them (the rank that waited most),
the MPI calls a level makes, and what those calls cost back to back with no work between them
(calls x the steady step: a small Allreduce timed 2000 times in a row, the probe's latency step).
The header also gives the step when every rank computes 60 us before it (``_worked_step``, before
and after the searches): what a step costs when ranks wait and compute in turn, as in a search.
``--detail LAYOUT`` also lists one search's levels call by call on every rank. Settings are
``bench/dist_network.py``'s (``shm:P``, ``cluster:HxR:RATE``); a cluster it starts it takes down.
The MPI side is ``bench/level_pattern_rank.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

import numpy as np  # noqa: E402

import dist_network  # noqa: E402  (bench/, beside this file)

RANK = os.path.join(ROOT, "bench", "level_pattern_rank.py")


def run(setting, cluster, threads, order, args) -> dict:
    """One job of every layout at ``threads``, searches in ``order``; its report (``level_pattern_rank``)."""
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        os.chmod(tmp, 0o777)
        out = os.path.join(tmp, "out.json")
        argv = [sys.executable, RANK, out, args.kind, str(args.scale), str(args.searches), str(threads), order,
                json.dumps(dist_network.LAYOUTS)]
        logs = open(os.path.join(tmp, "log"), "w+")
        if cluster is not None and setting["rate"] != "none":
            cluster.set_rate(setting["rate"])
        proc = dist_network.start_job(setting, cluster, argv, {"PYTHONPATH": ROOT}, logs)
        try:
            proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            raise SystemExit(f"{setting['text']} threads {threads}: no result in {args.timeout:.0f} s") from None
        finally:
            dist_network.stop_job(proc, cluster)
            if cluster is not None:
                cluster.set_rate(None)
        return dist_network.job_result(proc, logs, out, f"{setting['text']} threads {threads}")


def summary(layout, steady) -> dict:
    """Means over searches and levels of one layout's trace (the slowest rank's level, the busiest
    rank's time outside MPI, the most waiting rank's time inside)."""
    walls, nlev, level, outside, inside, calls = [], [], [], [], [], []
    for ranks in layout["searches"]:
        walls.append(max(r["wall"] for r in ranks))
        nlev.append(len(ranks[0]["levels"]))
        for i in range(len(ranks[0]["levels"])):
            lv = [r["levels"][i] for r in ranks]
            level.append(max(x["seconds"] for x in lv))
            outside.append(max(x["seconds"] - x["in_mpi"] for x in lv))
            inside.append(max(x["in_mpi"] for x in lv))
            calls.append(max(len(x["calls"]) for x in lv))
    return {"label": layout["label"], "search": float(np.mean(walls)), "levels": float(np.mean(nlev)),
            "level": float(np.mean(level)), "outside": float(np.mean(outside)), "inside": float(np.mean(inside)),
            "calls": float(np.mean(calls)), "pattern": float(np.mean(calls)) * steady}


def format_block(setting, threads, order, report) -> str:
    steady = min(report["steady_step"], report["steady_step_after"])
    lines = [f"== {setting['text']} threads={threads}, {order} (per rank: {report['threads']} numba threads; host cores "
             f"{report['host_cores']} of the machine's {report['cpu_count']}; steady step {steady * 1e6:.1f} us, "
             f"after 60 us of work {report['worked_step'] * 1e6:.1f}-{report['worked_step_after'] * 1e6:.1f} us)",
             f"{'layout':<20}{'search ms':>10}{'levels':>7}{'level ms':>10}{'outside':>9}{'inside':>8}"
             f"{'calls':>7}{'pattern ms':>11}"]
    for lay in report["layouts"]:
        s = summary(lay, steady)
        lines.append(f"{s['label']:<20}{s['search'] * 1e3:>10.2f}{s['levels']:>7.1f}{s['level'] * 1e3:>10.3f}"
                     f"{s['outside'] * 1e3:>9.3f}{s['inside'] * 1e3:>8.3f}{s['calls']:>7.1f}{s['pattern'] * 1e3:>11.3f}")
    return "\n".join(lines)


def format_detail(report, label) -> str:
    """One search (the median by time) of layout ``label``, level by level, call by call, per rank."""
    lay = next((x for x in report["layouts"] if x["label"] == label), None)
    if lay is None:
        return f"(no layout {label!r}: {', '.join(x['label'] for x in report['layouts'])})"
    order = sorted(lay["searches"], key=lambda ranks: max(r["wall"] for r in ranks))
    ranks = order[len(order) // 2]
    lines = [f"-- {label}: the median search, {max(r['wall'] for r in ranks) * 1e3:.2f} ms; per level and rank: "
             f"time outside MPI, then each call (ms)"]
    for i in range(len(ranks[0]["levels"])):
        for rank, r in enumerate(ranks):
            lv = r["levels"][i]
            steps = " ".join(f"{name} {sec * 1e3:.3f}" for name, sec in lv["calls"])
            lines.append(f"level {i} {lv.get('direction', '')[:2]:<3}rank {rank}: level {lv['seconds'] * 1e3:.3f}, "
                         f"outside {(lv['seconds'] - lv['in_mpi']) * 1e3:.3f} | {steps}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--settings", nargs="+", default=["shm:2", "cluster:2x1:none"],
                    help="shm:P or cluster:HxR:RATE (bench/dist_network.py)")
    ap.add_argument("--threads", nargs="+", default=["auto", "1"],
                    help='numba threads per rank to compare ("auto": what a run without --threads gets)')
    ap.add_argument("--order", nargs="+", default=["back-to-back"], choices=["back-to-back", "interleaved"],
                    help="each layout's searches in a row, or one search of each layout in turn (as "
                         "bench/plan_calibrate.py runs them); several: one job each")
    ap.add_argument("--kind", default="kronecker", choices=["kronecker", "uniform"], help="graph kind")
    ap.add_argument("--scale", type=int, default=14, help="graph scale (2^scale vertices, edge factor 16)")
    ap.add_argument("--searches", type=int, default=5, help="timed searches per layout (after a warm-up)")
    ap.add_argument("--detail", default=None, metavar="LAYOUT", help='also list one search call by call, e.g. "1d alltoall"')
    ap.add_argument("--timeout", type=float, default=600, help="seconds one job may take")
    ap.add_argument("--json", default=None, help="write every job's trace to this file")
    args = ap.parse_args()
    for t in args.threads:
        if t != "auto" and not (t.isdigit() and int(t) > 0):
            raise SystemExit(f"bad --threads {t!r}: a positive integer or auto")
    settings = [dist_network.parse_setting(s) for s in args.settings]
    traces = []

    def visit(s, cluster):
        for threads in args.threads:
            for order in args.order:
                t0 = time.monotonic()
                report = run(s, cluster, threads, order, args)
                traces.append({"setting": s["text"], "threads_asked": threads, "order": order,
                               "wall": time.monotonic() - t0, **report})
                print(format_block(s, threads, order, report), flush=True)
                if args.detail:
                    print(format_detail(report, args.detail), flush=True)
    dist_network.on_clusters(settings, visit)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(traces, f)


if __name__ == "__main__":
    main()
