"""Memory per edge by scale: peak resident memory per input tuple and per stored arc of a Graph500
Kronecker graph, for each phase of a run, and the largest scale that fits a memory budget.

Each scale runs in its own subprocess (a fresh peak), in three phases:

1. *build*: generation + construction (the default path: tuples streamed into the CSR build,
   ``breadth.kronecker``; ``--tuple-list``: the whole tuple list, then the build);
2. *search*: one BFS from the highest-degree vertex (``breadth.bfs``);
3. *validate*: the Graph500 rules on the built graph and, over regenerated tuples, the rules that
   read the input tuples (``graph500.tuples.validate_tuples``).

The peak of each phase is the process's ``VmHWM`` (``/proc/self/status``), reset to the current
resident size between phases by writing ``5`` to ``/proc/self/clear_refs`` (Linux); where the reset
is refused, each phase's figure is the peak so far (reported as ``cumulative``). Per tuple: peak
bytes over ``edgefactor * 2^scale``; per arc: over the stored arcs (both directions, after
deduplication). Both count the whole process, interpreter included (about 0.2 GiB, which
dominates below scale 20); ``base`` is that resident size before the build. Numba compilation is done first on a tiny graph, so it is in no phase's time.

The largest scale that fits ``--budget`` GiB extrapolates the largest measured scale: its
costliest phase's bytes above ``base`` per tuple, times the tuples, plus ``base`` (the graph
doubles with every scale; per-vertex arrays are a small share at edgefactor 16).

    .venv/bin/python bench/scale.py --scales 20-23 --budget 24
    .venv/bin/python bench/scale.py --scales 20,22 --json scale.json
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

GiB = 1 << 30
PHASES = ("build", "search", "validate")


def vm_hwm() -> int:
    """Peak resident bytes of this process (VmHWM)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def vm_rss() -> int:
    """Current resident bytes of this process (VmRSS)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def reset_hwm() -> bool:
    """Reset the peak to the current resident size; False where the kernel refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def child(scale: int, edgefactor: int, tuple_list: bool) -> dict:
    """One scale's three phases in this process; returns the measurements."""
    import numpy as np

    import breadth
    from breadth.graph.generators import GeneratedTuples
    from breadth.graph500.tuples import validate_tuples
    from breadth.graph500.validate import validate

    tiny = breadth.kronecker(4, 4)                       # compile / load every kernel before timing
    breadth.kronecker(4, 4, stream=False)
    r = breadth.bfs(tiny, 0)
    validate(tiny, 0, r.parent, r.depth)
    validate_tuples(GeneratedTuples("kronecker", 4, 4, 1), r.depth)
    out = {"scale": scale, "edgefactor": edgefactor, "tuples": edgefactor << scale,
           "path": "tuple list" if tuple_list else "streamed"}
    cumulative = not reset_hwm()
    out["base"] = vm_rss()                               # the interpreter and its libraries
    t0 = time.perf_counter()
    g = breadth.kronecker(scale, edgefactor, stream=not tuple_list)
    out["build"] = {"peak": vm_hwm(), "seconds": time.perf_counter() - t0}
    out["arcs"] = int(g.indptr[-1])
    root = int(np.argmax(np.diff(g.indptr)))
    cumulative |= not reset_hwm()
    t0 = time.perf_counter()
    res = breadth.bfs(g, root)
    out["search"] = {"peak": vm_hwm(), "seconds": time.perf_counter() - t0}
    cumulative |= not reset_hwm()
    t0 = time.perf_counter()
    validate(g, root, res.parent, res.depth)
    validate_tuples(GeneratedTuples("kronecker", scale, edgefactor, 1), res.depth)
    out["validate"] = {"peak": vm_hwm(), "seconds": time.perf_counter() - t0}
    out["cumulative"] = cumulative
    for p in PHASES:
        out[p]["per_tuple"] = out[p]["peak"] / out["tuples"]
        out[p]["per_arc"] = out[p]["peak"] / max(1, out["arcs"])
    return out


def parse_scales(text: str) -> list[int]:
    scales = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        scales.extend(range(int(lo), int(hi or lo) + 1))
    return scales


def largest_fitting(rows: list[dict], budget_bytes: float, edgefactor: int) -> int | None:
    """The largest scale whose extrapolated peak fits the budget: the interpreter's resident size
    plus, per tuple, what the largest measured scale's costliest phase added to it. None when
    nothing fits."""
    if not rows:
        return None
    last = max(rows, key=lambda r: r["scale"])
    rate = max(last[p]["peak"] - last["base"] for p in PHASES) / last["tuples"]
    fit = [s for s in range(1, 43) if last["base"] + rate * (edgefactor << s) <= budget_bytes]
    measured = [r["scale"] for r in rows if max(r[p]["peak"] for p in PHASES) <= budget_bytes]
    return max(fit + measured) if fit or measured else None


def table(rows: list[dict]) -> str:
    head = f"{'scale':>5} {'path':<10} {'tuples':>13} {'arcs':>13}"
    for p in PHASES:
        head += f" | {p + ' GiB':>12} {'B/tuple':>7} {'B/arc':>6} {'s':>6}"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = f"{r['scale']:>5} {r['path']:<10} {r['tuples']:>13,} {r['arcs']:>13,}"
        for p in PHASES:
            x = r[p]
            line += f" | {x['peak'] / GiB:>12.2f} {x['per_tuple']:>7.2f} {x['per_arc']:>6.2f} {x['seconds']:>6.1f}"
        lines.append(line)
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--scales", default="20-23", help="scales to measure: a list and ranges, e.g. 20-23 or 20,22,24")
    ap.add_argument("--edgefactor", type=int, default=16, help="edge tuples per vertex")
    ap.add_argument("--budget", type=float, default=None, metavar="GiB",
                    help="memory budget: also print the largest scale expected to fit in it")
    ap.add_argument("--tuple-list", action="store_true",
                    help="measure the tuple-list path (whole tuple list, then the build) instead of streaming")
    ap.add_argument("--json", metavar="FILE", default=None, help="also write the rows as JSON ('-': stdout)")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.edgefactor, args.tuple_list)))
        return 0
    rows = []
    for scale in parse_scales(args.scales):
        cmd = [sys.executable, os.path.abspath(__file__), "--child", str(scale), "--edgefactor", str(args.edgefactor)]
        if args.tuple_list:
            cmd.append("--tuple-list")
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"scale {scale}: failed ({tail})", file=sys.stderr)
            break
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"scale {scale}: done", file=sys.stderr, flush=True)
    print(table(rows))
    report = {"rows": rows, "load": os.getloadavg()[0]}
    if args.budget is not None:
        fit = largest_fitting(rows, args.budget * GiB, args.edgefactor)
        report["budget_gib"], report["largest_scale"] = args.budget, fit
        print(f"largest scale expected to fit {args.budget:g} GiB: {fit}")
    if rows and any(r["cumulative"] for r in rows):
        print("note: the peak could not be reset between phases; each phase's figure is the peak so far")
    if args.json:
        text = json.dumps(report, indent=1)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text + "\n")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
