"""``breadth doctor``: what a user needs to know when something is slow or fails.

The probes are ``breadth.cli.probes``; this module renders their report as
text (one ``label  value`` line per fact, problems last, each with its fix) or
writes it as JSON for a bug report. The command exits 0 whatever it finds: it
reports, it does not judge. With ``--hostfile`` it checks the hosts of a cluster
instead (``hostcheck``) and exits 2 (as for bad input) when it finds a problem, so a
job script can stop before a long run.
"""
from __future__ import annotations

from ..errors import InputError
from .common import add_json_option, write_json
from .helpformat import examples
from .probes import install

GiB = 1 << 30


def register(sub):
    p = sub.add_parser(
        "doctor",
        help="report the installation: versions, numba threads and cache, MPI, GPU, memory",
        description="Report what breadth runs on: breadth, numpy and numba versions; numba's threading layer, "
                    "threads and kernel cache (and whether it is writable); the mpiexec found (path, vendor, "
                    "version), whether mpi4py's MPI matches it and whether running as root needs Open MPI's "
                    "variables; the GPU found (numba-cuda, devices, or its simulator); free memory. Problems "
                    "are listed last with their fix. Attach the --json output to bug reports.",
        epilog=examples("breadth doctor",
                        "breadth doctor --json > doctor.json",
                        "breadth doctor --hostfile hosts.txt",
                        "breadth doctor --hostfile hosts.txt --scale 26 --ranks 16 --timeout 30"),
    )
    add_json_option(p, "the report")
    g = p.add_argument_group(
        "checking a cluster's hosts",
        "With --hostfile, start one probe on every host through mpiexec (all at once, each with --timeout) and "
        "check that each host is reachable by the launcher; has the same Python, breadth, numba, mpi4py and MPI "
        "library versions as this host, breadth from the same path; has the interface Open MPI is told to use "
        "(btl_tcp_if_include / oob_tcp_if_include from the environment or mca-params.conf); and, with --scale, "
        "enough available memory for its ranks of that Graph500 job. One line per problem; exit status 2 when "
        "there is any.")
    g.add_argument("--hostfile", default=None, metavar="FILE",
                   help="the Open MPI hostfile of the job ('HOST slots=N' a line)")
    g.add_argument("--timeout", type=float, default=60, metavar="S",
                   help="seconds to wait for each host's probe (a host that has not answered is unreachable)")
    g.add_argument("--scale", type=int, default=None, metavar="S",
                   help="check memory for a Graph500 job of 2^S vertices")
    g.add_argument("--edgefactor", type=int, default=16, help="that job's edge tuples per vertex")
    g.add_argument("--ranks", type=int, default=None, metavar="P",
                   help="that job's ranks, filling the hosts' slots in order (default: every slot)")
    g.add_argument("--partition", default="1d", help="that job's partition (1d, 2d, delegates)")
    g.add_argument("--exchange", default=None, help="that job's exchange (default: the partition's)")
    p.set_defaults(run=run)


def _gib(b) -> str:
    return "?" if b is None else f"{b / GiB:.1f} GiB"


def _line(label: str, value: str) -> str:
    return f"{label:<18}{value}"


def _planner_rates() -> dict:
    """The local kernels' edge rates ``--partition auto`` uses (measured once, then cached)."""
    from ..distributed.planner.calibration import cache_path, calibrate_rates

    rates = calibrate_rates()
    return {"rate_td": rates["rate_td"], "rate_bu": rates["rate_bu"], "cache": cache_path()}


def render(rep: dict) -> str:
    b, nb, mem, mpi, gpu = rep["breadth"], rep["numba"], rep["memory"], rep["mpi"], rep["gpu"]
    pk = b["packages"]
    shown = ", ".join(f"{name} {pk[name]}" for name in ("numpy", "numba", "llvmlite", "scipy") if pk.get(name))
    lines = [_line("breadth", f"{b['version']} at {b['path']}"),
             _line("python", f"{b['python']} ({b['executable']}) on {b['platform']}"),
             _line("packages", shown)]
    layer = nb["threading_layer"] or "none"
    lines.append(_line("numba threads", f"{nb['threads']} of {nb['max_threads']} (NUMBA_NUM_THREADS); "
                                        f"{nb['usable_cores']} usable cores of {nb['cores']}; threading layer "
                                        f"{layer} (requested: {nb['requested_layer']})"))
    lines.append(_line("numba cache", f"{nb['cache_dir']} ({'writable' if nb['cache_writable'] else 'NOT writable'})"))
    limit = f"; cgroup limit {_gib(mem['cgroup_limit_bytes'])}" if mem["cgroup_limit_bytes"] else ""
    lines.append(_line("memory", f"{_gib(mem['available_bytes'])} available of {_gib(mem['total_bytes'])}{limit}"))
    lines += _mpi_lines(mpi)
    if rep.get("planner"):
        pl = rep["planner"]
        lines.append(_line("edge rates", f"one core: top-down {pl['rate_td']:.3g}/s, bottom-up {pl['rate_bu']:.3g}/s "
                                                 f"(--partition auto's calibration, cached at {pl['cache']}); "
                                                 f"latency and bandwidth are probed at each job's start"))
    lines += _gpu_lines(gpu)
    notes = [n for key in ("numba", "mpi", "gpu") for n in rep[key]["notes"]]
    lines += [_line("note", n) for n in notes]
    if rep["problems"]:
        lines += [_line("PROBLEM", p) for p in rep["problems"]]
    else:
        lines.append(_line("problems", "none"))
    return "\n".join(lines)


def _mpi_lines(mpi: dict) -> list[str]:
    if mpi["mpiexec"]:
        what = " ".join(x for x in (mpi["vendor"], mpi["version"]) if x) or "unknown MPI"
        lines = [_line("mpiexec", f"{mpi['mpiexec']} ({mpi['found_by']}): {what}")]
    else:
        lines = [_line("mpiexec", "not found")]
    lib = mpi["mpi4py"]
    if lib is None:
        lines.append(_line("mpi4py", "not installed"))
    elif "error" in lib:
        lines.append(_line("mpi4py", lib["error"]))
    else:
        match = {True: "matches mpiexec", False: "DOES NOT match mpiexec", None: "no mpiexec to compare"}
        lines.append(_line("mpi4py", f"{lib['version']} on {lib['library'] or '?'} (MPI {lib['standard']}): "
                                     f"{match[mpi['matches']]}"))
    root = mpi["root"]
    if root["running_as_root"]:
        if root["needs_variables"]:
            state = ("set" if root["variables_set"] else
                     "not set: --ranks sets them itself; export them to run mpiexec yourself")
            lines.append(_line("running as root", f"Open MPI needs OMPI_ALLOW_RUN_AS_ROOT=1 and "
                                                  f"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ({state})"))
        else:
            lines.append(_line("running as root", "yes"))
    return lines


def _gpu_lines(gpu: dict) -> list[str]:
    if gpu["cuda_module"] is None:
        lines = [_line("gpu", f"no CUDA support installed (GPU BFS: {install('cuda')})")]
    else:
        module = gpu["cuda_module"] + (f" {gpu['numba_cuda']}" if gpu["numba_cuda"] else "")
        if gpu["devices"]:
            devices = "; ".join(
                f"{d['id']}: {d['name']}" + (f" (compute {d['compute_capability']}" if "compute_capability" in d
                                             else "")
                + (f", {_gib(d['free_bytes'])} free of {_gib(d['total_bytes'])})" if "total_bytes" in d
                   else ")" if "compute_capability" in d else "")
                for d in gpu["devices"])
        else:
            devices = "no GPU found"
        lines = [_line("gpu", f"{module}: {devices}")]
    bg = gpu["breadth_gpu"]
    if not bg["present"]:
        lines.append(_line("breadth.gpu", "not part of this installation"))
    elif bg["usable"] is None:
        lines.append(_line("breadth.gpu", "present; needs numba-cuda"))
    else:
        state = "present, usable" if bg["usable"] else f"present, not usable: {bg['reason']}"
        lines.append(_line("breadth.gpu", state))
    return lines


PROBLEMS_FOUND = 2          # the exit status of bad input: the job should not start


def run(args) -> int:
    if args.hostfile is not None:
        return run_hosts(args)
    for flag in ("scale", "ranks", "exchange"):
        if getattr(args, flag) is not None:
            raise InputError(f"--{flag} goes with --hostfile")
    from .probes import report

    rep = report()
    rep["planner"] = _planner_rates()
    if args.json:
        write_json(args.json, rep)
    if args.json != "-":
        print(render(rep))
    return 0


def run_hosts(args) -> int:
    from .hostcheck import check, render as render_hosts

    rep = check(args.hostfile, timeout=args.timeout, scale=args.scale, edgefactor=args.edgefactor,
                ranks=args.ranks, partition=args.partition, exchange=args.exchange)
    if args.json:
        write_json(args.json, rep)
    if args.json != "-":
        print(render_hosts(rep))
    return PROBLEMS_FOUND if rep["problems"] else 0
