"""``Cluster``: H hosts on this machine, each a network namespace, joined by a bridge, reached
by Open MPI through a launch agent instead of ssh.

Layout of cluster NAME: a switch namespace ``breadth-NAME-sw`` holding bridge
``br0``; host i (1-based) is namespace ``breadth-NAME-h<i>`` with hostname
``NAME-h<i>`` and interface ``eth0`` at address ``<subnet>.<10+i>`` (default
subnet 127.77.0, loopback only, ``route_localnet`` on), linked to bridge port
``p<i>``. A bandwidth cap shapes both directions of a host's link (``tbf`` on
``eth0`` and on ``p<i>``). Commands run on a host through the agent
(``agent.py``), which gives them the host's hostname and a private ``/dev/shm``.
``mpiexec`` runs on host 1 with TCP only over ``eth0``. The hosts share this machine's cores,
which each of them sees: every host is given its share (``cores``, by default the cores divided
among the hosts, at least one) as ``$BREADTH_HOST_CORES``, which ``runtime.host_cores`` honours,
so that the ranks of all hosts together start no more threads than there are cores.

A Cluster is a context manager; ``down`` also runs at interpreter exit and, through the
exceptions that SIGINT, SIGTERM and SIGHUP raise while the cluster is up, on those signals;
a second signal SIGKILLs everything the cluster started (``interrupt``). Every ``up`` first
sweeps the clusters of dead processes (``state.sweep``).
"""
from __future__ import annotations

import atexit
import dataclasses
import ipaddress
import logging
import os
import secrets
import shlex
import signal
import subprocess
import tempfile
import time

from . import hostfile, interrupt, netns, state
from .agent import render
from .exits import RECORD_EXIT, Outlived, communicate
from .netns import ClusterError

log = logging.getLogger("breadth.cluster")

IFACE = "eth0"
BRIDGE = "br0"
DEFAULT_SUBNET = "127.77.0"
FIRST_HOST = 11


@dataclasses.dataclass(frozen=True)
class Host:
    index: int            # 1-based
    name: str             # its hostname
    address: str          # its address on the cluster network (127.x.y.z)
    netns: str            # its network namespace
    port: str             # its port on the switch's bridge


def mpi_env(agent: str, iface: str = IFACE) -> dict[str, str]:
    """Open MPI's settings for the cluster as environment variables: the agent instead of ssh
    (no tree spawn: mpiexec starts every daemon itself), TCP only, over ``iface``, yielding
    when idle (the hosts share this machine's cores)."""
    return {"PRTE_MCA_plm_ssh_agent": agent, "PRTE_MCA_plm_ssh_no_tree_spawn": "1",
            "PRTE_MCA_oob_tcp_if_include": iface, "OMPI_MCA_oob_tcp_if_include": iface,
            "OMPI_MCA_btl": "tcp,self", "OMPI_MCA_btl_tcp_if_include": iface,
            "OMPI_MCA_mpi_yield_when_idle": "1",
            "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


class Cluster:
    """H namespace hosts. ``Cluster(3).up()`` or ``with Cluster(3) as c:``; see the module doc."""

    def __init__(self, hosts: int = 3, *, name: str | None = None, subnet: str = DEFAULT_SUBNET,
                 rate=None, env: dict[int, dict[str, str]] | None = None, persistent: bool = False,
                 cores: int | None = None):
        if not 1 <= int(hosts) <= 200:
            raise ClusterError(f"hosts must be between 1 and 200, got {hosts}")
        if cores is not None and not (isinstance(cores, int) and cores >= 1):
            raise ClusterError(f"cores must be a positive integer (the cores of each host), got {cores!r}")
        self.name = state.check_name(name or "t" + secrets.token_hex(4))
        try:
            net = ipaddress.ip_network(f"{subnet}.0/24", strict=True)
        except ValueError:
            raise ClusterError(f"bad subnet {subnet!r}: give the first three parts of a 127.x.y.0/24, "
                               f"e.g. {DEFAULT_SUBNET}") from None
        self.subnet = subnet
        self.prefixlen = 24
        self.hosts = [Host(i, f"{self.name}-h{i}", str(net[FIRST_HOST - 1 + i]), f"{state.NS_PREFIX}{self.name}-h{i}",
                           f"p{i}") for i in range(1, int(hosts) + 1)]
        for h in self.hosts:
            netns.check_loopback(h.address)
        self.switch = f"{state.NS_PREFIX}{self.name}-sw"
        self.rate = None if rate is None else netns.parse_rate(rate)
        self.env = {int(k): dict(v) for k, v in (env or {}).items()}
        self.cores = cores if cores is not None else host_share(len(self.hosts))
        self.persistent = persistent
        self.is_up = False
        self._guarded = False
        self._started: list[subprocess.Popen] = []

    # ---- paths -------------------------------------------------------------------------------
    @property
    def directory(self) -> str:
        return state.state_dir(self.name)

    @property
    def agent(self) -> str:
        """The launch agent (``AGENT HOST COMMAND``), Open MPI's ``plm_ssh_agent``."""
        return os.path.join(self.directory, "agent")

    @property
    def iface(self) -> str:
        return IFACE

    def host(self, which) -> Host:
        """A host by 1-based index (an int or its digits), name or address."""
        if isinstance(which, str) and which.isdigit():
            which = int(which)
        for h in self.hosts:
            if which in (h.index, h.name, h.address):
                return h
        raise ClusterError(f"cluster {self.name} has no host {which!r}")

    # ---- life cycle --------------------------------------------------------------------------
    @classmethod
    def attach(cls, name: str) -> "Cluster":
        """The existing cluster ``name`` (made by another process, e.g. ``breadth cluster up``)."""
        st = state.read_state(state.check_name(name))
        if st is None:
            raise ClusterError(f"no cluster {name}: 'breadth cluster status' lists them")
        c = cls(len(st["hosts"]), name=name, subnet=st["subnet"], rate=st.get("rate"),
                env={int(k): v for k, v in st.get("env", {}).items()}, persistent=st.get("owner") is None,
                cores=st.get("cores"))
        c.is_up = True
        return c

    def _state(self) -> dict:
        return {"name": self.name, "subnet": self.subnet,
                "hosts": [dataclasses.asdict(h) for h in self.hosts], "rate": self.rate, "iface": IFACE,
                "env": {str(k): v for k, v in self.env.items()}, "cores": self.cores,
                "owner": None if self.persistent else state.owner_token(), "created": time.time()}

    def up(self) -> "Cluster":
        if self.is_up:
            return self
        state.sweep()
        state.claim(self.name, self._state())
        self.is_up = True
        self._guard()
        try:
            netns.add_namespace(self.switch)
            netns.add_bridge(self.switch, BRIDGE)
            for h in self.hosts:
                netns.add_namespace(h.netns)
                netns.add_host_link(h.netns, IFACE, self.switch, h.port, BRIDGE, h.address, self.prefixlen)
            self._write_agent()
            self.hostfile()
            if self.rate is not None:
                self.set_rate(self.rate)
        except BaseException:
            self.down()
            raise
        log.info("cluster %s up: %d hosts %s", self.name, len(self.hosts), " ".join(h.address for h in self.hosts))
        return self

    def down(self) -> None:
        """Stop every process on the hosts and remove the namespaces and state (idempotent)."""
        if not self.is_up:
            return
        self.is_up = False
        try:
            with interrupt.cleaning():
                state.teardown(self.name)
                self._started = []
        finally:
            self._unguard()
        log.info("cluster %s down", self.name)

    def __enter__(self) -> "Cluster":
        return self.up()

    def __exit__(self, *exc) -> None:
        self.down()

    def _guard(self) -> None:
        """Tear down at exit and on SIGINT/SIGTERM/SIGHUP (``interrupt``: raised as exceptions, so
        that finally blocks and fixtures run), unless the cluster is meant to outlive this process."""
        if self.persistent:
            return
        atexit.register(self.down)
        interrupt.guard(self)
        self._guarded = True

    def _unguard(self) -> None:
        atexit.unregister(self.down)
        if self._guarded:
            self._guarded = False
            interrupt.unguard(self)

    def _write_agent(self) -> None:
        from ..distributed.runtime import HOST_CORES_ENV

        env = {h.index: {HOST_CORES_ENV: str(self.cores), **self.env.get(h.index, {})} for h in self.hosts}
        tmp = self.agent + ".tmp"
        with open(tmp, "w") as f:
            f.write(render(self.name, self.hosts, env))
        os.chmod(tmp, 0o755)
        os.replace(tmp, self.agent)

    # ---- changing a running cluster ------------------------------------------------------------
    def set_rate(self, rate, hosts=None) -> None:
        """Cap the links of ``hosts`` (default: all) at ``rate`` bits/s ('1gbit', 200e6, ...), both
        directions; None removes the cap."""
        bits = None if rate is None else netns.parse_rate(rate)
        for h in (self.hosts if hosts is None else [self.host(x) for x in hosts]):
            netns.set_rate(h.netns, IFACE, bits)
            netns.set_rate(self.switch, h.port, bits)
        if hosts is None:
            self.rate = bits
            self._save()

    def set_link(self, which, up: bool) -> None:
        """Unplug (``up=False``) or plug back a host's cable: its bridge port goes down/up."""
        netns.set_link(self.switch, self.host(which).port, up)

    def set_env(self, which, **variables) -> None:
        """Export ``variables`` on host ``which`` for every command started there from now on
        (the daemons of mpiexec and their ranks included); a value of None removes one."""
        h = self.host(which)
        env = self.env.setdefault(h.index, {})
        for k, v in variables.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = str(v)
        self._write_agent()
        self._save()

    def _save(self) -> None:
        if self.is_up:
            st = state.read_state(self.name) or self._state()
            st.update(rate=self.rate, env={str(k): v for k, v in self.env.items()})
            state.write_state(self.name, st)

    # ---- running things --------------------------------------------------------------------------
    def hostfile(self, slots: int = 1, hosts=None, path: str | None = None) -> str:
        """Write an Open MPI hostfile (one ``ADDRESS slots=S`` line a host); returns its path
        (default: ``hostfile`` in the cluster's directory)."""
        path = path or os.path.join(self.directory, "hostfile")
        chosen = self.hosts if hosts is None else [self.host(x) for x in hosts]
        return hostfile.write(path, [hostfile.Entry(h.address, slots) for h in chosen])

    def environment(self, env: dict | None = None) -> dict[str, str]:
        """This process's environment plus Open MPI's cluster settings plus ``env``."""
        out = dict(os.environ)
        out.update(mpi_env(self.agent))
        out.update({k: str(v) for k, v in (env or {}).items()})
        return out

    def command(self, which, argv) -> list[str]:
        """The command line that runs ``argv`` on host ``which`` (through the agent)."""
        return [self.agent, self.host(which).address, shlex.join([str(a) for a in argv])]

    def popen(self, which, argv, env: dict | None = None, **kw) -> subprocess.Popen:
        """Start ``argv`` on a host in a new session (``kill_processes`` or ``down`` stops it)."""
        self._check_up()
        kw.setdefault("start_new_session", True)
        proc = subprocess.Popen(self.command(which, argv), env=self.environment(env), **kw)
        self._started = [p for p in self._started if p.poll() is None] + [proc]
        return proc

    def exec(self, which, argv, *, timeout: float = 120, env: dict | None = None, capture: bool = True,
             check: bool = False, exits: str | None = None, **kw) -> subprocess.CompletedProcess:
        """Run ``argv`` on a host and wait, at most ``timeout`` s: past it (or on an exception such as
        Ctrl-C) every process on the cluster's hosts is stopped and the exception raised
        (``subprocess.TimeoutExpired`` for the timeout). ``check``: ClusterError on a non-zero exit.
        ``exits``: the folder where an MPI job's ranks record their exit statuses (``mpiexec``'s
        ``exits``); a launcher still running ``EXIT_GRACE`` s after every rank recorded its status is
        stopped, and the ranks' status returned (Open MPI 5 can hang after a finished job)."""
        if capture:
            kw.setdefault("stdout", subprocess.PIPE)
            kw.setdefault("stderr", subprocess.PIPE)
            kw.setdefault("text", True)
        with interrupt.guarded(self):
            proc = self.popen(which, argv, env=env, **kw)
            try:
                out, err = communicate(proc, timeout, exits)
            except Outlived as done:
                with interrupt.cleaning():
                    self._stop(proc)
                    out, err = _leftover_output(proc)
                return subprocess.CompletedProcess(proc.args, done.code, out, (err or "") + done.note + "\n")
            except subprocess.TimeoutExpired:
                with interrupt.cleaning():
                    self._stop(proc)
                    out, err = _leftover_output(proc)
                raise subprocess.TimeoutExpired(proc.args, timeout, out, err) from None
            except BaseException:
                with interrupt.cleaning():
                    self._stop(proc)
                raise
        done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        if check and done.returncode != 0:
            raise ClusterError(f"{shlex.join([str(a) for a in argv])} on {self.host(which).name} exited "
                               f"{done.returncode}: {(err or '').strip()[-2000:]}")
        return done

    def mpiexec(self, argv, *, ranks_per_host: int = 1, hosts=None, ranks: int | None = None,
                options=(), exits: str | None = None) -> list[str]:
        """The mpiexec command (to run on host 1) placing ``ranks_per_host`` ranks on each of
        ``hosts`` (default: all), by slot, so consecutive ranks share a host. ``exits``: a folder
        where each rank records its exit status as it ends (``rankR.json``, read by ``exec``).
        Each command gets a fresh folder in the cluster's directory for Open MPI's session files
        (``launch.private_session`` says why), removed with the cluster."""
        from ..distributed.launch import find_mpiexec

        chosen = self.hosts if hosts is None else [self.host(x) for x in hosts]
        n = ranks if ranks is not None else ranks_per_host * len(chosen)
        spec = ",".join(f"{h.address}:{ranks_per_host}" for h in chosen)
        if exits is not None:
            argv = ["/bin/sh", "-c", RECORD_EXIT.format(folder=shlex.quote(exits)), "breadth-rank", *argv]
        session = tempfile.mkdtemp(prefix="mpi-", dir=self.directory)
        return [find_mpiexec(), "--prtemca", "prte_tmpdir_base", session, "--host", spec, "-n", str(n),
                "--bind-to", "none", *options, *argv]

    def run(self, argv, *, ranks_per_host: int = 1, hosts=None, ranks: int | None = None, options=(),
            timeout: float = 300, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
        """Run ``argv`` as an MPI job across the hosts (mpiexec on host 1); see ``exec``."""
        cmd = self.mpiexec(argv, ranks_per_host=ranks_per_host, hosts=hosts, ranks=ranks, options=options)
        return self.exec(1, cmd, timeout=timeout, env=env, **kw)

    def pids(self) -> list[int]:
        """Every process running on the cluster's hosts."""
        return sorted(pid for h in self.hosts for pid in netns.pids_in(h.netns))

    def kill_processes(self) -> int:
        """Stop every process on the hosts (the cluster stays up): SIGTERM, SIGKILL after 2 s."""
        with interrupt.cleaning():
            return netns.kill_all([h.netns for h in self.hosts])

    def kill_now(self) -> None:
        """SIGKILL at once every process on the hosts and the sessions ``popen`` started (a second
        Ctrl-C: ``interrupt``)."""
        for proc in self._started:
            if proc.returncode is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
        netns.kill_all([h.netns for h in self.hosts], grace=0)

    def _stop(self, proc: subprocess.Popen) -> None:
        """End a command that ``exec`` gave up waiting for, and everything on the hosts, within bounds."""
        self.kill_processes()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        try:
            proc.wait(timeout=REAP_WAIT)
        except subprocess.TimeoutExpired:
            log.warning("cluster %s: pid %d did not end %g s after SIGKILL", self.name, proc.pid, REAP_WAIT)

    def _check_up(self) -> None:
        if not self.is_up:
            raise ClusterError(f"cluster {self.name} is not up")


REAP_WAIT = 5.0


def host_share(hosts: int) -> int:
    """Cores of each of ``hosts`` namespace hosts: the cores this process may use, divided among
    them, at least one (several hosts then share a core, as ranks beyond a host's cores do)."""
    from ..distributed.runtime import host_cores

    return max(1, host_cores() // max(1, int(hosts)))


def _leftover_output(proc: subprocess.Popen):
    """What a killed command had printed, waiting at most REAP_WAIT s for its pipes to close (a
    process outside the hosts that inherited them could keep them open)."""
    try:
        return proc.communicate(timeout=REAP_WAIT)
    except subprocess.TimeoutExpired:
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        return None, None
