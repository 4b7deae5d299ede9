"""The first call of a fresh process: with an empty numba cache and with a warm one.

Each scenario runs in a fresh Python process, first with an empty cache (a new temporary
NUMBA_CACHE_DIR: everything it needs is compiled), then again in a new process on the
cache the first left (everything is loaded). Measured in the child: the wall time of
``import breadth`` and of the first call, and what the call reported as its own time and
as compile time. graph500 is the command line's ``breadth graph500 --scale 10``, timed
from outside (interpreter start and import included).

    python bench/first_call.py                       # every scenario, table
    python bench/first_call.py bfs multi_bfs --json  # some, as JSON

The machine may be shared: the table records ``uptime``'s load before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = """
import json, sys, time
t0 = time.perf_counter()
import breadth
t_import = time.perf_counter() - t0
path = sys.argv[2]
what = sys.argv[1]
reported = compiled = None
if what == "bfs":
    g = breadth.load(path)
    t0 = time.perf_counter()
    r = breadth.bfs(g, 1)
    wall = time.perf_counter() - t0
    reported, compiled = r.seconds, r.compile_seconds
elif what == "multi_bfs":
    from breadth.multisource import msbfs
    g = breadth.load(path)
    t0 = time.perf_counter()
    r = msbfs(g, list(range(64)), keep_depths=True)      # what breadth.multi_bfs runs, with its result
    wall = time.perf_counter() - t0
    reported, compiled = r.seconds, r.compile_seconds
elif what == "networkx":
    import networkx as nx
    G = breadth.load(path).to_networkx()
    t0 = time.perf_counter()
    nx.single_source_shortest_path_length(G, 1, backend="breadth")
    wall = time.perf_counter() - t0
print(json.dumps({"import": t_import, "first_call": wall, "reported": reported, "compile": compiled}))
"""

SCENARIOS = ("bfs", "graph500", "multi_bfs", "networkx")


def _load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_one(what: str, cache: str, graph: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    if what == "graph500":
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "breadth", "graph500", "--scale", "10", "--quiet", "--json",
                              os.path.join(cache, "g500.json")], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if out.returncode:
            sys.exit(f"graph500 failed:\n{out.stderr}")
        with open(os.path.join(cache, "g500.json")) as f:
            d = json.load(f)
        return {"import": None, "first_call": wall, "reported": d["bfs_time"]["median"],
                "compile": d["compile_seconds"]}
    out = subprocess.run([sys.executable, "-c", CHILD, what, graph], env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{what} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(names, graph: str) -> dict:
    rows = {}
    for what in names:
        with tempfile.TemporaryDirectory(prefix="breadth-first-call-") as cache:
            rows[what] = {"empty": run_one(what, cache, graph), "warm": run_one(what, cache, graph)}
    return rows


def _f(x) -> str:
    return "-" if x is None else f"{x:.3g}"


def table(rows: dict) -> str:
    lines = ["| first call | cache | import breadth (s) | first call (s) | reported time (s) | compile (s) |",
             "|---|---|---:|---:|---:|---:|"]
    for what, by in rows.items():
        for state in ("empty", "warm"):
            r = by[state]
            lines.append(f"| {what} | {state} | {_f(r['import'])} | {_f(r['first_call'])} | {_f(r['reported'])} "
                         f"| {_f(r['compile'])} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*", default=[], metavar="SCENARIO",
                    help=f"which to run (default all): {', '.join(SCENARIOS)}")
    ap.add_argument("--scale", type=int, default=10, help="the Kronecker graph searched (bfs, multi_bfs, networkx)")
    ap.add_argument("--json", action="store_true", help="print the measurements as JSON instead of a table")
    args = ap.parse_args(argv)
    names = args.scenarios or list(SCENARIOS)
    bad = [n for n in names if n not in SCENARIOS]
    if bad:
        ap.error(f"unknown scenario {bad[0]!r}: choose from {', '.join(SCENARIOS)}")
    with tempfile.TemporaryDirectory(prefix="breadth-first-call-graph-") as tmp:
        graph = os.path.join(tmp, f"k{args.scale}.npz")
        subprocess.run([sys.executable, "-m", "breadth", "generate", "kronecker", "--scale", str(args.scale),
                        "-o", graph, "--quiet"], check=True, capture_output=True)
        before = _load()
        rows = measure(names, graph)
        after = _load()
    if args.json:
        print(json.dumps({"load_before": before, "load_after": after, "rows": rows}, indent=2))
    else:
        print(table(rows))
        print(f"\nload average before {before}, after {after}; {os.cpu_count()} CPUs; "
              f"{time.strftime('%Y-%m-%d %H:%M')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
