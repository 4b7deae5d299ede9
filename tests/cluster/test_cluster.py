"""The namespace cluster itself: hosts with their own hostname, /dev/shm and address, TCP
between them, a bandwidth cap, per-host environment, and nothing left behind."""
import os
import subprocess
import sys
import time

import pytest

from breadth.cluster import Cluster, ClusterError, netns, parse_rate, state

from helpers import ROOT, env

pytestmark = pytest.mark.mpi

PROBE = ("import os, socket; from mpi4py import MPI; c = MPI.COMM_WORLD; "
         "shm = os.stat('/dev/shm').st_dev; "
         "print(c.rank, socket.gethostname(), shm, c.allreduce(c.rank), flush=True)")


def test_each_rank_on_its_own_host(cluster3):
    proc = cluster3.run([sys.executable, "-c", PROBE], timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = sorted(line.split() for line in proc.stdout.splitlines())
    assert [r[0] for r in rows] == ["0", "1", "2"]
    assert [r[1] for r in rows] == [h.name for h in cluster3.hosts]
    assert len({r[2] for r in rows}) == 3                  # three different /dev/shm
    assert all(r[3] == "3" for r in rows)


def test_two_ranks_per_host_fill_hosts_in_order(cluster3):
    proc = cluster3.run([sys.executable, "-c", PROBE], ranks_per_host=2, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = sorted((int(r[0]), r[1]) for r in (line.split() for line in proc.stdout.splitlines()))
    assert [name for _, name in rows] == [h.name for h in cluster3.hosts for _ in range(2)]


def test_hosts_have_loopback_addresses_and_route_localnet(cluster3):
    for h in cluster3.hosts:
        assert h.address.startswith("127.77.0.")
        out = cluster3.exec(h.index, ["sh", "-c", "hostname; ip -4 -o addr show dev eth0; "
                                      "sysctl -n net.ipv4.conf.all.route_localnet net.ipv4.conf.eth0.route_localnet"],
                            check=True).stdout.split()
        assert out[0] == h.name and f"{h.address}/24" in out and out[-2:] == ["1", "1"]


def test_bandwidth_cap_both_directions(cluster3):
    try:
        cluster3.set_rate("200mbit", hosts=[2])
        shown = cluster3.exec(2, ["tc", "qdisc", "show", "dev", "eth0"], check=True).stdout
        assert "tbf" in shown and "200Mbit" in shown
        port = netns.sh("tc", "-n", cluster3.switch, "qdisc", "show", "dev", cluster3.host(2).port).stdout
        assert "tbf" in port and "200Mbit" in port
    finally:
        cluster3.set_rate(None, hosts=[2])
    assert "tbf" not in cluster3.exec(2, ["tc", "qdisc", "show", "dev", "eth0"]).stdout


@pytest.mark.parametrize("text,bits", [("1gbit", 10**9), ("200mbit", 2 * 10**8), ("1.5g", 15 * 10**8),
                                       (800000, 800000), ("64kbit", 64000)])
def test_parse_rate(text, bits):
    assert parse_rate(text) == bits


@pytest.mark.parametrize("bad", ["fast", "10mbyte", "100", "-1g"])
def test_parse_rate_refuses(bad):
    with pytest.raises(ClusterError, match="rate"):
        parse_rate(bad)


def test_only_loopback_addresses():
    with pytest.raises(ClusterError, match="loopback"):
        Cluster(2, subnet="10.0.0")
    with pytest.raises(ClusterError, match="name"):
        Cluster(2, name="Bad-Name")


def test_per_host_environment_reaches_the_ranks(cluster3):
    cluster3.set_env(3, BREADTH_TEST_MARK="three")
    try:
        code = "import os, socket; print(socket.gethostname(), os.environ.get('BREADTH_TEST_MARK', '-'))"
        proc = cluster3.run([sys.executable, "-c", code], timeout=120)
        got = dict(line.split() for line in proc.stdout.splitlines())
        assert got == {cluster3.hosts[0].name: "-", cluster3.hosts[1].name: "-", cluster3.hosts[2].name: "three"}
    finally:
        cluster3.set_env(3, BREADTH_TEST_MARK=None)


def test_hosts_share_the_machines_cores(cluster3):
    """Every namespace host sees all of this machine's cores; each is granted its share, so the
    ranks of all hosts together start no more threads than the cores (at least one per host)."""
    code = ("import socket; from mpi4py import MPI; from breadth.distributed.runtime import auto_threads, host_cores; "
            "print(socket.gethostname(), host_cores(), auto_threads(MPI.COMM_WORLD), flush=True)")
    proc = cluster3.run([sys.executable, "-c", code], timeout=120, env=env(), cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    machine = len(os.sched_getaffinity(0))
    share = max(1, machine // 3)
    assert sorted(r[0] for r in rows) == [h.name for h in cluster3.hosts]
    assert all(int(r[1]) == share and int(r[2]) == share for r in rows), rows
    assert sum(int(r[2]) for r in rows) <= max(machine, 3)
    assert cluster3.cores == share


def test_cores_per_host_must_be_positive():
    with pytest.raises(ClusterError, match="cores"):
        Cluster(2, cores=0)


def test_unknown_host_fails_like_ssh(cluster3):
    proc = subprocess.run([cluster3.agent, "127.77.0.99", "true"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 255 and "Could not resolve hostname" in proc.stderr


def test_timeout_stops_everything(cluster3):
    with pytest.raises(subprocess.TimeoutExpired):
        cluster3.run([sys.executable, "-c", "import time; time.sleep(600)"], timeout=5)
    assert cluster3.pids() == []


def test_down_leaves_nothing_and_up_sweeps_dead_owners(cluster_ok, tmp_path):
    # a process that makes a cluster, starts a job on it and is killed before it can clean up
    script = tmp_path / "owner.py"
    script.write_text(
        "import sys, time\n"
        "from breadth.cluster import Cluster\n"
        "c = Cluster(2, name=sys.argv[1]).up()\n"
        "p = c.run([sys.executable, '-c', 'import time; time.sleep(300)'], timeout=600, capture=False)\n")
    name = f"k{os.getpid() % 100000}"
    owner = subprocess.Popen([sys.executable, str(script), name], cwd=ROOT, env={**os.environ, **env()})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_pids(name)) < 2:
        time.sleep(0.2)
    assert len(_pids(name)) >= 2, "the job never started"
    owner.kill()
    owner.wait()
    assert name in state.stale()
    assert name in state.sweep()
    assert not state.namespaces_of(name) and not os.path.exists(state.state_dir(name)) and not _pids(name)


def _pids(name):
    return [pid for ns in state.namespaces_of(name) for pid in netns.pids_in(ns)]


BURST = ("from mpi4py import MPI; from breadth.distributed.planner import probe; c = MPI.COMM_WORLD; "
         "small = probe._small(c, MPI); rate = sorted(probe._bandwidth(c, MPI, 'p2p') for _ in range(5))[2]; "
         "b = max(probe._burst(c, MPI, rate, small['p2p']) for _ in range(8)); "
         "print(c.rank, rate, b, flush=True)")


def test_probe_measures_the_caps_token_bucket(cluster3):
    # a 100 Mbit/s cap's bucket holds 1 ms of traffic (netns.tbf_params): 12,500 bytes pass at once
    # after an idle spell, and the probe's burst finds about that much (two buckets in series, the
    # host's egress and the switch port's, and TCP's segments blur it). A rank descheduled by the
    # other tests' work only hides the bucket (the probe then prices every byte at the rate), so
    # the best of eight measurements, on two of the hosts, counts; descheduling moves a rate
    # measurement either way (it is a slope between two sizes), so the median of five counts
    bucket = netns.tbf_params(10**8)[0]
    try:
        cluster3.set_rate("100mbit")
        proc = cluster3.run([sys.executable, "-c", BURST], hosts=[1, 2], timeout=300, env=env(), cwd=ROOT)
    finally:
        cluster3.set_rate(None)
    assert proc.returncode == 0, proc.stderr
    rank0 = next(line.split() for line in proc.stdout.splitlines() if line.startswith("0 "))
    rate, burst = float(rank0[1]), float(rank0[2])
    assert 0.5 * 1.25e7 < rate < 1.6 * 1.25e7              # the ring rate: about the cap
    assert 0.3 * bucket < burst < 3 * bucket
