"""The stall watchdog's cost on a healthy distributed run: the Graph500 benchmark with the watchdog on
(the default bound) and off (``--stall-timeout 0``), interleaved, several times each.

Prints per repetition the harmonic-mean TEPS and median search time of both, then the medians
and the ratio on/off (1.0: no cost), the machine's load average before and after, and the cost
of one heartbeat update (what ``Comm`` adds around each MPI operation) measured in-process.

    .venv/bin/python bench/dist_watchdog.py --scale 16 --ranks 3 --roots 16 --repeat 5
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def graph500(args, watchdog: bool) -> dict:
    from breadth.distributed.launch import find_mpiexec, mpi_flavour, mpiexec_command, mpiexec_env

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        argv = ["graph500", "--scale", str(args.scale), "--roots", str(args.roots), "--quiet", "--json", out,
                "--partition", args.partition, "--no-validate"]
        if not watchdog:
            argv += ["--stall-timeout", "0"]
        exe = find_mpiexec()
        flavour = mpi_flavour(exe)
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.update({k: v for k, v in mpiexec_env(flavour).items() if k.startswith("OMPI_ALLOW")})
        proc = subprocess.run(mpiexec_command(args.ranks, argv, exe, flavour), capture_output=True, text=True,
                              env=env, cwd=ROOT)
        if proc.returncode != 0:
            raise SystemExit(f"graph500 failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        with open(out) as f:
            return json.load(f)


def heartbeat_ns() -> float:
    """Nanoseconds of one begin/end pair of the heartbeat (the watchdog's cost per MPI operation)."""
    from breadth.distributed.faults.watchdog import Heartbeat

    hb = Heartbeat()
    n = 200_000
    best = min(timeit.repeat(lambda: (hb.begin("Alltoallv (exchange)"), hb.end()), number=n, repeat=5))
    return best / n * 1e9


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scale", type=int, default=16)
    p.add_argument("--roots", type=int, default=16)
    p.add_argument("--ranks", type=int, default=3)
    p.add_argument("--partition", default="1d")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f}  scale {args.scale}, {args.roots} roots, {args.ranks} ranks, "
          f"--partition {args.partition}, no validation")
    rows = {True: [], False: []}
    for i in range(args.repeat):
        for on in ((True, False) if i % 2 == 0 else (False, True)):     # alternate which goes first
            r = graph500(args, on)
            rows[on].append((r["bfs_TEPS"]["harmonic_mean"], r["bfs_time"]["median"]))
            print(f"rep {i} watchdog {'on ' if on else 'off'}: TEPS {rows[on][-1][0]:.4g}  "
                  f"median search {rows[on][-1][1] * 1e3:.2f} ms", flush=True)
    teps = {k: statistics.median(t for t, _ in v) for k, v in rows.items()}
    med = {k: statistics.median(s for _, s in v) for k, v in rows.items()}
    print(f"median TEPS: on {teps[True]:.4g}, off {teps[False]:.4g}, on/off {teps[True] / teps[False]:.3f}")
    print(f"median search time: on {med[True] * 1e3:.2f} ms, off {med[False] * 1e3:.2f} ms, "
          f"on/off {med[True] / med[False]:.3f}")
    print(f"heartbeat begin+end: {heartbeat_ns():.0f} ns per MPI operation")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
