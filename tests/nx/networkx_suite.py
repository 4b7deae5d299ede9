"""Run networkx's own tests of the backend's functions through the backend (an independent suite).

networkx's test modules (installed with networkx) for every function breadth implements,
plus the doctests of the modules defining them, run with ``NETWORKX_TEST_BACKEND=breadth``:
networkx's conftest then sends every dispatchable call to breadth, converting graphs on
the fly and checking the results (no numpy scalars; returned graphs equal networkx's).
Without ``NETWORKX_FALLBACK_TO_NX`` a call breadth does not implement (or declines)
marks its test xfailed; with it, such calls run in networkx and the test goes on, so
every test of these modules must pass. ``BREADTH_NX_CALLS`` makes the backend write
its per-function call counts at exit: proof that breadth's code ran.

    .venv/bin/python tests/nx/networkx_suite.py              # both runs, counts, exit 1 on a failure
    .venv/bin/python tests/nx/networkx_suite.py --fallback   # one run
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

TEST_MODULES = (
    "algorithms/traversal/tests/test_bfs.py",
    "algorithms/shortest_paths/tests/test_unweighted.py",
    "algorithms/shortest_paths/tests/test_generic.py",
    "algorithms/tests/test_dag.py",
    "algorithms/centrality/tests/test_closeness_centrality.py",
    "algorithms/centrality/tests/test_harmonic_centrality.py",
    "algorithms/tests/test_distance_measures.py",
    "algorithms/components/tests/test_connected.py",
    "algorithms/components/tests/test_weakly_connected.py",
)
DOCTEST_MODULES = (
    "algorithms/traversal/breadth_first_search.py",
    "algorithms/shortest_paths/unweighted.py",
    "algorithms/shortest_paths/generic.py",
    "algorithms/dag.py",
    "algorithms/centrality/closeness.py",
    "algorithms/centrality/harmonic.py",
    "algorithms/distance_measures.py",
    "algorithms/components/connected.py",
    "algorithms/components/weakly_connected.py",
)
OUTCOMES = ("passed", "failed", "errors", "skipped", "xfailed", "xpassed")


def networkx_dir() -> str:
    import networkx

    return os.path.dirname(networkx.__file__)


def available() -> bool:
    """networkx's tests and conftest ship with it (some distributions strip them)."""
    root = networkx_dir()
    return all(os.path.exists(os.path.join(root, p)) for p in TEST_MODULES + ("conftest.py",))


def run(fallback: bool, timeout: float = 1800) -> dict:
    """One pytest run in a subprocess: {"counts": {outcome: n}, "calls": {...}, "returncode", "tail"}."""
    root = networkx_dir()
    with tempfile.TemporaryDirectory() as tmp:
        ini = os.path.join(tmp, "pytest.ini")
        with open(ini, "w") as f:
            f.write("[pytest]\n")                          # none of breadth's pytest options
        calls = os.path.join(tmp, "calls.json")
        env = {k: v for k, v in os.environ.items() if not k.startswith("NETWORKX_")}
        env.update(NETWORKX_TEST_BACKEND="breadth", BREADTH_NX_CALLS=calls)
        if fallback:
            env["NETWORKX_FALLBACK_TO_NX"] = "True"
        paths = [os.path.join(root, p) for p in TEST_MODULES + DOCTEST_MODULES]
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", ini, "--rootdir", root,
               "--doctest-modules", "-rfE", *paths]
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout)
        out = proc.stdout + proc.stderr
        summary = [line for line in out.splitlines() if re.search(r"\d+ (passed|failed|xfailed)", line)]
        counts = dict.fromkeys(OUTCOMES, 0)
        for n, what in re.findall(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)", summary[-1] if summary else ""):
            counts["errors" if what.startswith("error") else what] = int(n)
        called = {}
        if os.path.exists(calls):
            with open(calls) as f:
                called = json.load(f)
    return {"counts": counts, "calls": called.get("calls", {}), "conversions": called.get("conversions", {}),
            "returncode": proc.returncode, "tail": out[-6000:]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fallback", action="store_true", help="only the run with NETWORKX_FALLBACK_TO_NX=True")
    p.add_argument("--no-fallback", action="store_true", help="only the run without it")
    args = p.parse_args(argv)
    modes = [True] if args.fallback else [False] if args.no_fallback else [False, True]
    bad = False
    for fallback in modes:
        res = run(fallback)
        c = res["counts"]
        label = "with NETWORKX_FALLBACK_TO_NX" if fallback else "without fallback"
        print(f"{label}: " + ", ".join(f"{c[k]} {k}" for k in OUTCOMES)
              + f"; breadth calls {sum(res['calls'].values())} over {len(res['calls'])} functions")
        if res["returncode"] != 0 or c["failed"] or c["errors"] or not res["calls"]:
            bad = True
            print(res["tail"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
