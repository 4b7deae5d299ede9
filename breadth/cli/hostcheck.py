"""``breadth doctor --hostfile``: check the hosts of a cluster before a long job.

Every host of the hostfile gets one ``mpiexec --host HOST:1 -n 1 <this python> -c PROBE``
(all at once, each with a timeout; a host that does not answer in time is reported,
never waited on). The probe prints one JSON line: hostname, Python, breadth, numba,
mpi4py and MPI library versions (or why each failed to import), available memory and
the host's IPv4 interfaces. The same probe runs here, on the launcher, and every
host's versions must equal these. With ``--scale`` the Graph500 job's memory per rank
(the layout's own estimate) times the ranks a host gets must fit its available memory.
The interface: Open MPI's ``btl_tcp_if_include``/``oob_tcp_if_include`` (environment or
``mca-params.conf``) must name an interface every host has; the interface holding each
hostfile address is reported.
"""
from __future__ import annotations

import concurrent.futures
import ipaddress
import json
import os
import signal
import subprocess
import sys
import time

GiB = 1 << 30
MARK = "BREADTH-DOCTOR "

PROBE = r'''
import json, os, socket, subprocess, sys
def _memory():
    avail = total = None
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemAvailable:"):
                avail = int(line.split()[1]) * 1024
            elif line.startswith("MemTotal:"):
                total = int(line.split()[1]) * 1024
    except OSError:
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            raw = open(path).read().strip()
            if raw != "max" and avail is not None:
                avail = min(avail, int(raw))
        except (OSError, ValueError):
            pass
    return {"available_bytes": avail, "total_bytes": total}
def _interfaces():
    try:
        out = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {name: [] for _, name in socket.if_nameindex()}
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) > 3 and parts[2] == "inet":
            found.setdefault(parts[1], []).append(parts[3])
    return found
def collect():
    out = {"hostname": socket.gethostname(), "python": sys.version.split()[0], "executable": sys.executable}
    try:
        import mpi4py
        mpi4py.rc.initialize = False
        mpi4py.rc.finalize = False
        from mpi4py import MPI
        out["mpi4py"] = mpi4py.__version__
        out["mpi_library"] = MPI.Get_library_version().strip().splitlines()[0].split(",")[0].strip()
    except Exception as exc:
        out["mpi4py_error"] = f"{type(exc).__name__}: {exc}"
    for name in ("breadth", "numba"):
        try:
            mod = __import__(name)
            out[name] = mod.__version__
            if name == "breadth":
                out["breadth_path"] = os.path.dirname(os.path.abspath(mod.__file__))
        except Exception as exc:
            out[name + "_error"] = f"{type(exc).__name__}: {exc}"
    out["memory"] = _memory()
    out["interfaces"] = _interfaces()
    return out
if __name__ == "__main__":
    print("BREADTH-DOCTOR " + json.dumps(collect()), flush=True)
'''

VERSIONED = ("breadth", "numba", "mpi4py", "mpi_library", "python")


def local_probe() -> dict:
    space = {"__name__": "breadth_doctor_probe"}
    exec(compile(PROBE, "<doctor probe>", "exec"), space)
    return space["collect"]()


def _mca_files() -> list[str]:
    from ..distributed.launch import find_mpiexec

    prefix = os.path.dirname(os.path.dirname(os.path.realpath(find_mpiexec())))
    return [os.path.join(os.path.expanduser("~"), ".openmpi", "mca-params.conf"),
            os.path.join(prefix, "etc", "openmpi-mca-params.conf")]


def mca_setting(name: str) -> tuple[str | None, str | None]:
    """(value, where) of an Open MPI parameter: the environment first, then mca-params.conf files."""
    for var in (f"OMPI_MCA_{name}", f"PRTE_MCA_{name}"):
        if os.environ.get(var):
            return os.environ[var], f"${var}"
    try:
        files = _mca_files()
    except Exception:  # noqa: BLE001 - no launcher: no file to read
        files = []
    for path in files:
        try:
            with open(path) as f:
                for line in f:
                    key, _, value = line.split("#", 1)[0].partition("=")
                    if key.strip() == name and value.strip():
                        return value.strip(), path
        except OSError:
            continue
    return None, None


def _run_probe(mpiexec: str, env: dict, host: str, timeout: float) -> dict:
    """One host's probe through mpiexec: {"probe": {...}} or {"error": "...", "timed_out": bool}."""
    from ..distributed.launch import private_session

    with private_session(env) as env:
        return _probe_once(mpiexec, env, host, timeout)


def _probe_once(mpiexec: str, env: dict, host: str, timeout: float) -> dict:
    cmd = [mpiexec, "--host", f"{host}:1", "-n", "1", sys.executable, "-P", "-c", PROBE]   # -P: not the cwd's modules
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
    except OSError as exc:
        return {"error": f"cannot run {mpiexec}: {exc}", "timed_out": False, "seconds": 0.0}
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _stop(proc)
        out, err = proc.communicate()
        timed_out = True
    seconds = round(time.monotonic() - t0, 2)
    for line in out.splitlines():
        if line.startswith(MARK):
            try:
                return {"probe": json.loads(line[len(MARK):]), "seconds": seconds}
            except ValueError:
                break
    if timed_out:
        return {"error": f"no answer within {timeout:g} s: mpiexec could not start a process there (host down, "
                         f"unreachable, or its daemon cannot connect back to this host)",
                "timed_out": True, "seconds": seconds}
    return {"error": f"mpiexec failed (exit {proc.returncode}): {_reason(err or out)}", "timed_out": False,
            "seconds": seconds}


def _stop(proc) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=3)
            return
        except subprocess.TimeoutExpired:
            continue


def _reason(text: str) -> str:
    """What went wrong, in one line, from mpiexec's output (Open MPI frames messages in boxes):
    the agent's own line (ssh's), else the first sentence of the first message."""
    lines = [ln.strip() for ln in text.splitlines() if "Warning:" not in ln]
    for ln in lines:
        if "ssh:" in ln or "Could not" in ln or "No such file" in ln or "not found" in ln:
            return ln
    paragraph = []
    for ln in lines:
        if not ln or not set(ln) - set("-*="):
            if paragraph:
                break
            continue
        paragraph.append(ln)
    first = " ".join(paragraph)
    first = first.split(". ")[0].rstrip(".") + "." if first else "no output"
    status = [ln for ln in lines if ln.startswith("Daemon exit status")]
    return first + (f" ({status[0]})" if status else "")


def _address_interface(probe: dict, host: str) -> str | None:
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return None
    for name, cidrs in probe.get("interfaces", {}).items():
        if any(ipaddress.ip_interface(c).ip == addr for c in cidrs):
            return name
    return None


def _has_interface(probe: dict, spec: str) -> bool:
    """An if_include item (an interface name or a CIDR) is present on the host."""
    ifaces = probe.get("interfaces", {})
    if "/" in spec:
        try:
            net = ipaddress.ip_network(spec, strict=False)
        except ValueError:
            return False
        return any(ipaddress.ip_interface(c).ip in net for cidrs in ifaces.values() for c in cidrs)
    return bool(ifaces.get(spec))


def job_estimate(scale, edgefactor, ranks, partition, exchange, fanout=1) -> int:
    """Peak bytes per rank of a Graph500 job, from the layout's own estimate."""
    from ..distributed import registry
    from ..distributed.search_base import SearchOptions

    layout = registry.get(partition, exchange)
    return int(layout.estimate_bytes(1 << scale, edgefactor << scale, ranks, SearchOptions(fanout=fanout), False))


def check(path: str, timeout: float = 60, scale: int | None = None, edgefactor: int = 16, ranks: int | None = None,
          partition: str = "1d", exchange: str | None = None) -> dict:
    """The report of ``breadth doctor --hostfile``; ``problems`` lists one line per problem."""
    from ..cluster import hostfile
    from ..distributed.launch import find_mpiexec, mpi_flavour, mpiexec_env
    from ..errors import InputError

    entries = hostfile.read(path)
    if timeout <= 0:
        raise InputError(f"--timeout must be positive, got {timeout:g}")
    mpiexec = find_mpiexec()
    env = mpiexec_env(mpi_flavour(mpiexec))
    here = local_probe()
    problems = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(32, len(entries))) as pool:
        answers = list(pool.map(lambda e: _run_probe(mpiexec, env, e.host, timeout), entries))
    slots = sum(e.slots for e in entries)
    ranks = slots if ranks is None else ranks
    if ranks < 1:
        raise InputError(f"--ranks must be >= 1, got {ranks}")
    if ranks > slots:
        problems.append(f"{ranks} ranks but the hostfile has {slots} slots: add hosts or slots "
                        f"(Open MPI refuses more ranks than slots without --oversubscribe)")
    placed = hostfile.place(entries, ranks)
    per_rank = None
    if scale is not None:
        per_rank = job_estimate(scale, edgefactor, ranks, partition, exchange)
    include = {key: mca_setting(key) for key in ("btl_tcp_if_include", "oob_tcp_if_include")}
    hosts = []
    for e, answer, k in zip(entries, answers, placed):
        row = {"host": e.host, "slots": e.slots, "ranks": k, "seconds": answer["seconds"],
               "reachable": "probe" in answer}
        if "probe" not in answer:
            row["error"] = answer["error"]
            problems.append(f"host {e.host}: unreachable: {answer['error']}")
            hosts.append(row)
            continue
        p = row["probe"] = answer["probe"]
        for key in VERSIONED:
            if f"{key}_error" in p:
                problems.append(f"host {e.host}: cannot import {key}: {p[key + '_error']}")
            elif p.get(key) != here.get(key):
                problems.append(f"host {e.host}: {key} {p.get(key)}, but the launcher has {here.get(key)}: install "
                                f"the same version on every host")
        if p.get("breadth_path") and here.get("breadth_path") and p["breadth_path"] != here["breadth_path"]:
            problems.append(f"host {e.host}: breadth imported from {p['breadth_path']}, the launcher's from "
                            f"{here['breadth_path']}: use the same install path everywhere")
        row["interface"] = _address_interface(p, e.host)
        for key, (value, where) in include.items():
            for spec in (value.split(",") if value else []):
                if spec.strip() and not _has_interface(p, spec.strip()):
                    problems.append(f"host {e.host}: no interface {spec.strip()} ({key} from {where}); it has "
                                    f"{', '.join(sorted(p.get('interfaces', {}))) or 'none'}")
        avail = p["memory"]["available_bytes"]
        if per_rank is not None and k:
            row["needed_bytes"] = per_rank * k
            if avail is not None and per_rank * k > avail:
                ranks_there = f"{k} rank{'s' if k != 1 else ''}"
                problems.append(f"host {e.host}: the job needs about {per_rank * k / GiB:.1f} GiB there ({ranks_there} "
                                f"x {per_rank / GiB:.1f} GiB) but {avail / GiB:.1f} GiB is available: use more hosts "
                                f"or fewer ranks per host")
        hosts.append(row)
    return {"hostfile": os.path.abspath(path), "mpiexec": mpiexec, "timeout_s": timeout, "launcher": here,
            "interfaces": {k: {"value": v, "from": w} for k, (v, w) in include.items()},
            "job": None if scale is None else {"scale": scale, "edgefactor": edgefactor, "ranks": ranks,
                                               "partition": partition, "exchange": exchange,
                                               "bytes_per_rank": per_rank},
            "hosts": hosts, "problems": problems}


def render(rep: dict) -> str:
    here = rep["launcher"]
    lines = [f"{'launcher':<18}{here['hostname']}: breadth {here.get('breadth')}, numba {here.get('numba')}, "
             f"mpi4py {here.get('mpi4py')}, {here.get('mpi_library')}; mpiexec {rep['mpiexec']}"]
    inc = rep["interfaces"]
    chosen = [f"{k}={v['value']} ({v['from']})" for k, v in inc.items() if v["value"]]
    lines.append(f"{'interface':<18}" + ("; ".join(chosen) if chosen else
                                         "not chosen: Open MPI tries every interface but loopback "
                                         "(set OMPI_MCA_btl_tcp_if_include / oob_tcp_if_include)"))
    if rep["job"]:
        j = rep["job"]
        lines.append(f"{'job':<18}graph500 scale {j['scale']} edgefactor {j['edgefactor']} on {j['ranks']} ranks "
                     f"({j['partition']}): about {j['bytes_per_rank'] / GiB:.2f} GiB per rank")
    for h in rep["hosts"]:
        if not h["reachable"]:
            lines.append(f"{'host ' + h['host']:<18}UNREACHABLE after {h['seconds']:g} s")
            continue
        p = h["probe"]
        mem = p["memory"]["available_bytes"]
        need = f", job needs {h['needed_bytes'] / GiB:.1f} GiB" if "needed_bytes" in h else ""
        lines.append(f"{'host ' + h['host']:<18}{p['hostname']} in {h['seconds']:g} s: breadth {p.get('breadth', '?')}, "
                     f"numba {p.get('numba', '?')}, mpi4py {p.get('mpi4py', '?')}; {h['ranks']} of {h['slots']} "
                     f"slots; {mem / GiB if mem else 0:.1f} GiB available{need}; address on "
                     f"{h.get('interface') or '?'}")
    lines += [f"{'PROBLEM':<18}{p}" for p in rep["problems"]] or [f"{'problems':<18}none"]
    return "\n".join(lines)
