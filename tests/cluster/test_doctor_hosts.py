"""``breadth doctor --hostfile`` on the namespace cluster: a healthy cluster passes; a planted
breadth version, an unplugged host, a host not in the cluster, a host that hangs and a job too
large for memory are each found, one line per problem, within the timeout."""
import json
import os
import shutil
import sys
import time

import pytest

import breadth

from helpers import ROOT, env

pytestmark = pytest.mark.mpi


def doctor(cluster, *args, timeout=120):
    t0 = time.monotonic()
    proc = cluster.exec(1, [sys.executable, "-m", "breadth", "doctor", "--json", "-", *map(str, args)],
                        timeout=timeout, env=env(), cwd=ROOT)
    assert proc.returncode in (0, 2), proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.returncode, json.loads(proc.stdout), time.monotonic() - t0


def test_healthy_cluster(cluster3):
    code, rep, _ = doctor(cluster3, "--hostfile", cluster3.hostfile(slots=2), "--scale", "12")
    assert code == 0 and rep["problems"] == [], rep["problems"]
    assert [h["probe"]["hostname"] for h in rep["hosts"]] == [h.name for h in cluster3.hosts]
    assert all(h["reachable"] and h["interface"] == "eth0" and h["ranks"] == 2 for h in rep["hosts"])
    assert rep["interfaces"]["btl_tcp_if_include"]["value"] == "eth0"
    assert rep["launcher"]["breadth"] == breadth.__version__
    assert 0 < rep["job"]["bytes_per_rank"] < 1 << 30 and rep["job"]["ranks"] == 6


def test_planted_version_unplugged_and_unknown_hosts(cluster3, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(os.path.join(ROOT, "breadth"), other / "breadth", ignore=shutil.ignore_patterns("__pycache__"))
    init = other / "breadth" / "__init__.py"
    init.write_text(init.read_text().replace(f'__version__ = "{breadth.__version__}"', '__version__ = "0.0.0+planted"'))
    hosts = tmp_path / "hosts"
    shutil.copy(cluster3.hostfile(), hosts)
    with open(hosts, "a") as f:
        f.write("127.77.0.99 slots=1   # no such host\n")
    cluster3.set_env(3, PYTHONPATH=other)
    cluster3.set_link(2, False)
    try:
        code, rep, seconds = doctor(cluster3, "--hostfile", hosts, "--timeout", 30)
    finally:
        cluster3.set_link(2, True)
        cluster3.set_env(3, PYTHONPATH=None)
        cluster3.kill_processes()
    problems = rep["problems"]
    assert code == 2 and seconds < 60
    a1, a2, a3 = (h.address for h in cluster3.hosts)
    assert not [p for p in problems if a1 in p]
    assert [p for p in problems if a2 in p] == [p for p in problems if p.startswith(f"host {a2}: unreachable")]
    assert len([p for p in problems if a2 in p]) == 1
    assert f"host {a3}: breadth 0.0.0+planted, but the launcher has {breadth.__version__}" in "\n".join(problems)
    assert any(p.startswith(f"host {a3}: breadth imported from {other}") for p in problems)
    assert any(p.startswith("host 127.77.0.99: unreachable") and "Could not resolve hostname" in p for p in problems)
    assert len(problems) == 4, problems


def test_host_that_hangs_is_reported_within_the_timeout(cluster3, tmp_path):
    (tmp_path / "sitecustomize.py").write_text("import time\ntime.sleep(600)\n")
    cluster3.set_env(2, PYTHONPATH=tmp_path)
    try:
        code, rep, seconds = doctor(cluster3, "--hostfile", cluster3.hostfile(), "--timeout", 6)
    finally:
        cluster3.set_env(2, PYTHONPATH=None)
        cluster3.kill_processes()
    assert code == 2 and seconds < 30, seconds
    assert rep["problems"] == [f"host {cluster3.hosts[1].address}: unreachable: no answer within 6 s: mpiexec could "
                               f"not start a process there (host down, unreachable, or its daemon cannot connect "
                               f"back to this host)"]


def test_job_too_large_and_too_many_ranks(cluster3):
    code, rep, _ = doctor(cluster3, "--hostfile", cluster3.hostfile(), "--scale", "36", "--ranks", "4")
    problems = rep["problems"]
    assert code == 2
    assert problems[0].startswith("4 ranks but the hostfile has 3 slots")
    assert len([p for p in problems if "the job needs about" in p]) == 3


def test_interface_missing_on_the_hosts(cluster3):
    proc = cluster3.exec(1, [sys.executable, "-m", "breadth", "doctor", "--hostfile", cluster3.hostfile(hosts=[1, 2])],
                         env=env(OMPI_MCA_btl_tcp_if_include="eth0,ib0"), cwd=ROOT, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    bad = [ln for ln in proc.stdout.splitlines() if ln.startswith("PROBLEM")]
    assert len(bad) == 2 and all("no interface ib0 (btl_tcp_if_include from $OMPI_MCA_btl_tcp_if_include)" in ln
                                 for ln in bad), proc.stdout
