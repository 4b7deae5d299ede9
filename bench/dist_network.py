"""The layouts' trade-offs on a network: every layout on the namespace cluster
(``breadth.cluster``: hosts = network namespaces, Open MPI over TCP) at several bandwidth caps,
or on one host (shared memory), on Kronecker and uniform random graphs, with the planner's
alpha-beta prediction from a probe taken at the start of each job under the same cap.

Per setting, graph and layout (1D all-to-all, 1D ButterFly f=1 and f=2, 2D fold and scan on the
default grid, delegates at TH=auto; all in one job, searches interleaved root by root): mean
search seconds (slowest rank), TEPS (edge tuples / time), bytes and messages per search as the
engine counts them, communication seconds (slowest rank's time in MPI calls), the model's
communication seconds and bytes priced on the levels the searches ran ("measured profile": the
network model alone; its bytes counted as the engine counts them, an Allreduce as q - 1 copies a
rank), measured / model, the share of the model's communication that is bytes /
bandwidth ("bw share": a run is bandwidth-bound when it is over one half), and the model's search
seconds from the down-scaled estimate ``--partition auto`` uses. Per setting and graph: the
measured ranking. Per capped setting: the token-bucket counters of every host link (drops).

    .venv/bin/python bench/dist_network.py --scale 15 --roots 4 --json net.json \\
        --settings cluster:4x1:none cluster:4x1:10mbit cluster:4x1:3mbit:2 cluster:4x1:1mbit:2

A setting is ``shm:P[:ROOTS]`` (P ranks on this host) or ``cluster:HxR:RATE[:ROOTS]`` (H
namespace hosts with R ranks each, host links capped at RATE: ``none``, ``10mbit``, ...; ROOTS
overrides ``--roots``, e.g. fewer searches at low caps). Settings of one HxR share one cluster
whose cap changes between them. Needs root for the cluster settings. Timings on a shared machine
are noisy: the bandwidth-bound runs less so.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import graph500_runs  # noqa: E402  (bench/, beside this file)
RANK = os.path.join(ROOT, "bench", "dist_network_rank.py")

LAYOUTS = [("1d", "alltoall", {}), ("1d", "butterfly", {"fanout": 1}), ("1d", "butterfly", {"fanout": 2}),
           ("2d", "fold", {}), ("2d", "scan", {}), ("delegates", "alltoall", {})]


def parse_setting(text):
    parts = text.split(":")
    if parts[0] == "shm" and len(parts) in (2, 3):
        return {"text": text, "where": "shm", "ranks": int(parts[1]), "roots": int(parts[2]) if len(parts) == 3 else None}
    if parts[0] == "cluster" and len(parts) in (3, 4) and re.fullmatch(r"\d+x\d+", parts[1]):
        h, r = (int(x) for x in parts[1].split("x"))
        return {"text": text, "where": "cluster", "hosts": h, "per_host": r, "rate": parts[2],
                "roots": int(parts[3]) if len(parts) == 4 else None}
    raise SystemExit(f"bad setting {text!r}: shm:P[:ROOTS] or cluster:HxR:RATE[:ROOTS]")


def start_job(setting, cluster, argv, env, logs):
    """``argv`` as an MPI job of ``setting``'s ranks: on this host (its own session, so that a
    process group kill ends it) or through the cluster's mpiexec on host 1; output to ``logs``."""
    if cluster is None:
        from breadth.distributed.launch import find_mpiexec

        env = dict(env, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        cmd = [find_mpiexec(), "-n", str(setting["ranks"]), "--oversubscribe", "--bind-to", "none"] + argv
        return subprocess.Popen(cmd, stdout=logs, stderr=subprocess.STDOUT, env=dict(os.environ, **env),
                                start_new_session=True)
    cmd = cluster.mpiexec(argv, ranks_per_host=setting["per_host"], options=("--oversubscribe",))
    return cluster.popen(1, cmd, env=env, stdout=logs, stderr=subprocess.STDOUT)


def stop_job(proc, cluster):
    """End a job ``start_job`` started that is still running."""
    if proc.poll() is None:
        if cluster is not None:
            cluster.kill_processes()
        else:
            os.killpg(proc.pid, 9)
        proc.wait()


def job_result(proc, logs, out, what):
    """The JSON report a finished job wrote to ``out``; a failed job ends the benchmark with its output's end."""
    if proc.returncode != 0:
        logs.seek(0)
        raise SystemExit(f"{what} failed ({proc.returncode}):\n{logs.read()[-3000:]}")
    with open(out) as f:
        return json.load(f)


def run_job(setting, cluster, kind, args):
    """One job (every layout) on the uncapped links; the cap goes on once the graphs are built and
    comes off at the end (returns the job's output and the caps' counters)."""
    roots = setting["roots"] or args.roots
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        os.chmod(tmp, 0o777)
        out = os.path.join(tmp, "out.json")
        argv = [sys.executable, RANK, out, kind, str(args.scale), str(roots), json.dumps(LAYOUTS)]
        env = {"PYTHONPATH": ROOT, "BENCH_SYNC_DIR": tmp, **getattr(args, "env", {})}
        logs = open(os.path.join(tmp, "log"), "w+")
        proc = start_job(setting, cluster, argv, env, logs)
        deadline, capped = time.monotonic() + args.timeout, False
        try:
            while proc.poll() is None:
                if time.monotonic() > deadline:
                    raise SystemExit(f"{setting['text']} {kind}: no result in {args.timeout:.0f} s")
                if not capped and os.path.exists(os.path.join(tmp, "built")):
                    if cluster is not None:
                        cluster.set_rate(None if setting["rate"] == "none" else setting["rate"])
                    open(os.path.join(tmp, "capped"), "w").close()
                    capped = True
                time.sleep(0.1)
        finally:
            stop_job(proc, cluster)
            qdisc = qdisc_counters(cluster) if cluster is not None else {}   # the caps' counters start at the cap
            if cluster is not None:
                cluster.set_rate(None)
        return job_result(proc, logs, out, f"{setting['text']} {kind}"), qdisc


def qdisc_counters(cluster) -> dict:
    """Sent bytes, drops and overlimits of every tbf on the cluster's links (both directions)."""
    from breadth.cluster import netns

    out = {}
    for h in cluster.hosts:
        for where, ns, dev in (("up", h.netns, "eth0"), ("down", cluster.switch, h.port)):
            text = netns.sh("tc", "-s", "-n", ns, "qdisc", "show", "dev", dev, check=False).stdout
            m = re.search(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)", text)
            if m and "tbf" in text:
                out[f"h{h.index} {where}"] = {"bytes": int(m.group(1)), "packets": int(m.group(2)),
                                              "dropped": int(m.group(3)), "overlimits": int(m.group(4))}
    return out


def summarise(setting, kind, got, qdisc, wall):
    P = got["ranks"]
    rows = []
    for d in got["layouts"]:
        mp, est = d["measured_profile"], d["estimate"]
        counted = mp.get("counted_bytes", mp["bytes"])      # the model's bytes as the engine counts them
        bw_share = 1 - mp["comm_latency_seconds"] / mp["comm_seconds"] if mp["comm_seconds"] > 0 else 0.0
        rows.append({"layout": mp["label"], "searches": d["searches"], "seconds": d["seconds"], "teps": d["teps"],
                     "bytes": d["bytes"], "messages": d["messages"], "comm_seconds": d["comm_seconds"],
                     "model_comm_seconds": mp["comm_seconds"], "model_bytes": mp["bytes"],
                     "model_counted_bytes": counted,
                     "model_messages": mp["messages"], "model_seconds": mp["seconds"],
                     "comm_ratio": d["comm_seconds"] / mp["comm_seconds"] if mp["comm_seconds"] else None,
                     "bytes_ratio": d["bytes"] / counted if counted else None,
                     "seconds_ratio": d["seconds"] / mp["seconds"], "bw_share": bw_share,
                     "estimate_seconds": est["seconds"], "estimate_comm_seconds": est["comm_seconds"],
                     "operations": d["operations"], "model_operations": mp["operations"],
                     "per_rank_bytes": d["per_rank_bytes"]})
    ranking = [r["layout"] for r in sorted(rows, key=lambda r: r["seconds"])]
    return {"setting": setting["text"], "rate": setting.get("rate", "shm"), "kind": kind, "ranks": P,
            "scale": got["scale"], "roots": got["roots"], "layouts": rows, "ranking": ranking,
            "fastest": ranking[0], "auto_pick": min(rows, key=lambda r: r["estimate_seconds"])["layout"],
            "machine": {k: got["machine"].get(k) for k in ("alpha_local", "alpha_remote", "beta_local", "beta_remote",
                                                           "beta_remote_bulk", "beta_remote_p2p", "rate_td", "rate_bu",
                                                           "host_count")},
            "probe_seconds": got["probe_seconds"], "qdisc": qdisc, "wall_seconds": wall}


def format_config(c):
    mach = c["machine"]
    drops = sum(v["dropped"] for v in c["qdisc"].values())
    lines = [f"== {c['setting']} {c['kind']} scale {c['scale']} P={c['ranks']} ({c['roots']} searches a layout, "
             f"{c['wall_seconds']:.0f} s): probe {mach['beta_remote'] * 8 / 1e6:.3g} Mbit/s a host link "
             f"({(mach['beta_remote_bulk'] or mach['beta_remote']) * 8 / 1e6:.3g} bulk, "
             f"{(mach['beta_remote_p2p'] or mach['beta_remote']) * 8 / 1e6:.3g} p2p), "
             f"alltoall step {mach['alpha_remote'].get('alltoall', 0) * 1e3:.3g} ms; tbf drops {drops}",
             f"{'layout':<20}{'search ms':>10}{'TEPS':>9}{'bytes':>9}{'msgs':>6}{'comm ms':>9}{'model':>9}"
             f"{'comm m/m':>9}{'bytes m/m':>10}{'bw share':>9}{'auto est ms':>12}"]
    for r in c["layouts"]:
        lines.append(f"{r['layout']:<20}{r['seconds'] * 1e3:>10.1f}{r['teps']:>9.3g}{r['bytes']:>9.3g}"
                     f"{r['messages']:>6.0f}{r['comm_seconds'] * 1e3:>9.1f}{r['model_comm_seconds'] * 1e3:>9.1f}"
                     f"{r['comm_ratio']:>9.2f}{r['bytes_ratio']:>10.2f}{r['bw_share']:>9.0%}"
                     f"{r['estimate_seconds'] * 1e3:>12.1f}")
    lines.append("ranking: " + " > ".join(c["ranking"]) + f"   (auto's estimate picks {c['auto_pick']})")
    return "\n".join(lines)


def markdown(rows) -> str:
    """The docs' tables from the rows (``--report FILE``): per layout and bandwidth, then the rankings."""
    out = ["| graph | cap | probe Mbit/s (bulk, p2p) | layout | search ms | TEPS | bytes/search | msgs/search | comm ms "
           "| model comm ms | comm meas/model | bytes meas/model | bw share |",
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c in rows:
        m = c["machine"]
        probe = (f"{m['beta_remote'] * 8 / 1e6:.3g} ({(m.get('beta_remote_bulk') or m['beta_remote']) * 8 / 1e6:.3g}, "
                 f"{(m.get('beta_remote_p2p') or m['beta_remote']) * 8 / 1e6:.3g})")
        for r in c["layouts"]:
            out.append(f"| {c['kind']} | {c['rate']} | {probe} | {r['layout']} | {r['seconds'] * 1e3:.1f} | "
                       f"{r['teps']:.3g} | {r['bytes']:.3g} | {r['messages']:.0f} | {r['comm_seconds'] * 1e3:.1f} | "
                       f"{r['model_comm_seconds'] * 1e3:.1f} | {r['comm_ratio']:.2f} | {r['bytes_ratio']:.2f} | "
                       f"{r['bw_share']:.0%} |")
    out += ["", "| graph | cap | searches | measured ranking (fastest first) | auto's estimate picks |", "|---|---|---:|---|---|"]
    for c in rows:
        out.append(f"| {c['kind']} | {c['rate']} | {c['roots']} | {' > '.join(c['ranking'])} | {c['auto_pick']} |")
    return "\n".join(out)


def on_clusters(settings, visit):
    """``visit(setting, cluster)`` for every setting, the settings of one HxR on one namespace
    cluster (None for ``shm``) that is taken down after them, whatever happens."""
    groups = {}
    for s in settings:
        groups.setdefault("shm" if s["where"] == "shm" else f"{s['hosts']}x{s['per_host']}", []).append(s)
    for key, group in groups.items():
        cluster = None
        if key != "shm":
            from breadth.cluster import Cluster

            cluster = Cluster(group[0]["hosts"]).up()
        try:
            for s in group:
                visit(s, cluster)
        finally:
            if cluster is not None:
                cluster.down()


def sweep(settings, args):
    rows = []

    def visit(s, cluster):
        for kind in args.kinds:
            t0 = time.monotonic()
            got, q = run_job(s, cluster, kind, args)
            wall = time.monotonic() - t0
            rows.append(summarise(s, kind, got, q, wall))
            print(format_config(rows[-1]), flush=True)
    on_clusters(settings, visit)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=15, help="graph scale (2^scale vertices, edge factor 16)")
    ap.add_argument("--roots", type=int, default=4, help="timed searches per layout (after one untimed warm-up)")
    ap.add_argument("--kinds", nargs="+", default=["kronecker", "uniform"], choices=["kronecker", "uniform"],
                    help="graph kinds")
    ap.add_argument("--settings", nargs="+", default=["cluster:4x1:none", "cluster:4x1:10mbit",
                                                      "cluster:4x1:3mbit:2", "cluster:4x1:1mbit:2"],
                    help="shm:P[:ROOTS] or cluster:HxR:RATE[:ROOTS] (see above)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds one job may take")
    ap.add_argument("--json", default=None, help="write every row (per layout, per operation) to this file")
    ap.add_argument("--report", default=None, metavar="FILE",
                    help="print the markdown tables of a --json FILE of an earlier run, and run nothing")
    args = ap.parse_args()
    if args.report:
        with open(args.report) as f:
            print(markdown(json.load(f)))
        return
    settings = [parse_setting(s) for s in args.settings]
    rows = sweep(settings, args)
    bound = [r for c in rows for r in c["layouts"] if r["bw_share"] >= 0.5]
    inside = [r for r in bound if abs(r["comm_ratio"] - 1) <= 0.3]
    print(f"bandwidth-bound runs (model's bytes/bandwidth >= 50% of its communication): {len(bound)}; "
          f"communication within +-30% of the model: {len(inside)}")
    graph500_runs.write_rows(args.json, rows)


if __name__ == "__main__":
    main()
