"""The layouts' trade-offs on a network: each layout on one host (shared memory) and on the
namespace cluster (``breadth.cluster``: hosts = network namespaces, Open MPI over TCP) at several
bandwidth caps, on Kronecker and uniform random graphs, with the planner's alpha-beta prediction.

Per configuration and layout (1D all-to-all, 1D ButterFly f=1, 2D fold and scan on the default
grid, delegates at TH=auto): mean search seconds (max over ranks), TEPS (edge tuples / time),
bytes and messages per search, communication seconds (slowest rank), the model's predicted
search and communication seconds (from a probe at the start of each run: ``planner.probe``;
the level profile estimated from a down-scaled graph), measured / model; per configuration the
measured ranking and the planner's pick (``--partition auto``'s choice among these layouts),
and whether the pick is within 10% of the fastest.

    .venv/bin/python bench/dist_network.py --scale 14 --roots 8 --json net.json \\
        --settings shm:4 cluster:4x1:none cluster:4x1:100mbit

A setting is ``shm:P`` (P ranks on this host) or ``cluster:HxR:RATE`` (H namespace hosts with R
ranks each, host links capped at RATE: ``none``, ``1gbit``, ``200mbit``, ...). Needs root for the
cluster settings. Timings on a shared machine are noisy: interleave and repeat.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
RANK = os.path.join(ROOT, "bench", "dist_network_rank.py")

LAYOUTS = [("1d", "alltoall", {}), ("1d", "butterfly", {"fanout": 1}), ("2d", "fold", {}), ("2d", "scan", {}),
           ("delegates", "alltoall", {})]


def label(part, ex, params, P):
    from breadth.distributed.two_d.grid import default_grid

    if part == "2d":
        return f"2d {ex} " + "x".join(map(str, default_grid(P)))
    if ex == "butterfly":
        return f"1d butterfly f={params['fanout']}"
    return "delegates TH=auto" if part == "delegates" else "1d alltoall"


def run_one(setting, cluster, kind, args, layout, tmp):
    part, ex, params = layout
    out = os.path.join(tmp, f"{part}-{ex}.json")
    argv = [sys.executable, RANK, out, kind, str(args.scale), str(args.roots), part, ex, json.dumps(params)]
    env = dict(os.environ, PYTHONPATH=ROOT, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    if cluster is None:
        from breadth.distributed.launch import find_mpiexec

        P = int(setting.split(":")[1])
        cmd = [find_mpiexec(), "-n", str(P), "--oversubscribe", "--bind-to", "none"] + argv
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    else:
        _, hr, _ = setting.split(":")
        per = int(hr.split("x")[1])
        proc = cluster.run(argv, ranks_per_host=per, timeout=args.timeout, env={"PYTHONPATH": ROOT},
                           options=("--oversubscribe",))
    if proc.returncode != 0:
        raise SystemExit(f"{setting} {kind} {part}/{ex} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    with open(out) as f:
        return json.load(f)


def sweep_setting(setting, args):
    rows = []
    cluster = None
    if setting.startswith("cluster"):
        from breadth.cluster import Cluster

        _, hr, rate = setting.split(":")
        cluster = Cluster(int(hr.split("x")[0]), rate=None if rate == "none" else rate).up()
    try:
        for kind in args.kinds:
            with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
                os.chmod(tmp, 0o777)
                got = [run_one(setting, cluster, kind, args, lay, tmp) for lay in LAYOUTS]
            rows.append(summarise(setting, kind, got))
            print(format_config(rows[-1]), flush=True)
    finally:
        if cluster is not None:
            cluster.down()
    return rows


def summarise(setting, kind, got):
    P = got[0]["ranks"]
    est = got[0]["predictions"]["estimate"]
    layouts = []
    for d in got:
        name = label(d["partition"], d["exchange"], {"fanout": d["fanout"]}, P)
        pred = est[name]
        layouts.append({"layout": name, "seconds": d["seconds"], "teps": d["teps"], "bytes": d["bytes"],
                        "messages": d["messages"], "comm_seconds": d["comm_seconds"],
                        "model_seconds": pred["seconds"], "model_comm_seconds": pred["comm_seconds"],
                        "ratio": d["seconds"] / pred["seconds"],
                        "model_seconds_first_search_profile": d["predictions"]["measured_profile"][name]["seconds"],
                        "probe_seconds": d["probe_seconds"]})
    fastest = min(layouts, key=lambda r: r["seconds"])
    pick = min(layouts, key=lambda r: r["model_seconds"])
    return {"setting": setting, "kind": kind, "ranks": P, "layouts": layouts,
            "ranking": [r["layout"] for r in sorted(layouts, key=lambda r: r["seconds"])],
            "fastest": fastest["layout"], "auto_pick": pick["layout"],
            "pick_over_fastest": pick["seconds"] / fastest["seconds"],
            "machine": {k: got[0]["machine"][k] for k in ("alpha_local", "alpha_remote", "beta_local", "beta_remote",
                                                           "rate_td", "rate_bu", "host_count")}}


def format_config(c):
    lines = [f"== {c['setting']} {c['kind']} P={c['ranks']}: fastest {c['fastest']}, auto picks {c['auto_pick']} "
             f"({c['pick_over_fastest']:.2f}x the fastest)",
             f"{'layout':<20}{'search ms':>10}{'TEPS':>10}{'bytes':>10}{'msgs':>7}{'comm ms':>9}{'model ms':>9}"
             f"{'model comm':>11}{'meas/model':>11}"]
    for r in c["layouts"]:
        lines.append(f"{r['layout']:<20}{r['seconds'] * 1e3:>10.2f}{r['teps']:>10.3g}{r['bytes']:>10.3g}"
                     f"{r['messages']:>7.0f}{r['comm_seconds'] * 1e3:>9.2f}{r['model_seconds'] * 1e3:>9.2f}"
                     f"{r['model_comm_seconds'] * 1e3:>11.2f}{r['ratio']:>11.2f}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=14)
    ap.add_argument("--roots", type=int, default=8)
    ap.add_argument("--kinds", nargs="+", default=["kronecker", "uniform"], choices=["kronecker", "uniform"])
    ap.add_argument("--settings", nargs="+", default=["shm:4", "cluster:4x1:none", "cluster:4x1:100mbit"])
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = []
    for s in args.settings:
        rows += sweep_setting(s, args)
    ok = sum(1 for r in rows if r["pick_over_fastest"] <= 1.10)
    worst = max((r["pick_over_fastest"] for r in rows), default=1.0)
    print(f"auto within 10% of the fastest in {ok}/{len(rows)} configurations; worst {worst:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
