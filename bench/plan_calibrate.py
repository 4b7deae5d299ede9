"""The planner against measured searches where breadth runs: every layout, per configuration, the
predicted search time that ``--partition auto`` computes against the measured one, and auto's
pick against the fastest layout measured.

A configuration is a setting of ``bench/dist_network.py`` (``shm:P``: P ranks on this host;
``cluster:HxR:RATE``: H namespace hosts of R ranks, host links capped at RATE), a graph kind and a
scale. Each runs as one job of ``bench/dist_network_rank.py`` with every layout, searches
interleaved root by root, each after ``WARM`` untimed searches of its own layout ($BENCH_WARM: it
finds its graph in the caches, as a run of one layout does; after one, a search still took 5-10%
longer than back to back, after two as long), and with $BENCH_REPROBE=1: the probe runs
again before every round of searches, and each search is priced on the machine of its round from the graph
estimate: the expected levels of a search from a root of its root's degree (``graph.generated`` with
``root_degree``), and what auto prices before the graph exists, the expectation over roots. On a
Kronecker graph the two differ by the root's degree: 39 on average at scale 16, 6 at the median,
and the first levels' edges follow it. Nothing is fitted to
the measured searches: the model's terms come from the probe (latencies, bandwidths, memory
bandwidth, edge rates and the engine's own per-level and per-search costs, ``planner.overhead``).

    .venv/bin/python bench/plan_calibrate.py --scales 14 16 --roots 16 --json cal.json \\
        --settings shm:2 cluster:2x1:none cluster:2x1:100mbit cluster:2x1:10mbit

Each round lies between two probes; a round is steady when their step latencies agree within
``STEADY`` (another engineer's burst on the shared cores stalls every blocking step by a scheduler
time slice, milliseconds, and comes and goes within a second: the probe before a round measures the
conditions of that round only when they hold across it). Per configuration it prints each layout's
measured and predicted milliseconds (medians over the steady rounds; over all when none is) and their
ratio (measured / predicted; also auto's estimate, the prediction from the levels the searches
actually ran, which isolates the graph estimate, and the ratio of the means, which keeps the
bursts), the probe's latency range over the rounds, the load average, and
auto's pick (the lowest of auto's estimates) with its measured time over the fastest layout's (the
medians; the means' ratio beside it). Ends with the number of layout runs within 1.5x and
configurations where auto's pick is within 10% of the fastest. ``--report FILE`` prints the docs' markdown table of an earlier ``--json FILE``.
Needs root for the cluster settings; every cluster it starts it takes down.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

import dist_network  # noqa: E402  (bench/, beside this file)
import graph500_runs  # noqa: E402

WITHIN = 1.5          # the acceptance ratio of predicted and measured search time
PICK_SLACK = 0.10     # auto's pick may be this much slower than the fastest layout
STEADY = 2.0          # a round counts when its probes' step latencies are within this factor
WARM = 2              # untimed searches of a layout before each timed one (see the module doc)


def load() -> float:
    """The one-minute load average (the machine is shared: the conditions beside the numbers)."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def step_latency(conditions) -> float:
    """A probe's slowest latency step (seconds), the mark of another process holding a core."""
    return max(max(conditions["alpha_local"].values()), max(conditions["alpha_remote"].values()))


def steady_rounds(probes) -> list:
    """The rounds whose probes before and after saw step latencies within ``STEADY`` of each other
    (the load did not change across the round: what the probe before it measured held)."""
    lat = [step_latency(p) for p in probes]
    return [i for i in range(len(lat) - 1) if max(lat[i], lat[i + 1]) <= STEADY * min(lat[i], lat[i + 1])]


def summarise(setting, kind, got, before, after, wall) -> dict:
    rows = []
    keep = steady_rounds(got.get("probes", []))
    for d in got["layouts"]:
        est, mp = d["estimate"], d["measured_profile"]
        use = keep or list(range(len(d["times"])))
        measured = float(np.median([d["times"][i] for i in use]))
        expected = float(np.median([d["estimate_rounds"][i] for i in use]))
        by_root = d.get("root_rounds") or d["estimate_rounds"]
        predicted = float(np.median([by_root[i] for i in use]))
        rows.append({"layout": mp["label"], "measured": measured, "predicted": predicted,
                     "measured_steady_mean": float(np.mean([d["times"][i] for i in use])),
                     "ratio": measured / predicted if predicted > 0 else float("inf"),
                     "expected": expected, "expected_ratio": measured / expected if expected > 0 else float("inf"),
                     "measured_mean": d["seconds"], "predicted_mean": float(np.mean(by_root)),
                     "mean_ratio": d["seconds"] / float(np.mean(by_root)) if np.mean(by_root) > 0 else float("inf"),
                     "predicted_compute": est["compute_seconds"], "predicted_comm": est["comm_seconds"],
                     "profile_predicted": mp["seconds"],
                     "profile_ratio": measured / mp["seconds"] if mp["seconds"] > 0 else float("inf"),
                     "measured_comm": d["comm_seconds"], "levels": d.get("levels"), "searches": d["searches"]})
    # auto prices before any root is known (its estimate is the expectation over roots); its pick is
    # judged by the median search, and by the mean beside it (what many searches pay, but one search
    # slowed by another tenant moves a mean of eight: ButterFly f=1 and f=2, the same engine on two
    # ranks, came out 1.3-1.5x apart by their means in one run)
    fastest = min(rows, key=lambda r: r["measured"])
    pick = min(rows, key=lambda r: r["expected"])
    by_mean = min(rows, key=lambda r: r["measured_steady_mean"])
    alphas = [step_latency(p) for p in got.get("probes", [])] or [step_latency(got["machine"])]
    shares = [p.get("cpu_share", 1.0) for p in got.get("probes", [])] or [1.0]
    lates = [p.get("late_step", 0.0) for p in got.get("probes", [])] or [0.0]
    speeds = [p.get("speed", 1.0) for p in got.get("probes", [])] or [1.0]
    return {"setting": setting["text"], "kind": kind, "scale": got["scale"], "ranks": got["ranks"],
            "hosts": got["hosts"], "roots": got["roots"], "steady": len(keep), "layouts": rows, "fastest": fastest["layout"],
            "pick": pick["layout"], "pick_over_fastest": pick["measured"] / fastest["measured"],
            "fastest_mean": by_mean["layout"],
            "pick_over_fastest_mean": pick["measured_steady_mean"] / by_mean["measured_steady_mean"],
            "alpha_min": min(alphas), "alpha_max": max(alphas), "cpu_share_min": min(shares),
            "late_min": min(lates), "late_max": max(lates), "speed_min": min(speeds), "speed_max": max(speeds),
            "load_before": before, "load_after": after,
            "memory_bandwidth": got["machine"].get("memory_bandwidth"), "wall_seconds": wall}


def format_config(c) -> str:
    lines = [f"== {c['setting']} {c['kind']} scale {c['scale']} P={c['ranks']} ({c['roots']} rounds, {c['steady']} steady, "
             f"{c['wall_seconds']:.0f} s; load {c['load_before']:.2f}->{c['load_after']:.2f}; probe's step latency "
             f"{c['alpha_min'] * 1e6:.3g}-{c['alpha_max'] * 1e6:.3g} us, late step {c['late_min'] * 1e3:.3g}-{c['late_max'] * 1e3:.3g} ms, "
             f"core share >= {c['cpu_share_min']:.2f}, speed {c.get('speed_min', 1):.2f}-{c.get('speed_max', 1):.2f})",
             f"{'layout':<20}{'measured ms':>12}{'predicted ms':>13}{'ratio':>7}{'auto ms':>9}{'ratio':>7}"
             f"{'(compute':>10}{'comm)':>8}{'profile ms':>11}{'ratio':>7}{'mean ratio':>11}"]
    for r in c["layouts"]:
        lines.append(f"{r['layout']:<20}{r['measured'] * 1e3:>12.2f}{r['predicted'] * 1e3:>13.2f}{r['ratio']:>7.2f}"
                     f"{r.get('expected', r['predicted']) * 1e3:>9.2f}{r.get('expected_ratio', r['ratio']):>7.2f}"
                     f"{r['predicted_compute'] * 1e3:>10.2f}{r['predicted_comm'] * 1e3:>8.2f}"
                     f"{r['profile_predicted'] * 1e3:>11.2f}{r['profile_ratio']:>7.2f}{r['mean_ratio']:>11.2f}")
    lines.append(f"auto picks {c['pick']}: {c['pick_over_fastest']:.2f}x the fastest ({c['fastest']}); by the means "
                 f"{c.get('pick_over_fastest_mean', float('nan')):.2f}x ({c.get('fastest_mean', '')})")
    return "\n".join(lines)


def within(r) -> bool:
    return 1 / WITHIN <= r["ratio"] <= WITHIN


def verdict(rows) -> str:
    runs = [r for c in rows for r in c["layouts"]]
    good = [c for c in rows if c["pick_over_fastest"] <= 1 + PICK_SLACK]
    return (f"layout runs within {WITHIN}x of the prediction: {sum(within(r) for r in runs)} of {len(runs)}; "
            f"configurations where auto's pick is within {PICK_SLACK:.0%} of the fastest: {len(good)} of {len(rows)}")


def markdown(rows) -> str:
    out = ["| setting | graph | scale | load | steady rounds | step latency us | late step ms | core share | speed "
           "| layout | measured ms | predicted ms | ratio | auto's estimate ms | ratio | from measured levels: ratio "
           "| means: ratio |",
           "|---|---|---:|---|---:|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for c in rows:
        for r in c["layouts"]:
            out.append(f"| {c['setting']} | {c['kind']} | {c['scale']} | {c['load_before']:.1f}-{c['load_after']:.1f} "
                       f"| {c['steady']} of {c['roots']} "
                       f"| {c['alpha_min'] * 1e6:.3g}-{c['alpha_max'] * 1e6:.3g} "
                       f"| {c['late_min'] * 1e3:.3g}-{c['late_max'] * 1e3:.3g} | {c['cpu_share_min']:.2f} "
                       f"| {c.get('speed_min', 1):.2f}-{c.get('speed_max', 1):.2f} | {r['layout']} "
                       f"| {r['measured'] * 1e3:.2f} | {r['predicted'] * 1e3:.2f} | {r['ratio']:.2f} "
                       f"| {r.get('expected', r['predicted']) * 1e3:.2f} | {r.get('expected_ratio', r['ratio']):.2f} "
                       f"| {r['profile_ratio']:.2f} | {r['mean_ratio']:.2f} |")
    out += ["", "| setting | graph | scale | fastest measured | auto's pick | pick / fastest | fastest by the means "
            "| pick / fastest, means |", "|---|---|---:|---|---|---:|---|---:|"]
    for c in rows:
        out.append(f"| {c['setting']} | {c['kind']} | {c['scale']} | {c['fastest']} | {c['pick']} "
                   f"| {c['pick_over_fastest']:.2f} | {c.get('fastest_mean', '')} "
                   f"| {c.get('pick_over_fastest_mean', float('nan')):.2f} |")
    return "\n".join(out + ["", verdict(rows)])


def plot(rows, path) -> None:
    """Measured against predicted search time (log-log), one point per layout and configuration (the
    search's own roots, medians), coloured by setting, o Kronecker and ^ uniform; the diagonal and the
    1.5x band. The file's suffix picks .png, .svg or .pdf."""
    from breadth.plot import check_plot_path, new_figure, save_figure

    fmt = check_plot_path(path)
    fig = new_figure((7, 6.5))
    ax = fig.subplots()
    runs = [(c, r) for c in rows for r in c["layouts"]]
    xs = [r["predicted"] * 1e3 for _, r in runs] + [r["measured"] * 1e3 for _, r in runs]
    lo, hi = min(xs) / 1.6, max(xs) * 1.6
    ax.fill_between([lo, hi], [lo / WITHIN, hi / WITHIN], [lo * WITHIN, hi * WITHIN], color="0.9",
                    label=f"within {WITHIN}x")
    ax.plot([lo, hi], [lo, hi], color="0.5", linewidth=1)
    settings = list(dict.fromkeys(c["setting"] for c in rows))
    colours = dict(zip(settings, ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")))
    for setting in settings:
        for kind, marker in (("kronecker", "o"), ("uniform", "^")):
            pts = [(r["predicted"] * 1e3, r["measured"] * 1e3) for c, r in runs
                   if c["setting"] == setting and c["kind"] == kind]
            if pts:
                ax.scatter(*zip(*pts), marker=marker, color=colours.get(setting, "black"), s=22,
                           label=f"{setting}, {kind}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("predicted ms per search (the searches' own roots)")
    ax.set_ylabel("measured ms per search (median)")
    ax.legend(fontsize="small")
    ax.set_title(verdict(rows).replace("; ", "\n"), fontsize="small")
    save_figure(fig, path, fmt)


def sweep(settings, args) -> list:
    rows = []

    def visit(s, cluster):
        for scale in args.scales:
            for kind in args.kinds:
                args.scale = scale
                before, t0 = load(), time.monotonic()
                got, _ = dist_network.run_job(s, cluster, kind, args)
                rows.append(summarise(s, kind, got, before, load(), time.monotonic() - t0))
                print(format_config(rows[-1]), flush=True)
    dist_network.on_clusters(settings, visit)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="+", default=[14, 16], help="graph scales (2^scale vertices, edge factor 16)")
    ap.add_argument("--roots", type=int, default=4, help="rounds of timed searches (one of each layout, after a warm-up)")
    ap.add_argument("--kinds", nargs="+", default=["kronecker", "uniform"], choices=["kronecker", "uniform"],
                    help="graph kinds")
    ap.add_argument("--settings", nargs="+", default=["shm:2", "cluster:2x1:none", "cluster:2x1:100mbit",
                                                      "cluster:2x1:10mbit"],
                    help="shm:P[:ROOTS] or cluster:HxR:RATE[:ROOTS] (bench/dist_network.py)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds one job may take")
    ap.add_argument("--json", default=None, help="write every configuration's rows to this file")
    ap.add_argument("--report", default=None, metavar="FILE", help="print the markdown table of a --json FILE and run nothing")
    ap.add_argument("--plot", default=None, metavar="FILE",
                    help="also draw measured against predicted (.png, .svg or .pdf), from this run or --report's")
    args = ap.parse_args()
    if args.plot:
        from breadth.errors import InputError
        from breadth.plot import check_plot_path

        try:
            check_plot_path(args.plot)
        except InputError as exc:
            print(f"plan_calibrate.py: {exc}", file=sys.stderr)
            sys.exit(2)
    if args.report:
        with open(args.report) as f:
            rows = json.load(f)
        print(markdown(rows))
        if args.plot:
            plot(rows, args.plot)
        return
    args.env = {"BENCH_REPROBE": "1", "BENCH_WARM": str(WARM)}
    rows = sweep([dist_network.parse_setting(s) for s in args.settings], args)
    print(verdict(rows))
    graph500_runs.write_rows(args.json, rows)
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
