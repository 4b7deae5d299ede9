"""One-shot check of breadth's GPU path on a real GPU, or with ``--sim`` in numba-cuda's simulator.

Run it through bench/gpu_check.sh (which makes the working tree importable); see
docs/guide/gpu-check.md. Phases, each in its own process with a time limit cut from one
global budget (``--budget`` seconds; a phase may use what earlier ones left, never the
shares of the phases after it):

* ``env``: versions (Python, numba, numba-cuda, numpy, scipy, mpi4py, CUDA driver and
  runtime, NVVM), the GPU and its memory, one small search as a smoke test. Without a
  GPU (or without numba-cuda, or when the kernels cannot compile) the check stops here,
  says why, and exits 3.
* ``tests``: the GPU tests (``tests/gpu``; under ``--sim`` a quick selection) with pytest,
  each test bounded by ``--test-timeout`` (bench/gpu_check_timeout.py) and faulthandler; on a
  GPU in ``--test-workers`` processes (pytest-xdist) sharing it, since compiling the kernels
  for the CPU, not the GPU, sets the pace.
* ``correctness``: searches on larger graphs (Kronecker, a long path, a grid, directed
  graphs), every algorithm against the CPU search and breadth.validate; multi_bfs too.
* ``bench``: GPU against CPU throughput, upload time, iBFS (bench/gpu_check_bench.py).
* ``graph500``: ``breadth graph500 --device cuda`` at scales 22 and 24, timed as the
  specification says, every tree validated on the device (bench/gpu_check_graph500.py).
* ``mpi``: 2 ranks on the one GPU through ``mpiexec``, or why it skipped (bench/gpu_check_mpi.py).

It writes ``report.md``, ``gpu_check.json`` and each phase's records and log into
``--out`` (default: ``$OUT`` when set, else a new temporary folder), rewritten after
every phase, so a run cut short still leaves a report. Exit status: 0 when every phase
ran and passed, 1 when a check failed or a phase ran out of time, 3 when there is no
GPU to check (or the kernels cannot run), 2 on bad arguments.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from gpu_check_report import render  # noqa: E402

PHASES = ("env", "tests", "correctness", "bench", "graph500", "mpi")
SHARES = {"env": 0.12, "tests": 0.38, "correctness": 0.11, "bench": 0.2, "graph500": 0.12, "mpi": 0.07}
BUDGET = {False: 420.0, True: 300.0}
ENV_MIN = 240.0             # seconds: a GPU machine / the simulator
TEST_TIMEOUT = {False: 150.0, True: 60.0}        # seconds per test
# under the simulator, a few quick GPU tests (the whole of tests/gpu takes many minutes there)
SIM_TESTS = ["tests/gpu/test_device.py::test_check_device_and_launch",
             "tests/gpu/test_device.py::test_memory_estimate_before_upload",
             "tests/gpu/test_device.py::test_one_small_copy_per_level"]
NO_GPU_EXIT = 3
TEST_WORKERS = 4                 # pytest-xdist processes for the GPU tests on a GPU (16 cores there)


def phase_limit(phase: str, selected: list[str], deadline: float, budget: float) -> float:
    """Seconds this phase may run: what is left, less the shares of the selected phases after it.

    ``env`` may take up to ``ENV_MIN`` seconds (at most half the budget) whatever its share: with
    numba's disk cache cold it compiles the CPU kernels the later phases then load.
    """
    later = selected[selected.index(phase) + 1:]
    reserve = sum(SHARES[p] for p in later) * budget
    left = deadline - time.time()
    if phase == "env":
        return max(left - reserve, min(ENV_MIN, 0.5 * budget, left))
    return left - reserve


def run_bounded(cmd, env, limit: float, log_path: str) -> tuple[int | None, float]:
    """Run ``cmd`` in its own process group with output to ``log_path``; kill the group after ``limit`` s.

    Returns (exit status, or None when it was killed at the limit; seconds).
    """
    t0 = time.perf_counter()
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                                start_new_session=True)
        try:
            rc = proc.wait(timeout=max(1.0, limit))
        except subprocess.TimeoutExpired:
            rc = None
            for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 10)):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
        # the group's leftovers (an mpiexec's ranks) go too: they belong to this run alone
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return rc, time.perf_counter() - t0


def read_records(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass          # a line cut short by a kill
    return out


def tail(path: str, chars: int = 3000) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()[-chars:]
    except OSError:
        return ""


def junit_results(path: str) -> list[dict]:
    """Every test's outcome from pytest's JUnit XML (empty when pytest did not finish writing it)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return []
    out = []
    for case in root.iter("testcase"):
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                message = (el.get("message") or el.text or "").strip().splitlines()[0][:300] if (
                    el.get("message") or el.text) else ""
                break
        name = case.get("classname", "").replace(".", "/") + ".py::" + case.get("name", "")
        out.append({"test": name, "outcome": outcome, "seconds": round(float(case.get("time", 0)), 2),
                    "message": message})
    return out


OUTCOME = re.compile(r"^(\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b", re.M)
XDIST_OUTCOME = re.compile(r"^\[gw\d+\] \[\s*\d+%\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+::\S+)", re.M)


def log_results(log_text: str) -> list[dict]:
    """Outcomes from pytest -v's lines, for a run killed before it wrote its JUnit XML."""
    names = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error", "SKIPPED": "skipped", "XFAIL": "skipped",
             "XPASS": "passed"}
    found = [(m.start(), m.group(1), m.group(2)) for m in OUTCOME.finditer(log_text)]
    found += [(m.start(), m.group(2), m.group(1)) for m in XDIST_OUTCOME.finditer(log_text)]
    return [{"test": test, "outcome": names[outcome], "seconds": 0.0, "message": "(from the log)"}
            for _, test, outcome in sorted(found)]


def last_started_test(log_text: str) -> str | None:
    """The test pytest -v was running when the log ended (its line has no outcome yet; None under
    pytest-xdist, whose workers print a test only when it ends)."""
    for line in reversed(log_text.splitlines()):
        if "::" in line:
            return None if any(w in line for w in ("PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS")) \
                else line.strip()
    return None


def run_tests(args, env, limit: float, out: str) -> dict:
    xml, log = os.path.join(out, "tests.xml"), os.path.join(out, "tests.log")
    paths = args.tests or (SIM_TESTS if args.sim else ["tests/gpu"])
    env = dict(env, GPU_CHECK_TEST_TIMEOUT=str(args.test_timeout))
    cmd = [sys.executable, "-m", "pytest", *paths, "-v", "-p", "no:cacheprovider", "-p", "gpu_check_timeout",
           f"--junitxml={xml}", "-o", f"faulthandler_timeout={max(5, int(args.test_timeout) - 5)}",
           "-o", "junit_family=xunit1"]
    if args.test_workers > 1:
        cmd += ["-n", str(args.test_workers)]
    rc, secs = run_bounded(cmd, env, limit, log)
    results = junit_results(xml)
    if rc is None and not results:
        results = log_results(tail(log, 10**7))
    counts = {}
    for r in results:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    res = {"rc": rc, "seconds": round(secs, 1), "limit": round(limit, 1), "command": " ".join(cmd[1:]),
           "workers": max(1, args.test_workers), "counts": counts, "tests": results}
    if rc is None:
        res["killed_in"] = last_started_test(tail(log, 20000))
    # pytest exits 0 (all passed) or 5 (nothing collected, a failure here too)
    res["status"] = "timed out" if rc is None else ("passed" if rc == 0 and results else "failed")
    if rc != 0:
        res["log_tail"] = tail(log, 4000)
    return res


def run_phase(phase: str, args, env, limit: float, out: str) -> dict:
    if phase == "tests":
        return run_tests(args, env, limit, out)
    records_path = os.path.join(out, f"{phase}.jsonl")
    if os.path.exists(records_path):
        os.remove(records_path)
    margin = max(10.0, 0.2 * limit)          # stop starting new cases this long before the hard limit
    now = time.time()
    cmd = [sys.executable, os.path.join(BENCH, "gpu_check_work.py"), phase, "--out", out, "--scratch", args.scratch,
           "--deadline", f"{now + limit - margin:.1f}", "--hard", f"{now + limit:.1f}"]
    if args.sim:
        cmd.append("--sim")
    graphs = {"correctness": args.correctness_graphs, "bench": args.bench_graphs}.get(phase)
    if graphs:
        cmd += ["--graphs", *graphs]
    log = os.path.join(out, f"{phase}.log")
    rc, secs = run_bounded(cmd, env, limit, log)
    records = read_records(records_path)
    failed = [r for r in records if r.get("ok") is False or r.get("kind") == "error"]
    res = {"rc": rc, "seconds": round(secs, 1), "limit": round(limit, 1), "records": records}
    if rc is None:
        starts = [r["start"] for r in records if "start" in r]
        res["status"], res["killed_in"] = "timed out", (starts[-1] if starts else None)
    elif rc == NO_GPU_EXIT:
        res["status"] = "no gpu"
    elif rc == 0 and not failed and records and all(r.get("kind") == "skipped" for r in records):
        res["status"] = "skipped"           # the phase could not run here (no MPI) and said why
    else:
        res["status"] = "passed" if rc == 0 and not failed else "failed"
    if rc != 0:
        res["log_tail"] = tail(log, 4000)
    return res


def write_report(state: dict, out: str) -> None:
    for name, text in (("gpu_check.json", json.dumps(state, indent=1, default=str)), ("report.md", render(state))):
        tmp = os.path.join(out, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(out, name))


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="bench/gpu_check.sh", description=__doc__.split("\n\n")[0],
                                 epilog="Phases, budget and report: docs/guide/gpu-check.md")
    ap.add_argument("--sim", action="store_true",
                    help="run in numba-cuda's simulator on tiny graphs (about a minute; what CI runs)")
    ap.add_argument("--out", default=None,
                    help="folder for report.md, gpu_check.json, records and logs (default: $OUT, else a temp folder)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for the whole check (default 420 on a GPU, 300 with --sim); phases stop early")
    ap.add_argument("--phases", nargs="+", choices=PHASES, default=list(PHASES),
                    help="phases to run, in this order (env always runs first)")
    ap.add_argument("--test-timeout", type=float, default=None,
                    help="seconds per GPU test (default 150 on a GPU, 60 with --sim)")
    ap.add_argument("--test-workers", type=int, default=None, metavar="N",
                    help=f"processes running the GPU tests (pytest-xdist; default {TEST_WORKERS} on a GPU when "
                         "pytest-xdist is installed, else 1; 1 with --sim)")
    ap.add_argument("--tests", nargs="+", default=None, help="pytest paths or node ids instead of the default set")
    ap.add_argument("--correctness-graphs", nargs="+", default=None, metavar="SPEC",
                    help="graphs of the correctness phase, kind:size[:directed] (kronecker, uniform, path, grid)")
    ap.add_argument("--bench-graphs", nargs="+", default=None, metavar="SPEC",
                    help="graphs of the benchmark, kronecker:SCALE or uniform:SCALE, in the order to try them")
    args = ap.parse_args(argv)
    args.budget = args.budget or BUDGET[args.sim]
    args.test_timeout = args.test_timeout or TEST_TIMEOUT[args.sim]
    xdist = importlib.util.find_spec("xdist") is not None
    if args.test_workers is None:
        args.test_workers = TEST_WORKERS if xdist and not args.sim else 1
    if args.test_workers < 1:
        ap.error("--test-workers must be at least 1")
    if args.test_workers > 1 and not xdist:
        ap.error("--test-workers above 1 needs pytest-xdist, which is not installed")
    if args.budget <= 0 or args.test_timeout <= 0:
        ap.error("--budget and --test-timeout must be positive")
    args.phases = ["env"] + [p for p in PHASES[1:] if p in args.phases]
    for spec in args.correctness_graphs or []:
        if not re.fullmatch(r"(kronecker|uniform|path|grid):\d+(:directed)?", spec):
            ap.error(f"--correctness-graphs: {spec!r} is not kind:size[:directed] (kronecker, uniform, path, grid)")
    for spec in args.bench_graphs or []:
        if not re.fullmatch(r"(kronecker|uniform):\d+", spec):
            ap.error(f"--bench-graphs: {spec!r} is not kronecker:SCALE or uniform:SCALE")
    return args


def run_phases(args, env, state, deadline, start, out) -> None:
    """Each phase of ``args.phases`` in turn, within the budget; the report rewritten after each."""
    for phase in args.phases:
        limit = phase_limit(phase, args.phases, deadline, args.budget)
        if limit < 5:
            state["phases"][phase] = {"status": "skipped", "reason": f"the budget of {args.budget:g} s ran out"}
        else:
            print(f"gpu_check: {phase} (up to {limit:.0f} s) ...", flush=True)
            state["phases"][phase] = run_phase(phase, args, env, limit, out)
        res = state["phases"][phase]
        print(f"gpu_check: {phase}: {res['status']}" + (f" in {res['seconds']} s" if "seconds" in res else ""),
              flush=True)
        state["elapsed_s"] = round(time.time() - start, 1)
        write_report(state, out)
        if phase == "env" and res["status"] != "passed":
            break


def main(argv=None) -> int:
    args = parse_args(argv)
    start = time.time()
    deadline = start + args.budget
    out = args.out or os.environ.get("OUT") or tempfile.mkdtemp(prefix="gpu_check_")
    os.makedirs(out, exist_ok=True)
    out = os.path.abspath(out)
    args.scratch = tempfile.mkdtemp(prefix="gpu_check_scratch_")        # graph files: not sent back with $OUT
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1" if args.sim else "0",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join([ROOT, BENCH] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    state = {"mode": "simulator" if args.sim else "gpu", "budget_s": args.budget, "argv": sys.argv[1:],
             "started": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(start)), "out": out,
             "test_timeout_s": args.test_timeout, "phases": {}}
    print(f"gpu_check: mode {state['mode']}, budget {args.budget:g} s, out {out}", flush=True)
    try:
        run_phases(args, env, state, deadline, start, out)
    finally:
        shutil.rmtree(args.scratch, ignore_errors=True)
    statuses = [p["status"] for p in state["phases"].values()]
    env_status = state["phases"]["env"]["status"]
    code = NO_GPU_EXIT if env_status == "no gpu" else (0 if all(s in ("passed", "skipped") for s in statuses) else 1)
    state["exit_status"] = code
    state["elapsed_s"] = round(time.time() - start, 1)
    write_report(state, out)
    print(tail(os.path.join(out, "report.md"), 9000))
    print(f"gpu_check: exit {code}; report: {os.path.join(out, 'report.md')}", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
