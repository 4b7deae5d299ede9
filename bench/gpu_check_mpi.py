"""The MPI phase of bench/gpu_check.py: 2 ranks on the one GPU, through breadth's command line.

First it asks whether MPI works here at all: mpi4py importable, an ``mpiexec``
(``breadth.distributed.launch``'s choice), and a 2-rank hello that sees 2 ranks; if not,
it records why and skips. Then ``mpiexec -n 2 python -m breadth bfs GRAPH --device cuda
--validate`` (the 1D ButterFly search with each rank's local steps on the GPU) from the
vertex of most edges, its depths compared with the single-node CPU search, and a small
Graph500 run with ``--device cuda`` on 2 ranks (validated, its harmonic-mean TEPS).
Every subprocess has a time limit within the phase's deadline.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

from gpu_check_graphs import error_text, pick_roots

SIZES = {True: (4, 0, 0), False: (20, 20, 4)}      # bfs graph scale, graph500 scale and roots (none: simulator)


def _run(cmd, env, limit: float) -> tuple[int | None, str, str, float]:
    """(returncode or None on timeout, stdout, stderr, seconds) of a subprocess in its own session."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=max(1.0, limit))
        return proc.returncode, out, err, time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        import signal

        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            out, err = "", ""
        return None, out or "", err or "", time.perf_counter() - t0


def phase_mpi(rec, sim: bool, scratch: str) -> int:
    import breadth
    from breadth.distributed.launch import find_mpiexec, mpi_flavour, mpiexec_command, mpiexec_env

    try:
        import mpi4py  # noqa: F401
        exe = find_mpiexec()
        flavour = mpi_flavour(exe)
    except Exception as exc:  # noqa: BLE001 - no mpi4py or no launcher: the phase says why it skipped
        rec.emit(kind="skipped", reason=f"MPI is not usable here: {error_text(exc)}")
        return 0
    env = mpiexec_env(flavour)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", NUMBA_NUM_THREADS="1")
    hello = mpiexec_command(2, [], exe, flavour)[:-3] + [
        sys.executable, "-c", "from mpi4py import MPI; c = MPI.COMM_WORLD; print(c.Get_rank(), c.Get_size(), "
        "MPI.Get_library_version().splitlines()[0], flush=True)"]
    rc, out, err, secs = _run(hello, env, min(60.0, rec.hard_left()))
    lines = out.strip().splitlines()
    if rc != 0 or len(lines) != 2 or any(line.split()[1] != "2" for line in lines if line.split()):
        why = "timed out" if rc is None else f"exit {rc}"
        rec.emit(kind="skipped", mpiexec=exe, flavour=flavour,
                 reason=f"a 2-rank mpi4py hello failed ({why}): {(err or out).strip()[-600:]}")
        return 0
    rec.emit(kind="mpi", mpiexec=exe, flavour=flavour, library=" ".join(lines[0].split()[2:]).replace("\x00", ""), hello_s=round(secs, 2))
    bad = 0
    scale, g500_scale, g500_roots = SIZES[sim]
    g = breadth.kronecker(scale, 16, seed=4)
    path = os.path.join(scratch, f"gpu_check_k{scale}.npz")
    breadth.save(g, path)
    root = pick_roots(g, 1, 0)[0]
    depth_out = os.path.join(scratch, "gpu_check_mpi_depth.npy")
    rec.emit(start=f"mpi bfs kronecker:{scale}")
    cmd = mpiexec_command(2, ["bfs", path, "--root", str(root), "--device", "cuda", "--validate", "--out", depth_out,
                              "--json", "-q"], exe, flavour)
    rc, out, err, secs = _run(cmd, env, rec.hard_left())
    record = {"kind": "mpi_bfs", "graph": f"kronecker:{scale}", "root": root, "rc": rc, "seconds": round(secs, 2)}
    try:
        data = json.loads(out)
        record.update(engine=data.get("engine"), validated=data.get("validation", {}).get("passed"),
                      levels=len(data.get("levels", [])), search_s=data.get("seconds"))
        record["depth_equal"] = bool(np.array_equal(np.load(depth_out), breadth.bfs(g, root).depth))
        record["ok"] = rc == 0 and bool(record["validated"]) and record["depth_equal"]
    except Exception as exc:  # noqa: BLE001 - no JSON: the run failed; its stderr says why
        why = f"killed after {secs:.0f} s (the phase's limit)" if rc is None else error_text(exc)
        record.update(ok=False, error=why, stderr=err.strip()[-2000:])
    bad += not record["ok"]
    rec.emit(**record)
    if sim or rec.left() <= 0:
        why = "too slow in the simulator" if sim else "the phase's time budget ran out"
        rec.emit(kind="skipped", graph="2-rank graph500", reason=why)
        return 1 if bad else 0
    rec.emit(start=f"mpi graph500 scale {g500_scale}")
    run_json = os.path.join(scratch, "gpu_check_g500.json")
    cmd = mpiexec_command(2, ["graph500", "--scale", str(g500_scale), "--roots", str(g500_roots), "--device", "cuda",
                              "-q", "--json", run_json], exe, flavour)
    rc, out, err, secs = _run(cmd, env, rec.hard_left())
    record = {"kind": "mpi_graph500", "scale": g500_scale, "roots": g500_roots, "rc": rc, "seconds": round(secs, 2)}
    try:
        with open(run_json, encoding="utf-8") as f:
            data = json.load(f)
        record.update(validated=data.get("validated"), ranks=data.get("num_mpi_processes"),
                      harmonic_mean_teps=data.get("bfs_TEPS", {}).get("harmonic_mean"),
                      engine=data.get("engine"))
        record["ok"] = rc == 0 and bool(record["validated"]) and record["ranks"] == 2
    except Exception as exc:  # noqa: BLE001
        why = f"killed after {secs:.0f} s (the phase's limit)" if rc is None else error_text(exc)
        record.update(ok=False, error=why, stderr=err.strip()[-2000:])
    bad += not record["ok"]
    rec.emit(**record)
    return 1 if bad else 0
