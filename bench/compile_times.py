"""Which numba functions a first call compiles, and how long each takes.

Each scenario runs in a fresh process with an empty numba cache (a temporary
NUMBA_CACHE_DIR) and records numba's 'numba:compile' events (``breadth.jit.compile_events``):
every compiled function and signature, its seconds including the functions it compiled
for itself (nested ones are indented), and the scenario's wall time. A kernel that
``jit.prepare`` compiled in a second process (``aside``) is loaded, not compiled, in the scenario's
process, so it is not listed; the wall time includes the wait for it.

    python bench/compile_times.py                 # every scenario
    python bench/compile_times.py bfs graph500    # some
    python bench/compile_times.py --json          # rows as JSON
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

SCENARIOS = {
    "bfs": "g = breadth.kronecker(10, seed=1); r = breadth.bfs(g, 0)",
    "bfs_td": "g = breadth.kronecker(10, seed=1); r = breadth.bfs(g, 0, algorithm='td')",
    # the command line's first search: a graph memory-mapped from a .npz file (read-only arrays)
    "bfs_file": ("import os, tempfile\n"
                 "path = os.path.join(tempfile.mkdtemp(), 'k.npz'); breadth.save(breadth.kronecker(10, seed=1), path)\n"
                 "r = breadth.bfs(breadth.read(path), 0)"),
    "graph500": ("from breadth.graph500 import Graph500Config, LocalEngine, run_benchmark\n"
                 "run_benchmark(Graph500Config(scale=10, nroots=4), LocalEngine(), progress=False)"),
    "multi_bfs": "g = breadth.kronecker(10, seed=1); breadth.multi_bfs(g, list(range(64)))",
    "networkx": ("import networkx as nx\n"
                 "G = nx.path_graph(100)\n"
                 "nx.single_source_shortest_path_length(G, 0, backend='breadth')"),
    "warmup": "breadth.warmup(progress=False)",
}

CHILD = """
import json, sys, time
t0 = time.perf_counter()
import breadth
from breadth.jit import compile_events
t_import = time.perf_counter() - t0
with compile_events() as rows:
    t1 = time.perf_counter()
    exec(sys.argv[1])
    wall = time.perf_counter() - t1
print(json.dumps({"import": t_import, "wall": wall, "rows": rows}))
"""


def run(name: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="breadth-compile-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", CHILD, SCENARIOS[name]], env=env,
                             capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{name} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*", choices=[[], *SCENARIOS], default=[], metavar="SCENARIO",
                    help=f"which to run (default all): {', '.join(SCENARIOS)}")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)
    names = args.scenarios or list(SCENARIOS)
    results = {name: run(name) for name in names}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, res in results.items():
        top = sum(r[2] for r in res["rows"] if r[3] == 0)
        print(f"== {name}: wall {res['wall']:.2f} s, compiling {top:.2f} s, import {res['import']:.2f} s")
        for fn, sig, sec, depth in res["rows"]:
            if sec >= 0.05:
                print(f"  {'  ' * depth}{sec:7.2f} s  {fn}{sig if len(sig) < 90 else sig[:87] + '...'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
