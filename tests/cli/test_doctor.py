"""``breadth doctor``: the real installation, and the same report with MPI and the GPU hidden."""
import importlib.machinery
import json
import os
import subprocess
import sys
import types

import numba
import pytest

import breadth
from breadth.cli import main, probes
from breadth.cli.doctor import render
from breadth.errors import InputError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def doctor_json(capsys):
    assert main(["doctor", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_report_of_this_installation(capsys):
    rep = doctor_json(capsys)
    b = rep["breadth"]
    assert b["version"] == breadth.__version__ and b["packages"]["numba"] == numba.__version__
    assert b["packages"]["numpy"] and b["executable"] == sys.executable
    nb = rep["numba"]
    assert nb["threading_layer"] in ("tbb", "omp", "workqueue")
    assert 1 <= nb["threads"] <= nb["max_threads"] == numba.config.NUMBA_NUM_THREADS
    assert nb["cache_writable"] is True and os.path.isabs(nb["cache_dir"])
    assert rep["memory"]["available_bytes"] > 0
    mpi = rep["mpi"]
    assert mpi["mpiexec"] and os.access(mpi["mpiexec"], os.X_OK)     # the test suite runs real mpiexec
    assert mpi["vendor"] == "Open MPI" and mpi["mpi4py"]["vendor"] == "Open MPI" and mpi["matches"] is True
    assert mpi["root"]["running_as_root"] == (os.geteuid() == 0)
    assert rep["problems"] == []
    assert main(["doctor"]) == 0
    text = capsys.readouterr().out
    for label in ("breadth", "numba threads", "numba cache", "memory", "mpiexec", "mpi4py", "gpu", "problems"):
        assert f"\n{label:<18}" in "\n" + text, label
    assert "problems          none" in text


@pytest.fixture
def nothing_installed(monkeypatch, tmp_path):
    """No mpiexec anywhere (PATH, next to Python, $BREADTH_MPIEXEC), no mpi4py, no CUDA, no breadth.gpu."""
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv("BREADTH_MPIEXEC", raising=False)
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    for name in ("mpi4py", "numba.cuda", "numba_cuda", "breadth.gpu"):
        monkeypatch.setitem(sys.modules, name, None)          # import fails, find_spec says absent


def test_report_without_mpi_and_gpu(nothing_installed, capsys):
    rep = doctor_json(capsys)
    mpi, gpu = rep["mpi"], rep["gpu"]
    assert mpi["mpiexec"] is None and mpi["on_path"] is None and mpi["mpi4py"] is None
    assert gpu["cuda_module"] is None and gpu["devices"] == [] and gpu["breadth_gpu"] == {"present": False}
    assert any("no mpiexec found" in p and "pip install -e '.[mpi]' in breadth's checkout" in p for p in rep["problems"])
    assert any("mpi4py is not installed" in p for p in rep["problems"])
    assert main(["doctor"]) == 0
    text = capsys.readouterr().out
    assert "mpiexec           not found" in text and "mpi4py            not installed" in text
    assert "gpu               no CUDA support installed (GPU BFS: pip install -e '.[cuda]' in breadth's checkout" in text
    assert "breadth.gpu       not part of this installation" in text
    assert "PROBLEM           no mpiexec found" in text


def test_gpu_simulator_is_reported():
    if not probes.has_module("numba.cuda"):
        pytest.skip("no numba.cuda in this installation")
    env = dict(os.environ, PYTHONPATH=ROOT, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-m", "breadth", "doctor", "--json"], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    gpu = json.loads(proc.stdout)["gpu"]
    assert gpu["simulator"] is True and gpu["available"] is True
    assert gpu["devices"][0]["name"].startswith("CUDA simulator")


def test_breadth_gpu_package_detected_before_and_after_it_lands(monkeypatch):
    """breadth.gpu is looked for with importlib: absent, present but unusable, present and usable."""
    monkeypatch.setitem(sys.modules, "breadth.gpu", None)
    assert probes._breadth_gpu(True) == {"present": False}
    fake = types.ModuleType("breadth.gpu")
    fake.__spec__ = importlib.machinery.ModuleSpec("breadth.gpu", None)

    def no_gpu():
        raise InputError("device='cuda' needs an NVIDIA GPU with a working CUDA driver and none was found")

    fake.require_cuda = no_gpu
    monkeypatch.setitem(sys.modules, "breadth.gpu", fake)
    got = probes._breadth_gpu(True)
    assert got["present"] and got["usable"] is False and "needs an NVIDIA GPU" in got["reason"]
    assert probes._breadth_gpu(False) == {"present": True, "usable": None}
    fake.require_cuda = lambda: None
    assert probes._breadth_gpu(True) == {"present": True, "usable": True}


def test_mismatched_mpi4py_is_a_problem(monkeypatch):
    monkeypatch.setattr(probes, "mpi4py_library", lambda: {
        "version": "4.1.2", "library": "MPICH Version 4.2.0", "standard": "4.0", "vendor": "MPICH",
        "library_version": "4.2.0"})
    mpi = probes.probe_mpi()
    assert mpi["matches"] is False
    assert any("mpi4py is built on MPICH 4.2.0" in p and "will not form one job" in p for p in mpi["problems"])


def test_root_needs_open_mpi_variables(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    for v in probes.ROOT_VARS:
        monkeypatch.delenv(v, raising=False)
    assert probes.root_check("Open MPI") == {"running_as_root": True, "needs_variables": True,
                                             "variables_set": False}
    assert probes.root_check("MPICH")["needs_variables"] is False
    for v in probes.ROOT_VARS:
        monkeypatch.setenv(v, "1")
    assert probes.root_check("Open MPI")["variables_set"] is True
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert probes.root_check("Open MPI")["needs_variables"] is False


@pytest.mark.parametrize("text,expected", [
    ("mpiexec (Open MPI) 5.0.11\n\nReport bugs to https://www.open-mpi.org/community/help/", ("Open MPI", "5.0.11")),
    ("Open MPI v4.1.6, package: Debian OpenMPI, ident: 4.1.6", ("Open MPI", "4.1.6")),
    ("HYDRA build details:\n    Version:                                 4.1.2\n    Release Date: ...",
     ("MPICH", "4.1.2")),
    ("MPICH Version:      4.2.0\nMPICH Release date: ...", ("MPICH", "4.2.0")),
    ("Intel(R) MPI Library for Linux* OS, Version 2021.11 Build 20231005", ("Intel MPI", "2021.11")),
    ("something else 1.0", (None, None)),
])
def test_mpi_versions_parsed(text, expected):
    assert probes.parse_mpi_version(text) == expected


def test_unwritable_numba_cache_is_a_problem(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert probes.writable(str(tmp_path)) and probes.writable(str(tmp_path / "new" / "dir"))
    assert not probes.writable(str(blocker / "cache"))
    monkeypatch.setattr(probes, "probe_cache", lambda: {"cache_dir": str(blocker / "cache"),
                                                        "cache_locator": "test", "cache_dir_env": None,
                                                        "cache_writable": False})
    nb = probes.probe_numba()
    assert any("cannot write its cache" in p and "NUMBA_CACHE_DIR" in p for p in nb["problems"])


def test_render_handles_every_shape(nothing_installed):
    rep = probes.report()
    rep["gpu"].update(cuda_module="numba-cuda", numba_cuda="0.30.0", available=True,
                      devices=[{"id": 0, "name": "NVIDIA H100", "compute_capability": "9.0",
                                "free_bytes": 80 << 30, "total_bytes": 81 << 30}])
    text = render(rep)
    assert "gpu               numba-cuda 0.30.0: 0: NVIDIA H100 (compute 9.0, 80.0 GiB free of 81.0 GiB)" in text
