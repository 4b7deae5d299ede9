"""Shared by the distributed benchmarks: one ``breadth graph500`` run (on MPI ranks or in one
process) read back from its ``--json`` report, and the rows of a sweep written as JSON."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def graph500(args, extra=(), ranks=None) -> dict:
    """The ``--json`` report of ``breadth graph500 --scale args.scale --roots args.roots`` (with
    ``--no-validate`` unless ``args.validate``) plus ``extra`` options, under ``mpiexec -n ranks``
    (None: one process, no launcher); a failed run stops the benchmark with its output."""
    from breadth.distributed.launch import find_mpiexec, mpi_flavour, mpiexec_command, mpiexec_env

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        argv = ["graph500", "--scale", str(args.scale), "--roots", str(args.roots), "--quiet", "--json", out]
        argv += ([] if args.validate else ["--no-validate"]) + list(extra)
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        if ranks is None:
            cmd = [sys.executable, "-m", "breadth"] + argv
        else:
            exe = find_mpiexec()
            flavour = mpi_flavour(exe)
            cmd = mpiexec_command(ranks, argv, exe, flavour)
            env.update({k: v for k, v in mpiexec_env(flavour).items() if k.startswith("OMPI_ALLOW")})
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
        if proc.returncode != 0:
            raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout[-2000:]}\n"
                             f"{proc.stderr[-3000:]}")
        with open(out) as f:
            return json.load(f)


def write_rows(path, rows) -> None:
    """The sweep's rows as a JSON file (``--json``; None: nothing written)."""
    if path:
        with open(path, "w") as f:
            json.dump(rows, f, indent=2)
