"""Network namespaces, links and bandwidth caps through ``ip`` and ``tc`` (iproute2).

Every function takes namespace names and runs one command with a timeout; a
failure raises ``ClusterError`` naming the command and what it printed. The
processes inside a namespace are found by comparing ``/proc/PID/ns/net`` with the
namespace's file under ``/run/netns`` (what ``ip netns pids`` does), without a
subprocess.
"""
from __future__ import annotations

import ipaddress
import logging
import os
import re
import signal
import subprocess
import time

from ..errors import BreadthError

log = logging.getLogger("breadth.cluster")

NETNS_DIR = "/run/netns"
LOOPBACK = ipaddress.ip_network("127.0.0.0/8")
COMMAND_TIMEOUT = 30


class ClusterError(BreadthError):
    """The namespace cluster could not be set up, used or torn down."""


def sh(*argv: str, timeout: float = COMMAND_TIMEOUT, check: bool = True) -> subprocess.CompletedProcess:
    """Run one command (``ip``, ``tc``, ...); raise ClusterError when it fails and ``check``."""
    try:
        proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ClusterError(f"{' '.join(argv)}: {exc}") from None
    if check and proc.returncode != 0:
        raise ClusterError(f"{' '.join(argv)}: {(proc.stderr or proc.stdout).strip() or f'exit {proc.returncode}'}")
    return proc


def in_ns(ns: str, *argv: str, **kw) -> subprocess.CompletedProcess:
    return sh("ip", "netns", "exec", ns, *argv, **kw)


def check_loopback(address: str) -> None:
    """Refuse any address outside 127.0.0.0/8: cluster traffic must never leave the machine."""
    if ipaddress.ip_address(address) not in LOOPBACK:
        raise ClusterError(f"address {address} is not in the loopback range 127.0.0.0/8")


def namespaces() -> list[str]:
    try:
        return sorted(os.listdir(NETNS_DIR))
    except FileNotFoundError:
        return []


def add_namespace(ns: str) -> None:
    sh("ip", "netns", "add", ns)
    sh("ip", "-n", ns, "link", "set", "lo", "up")


def add_bridge(ns: str, bridge: str) -> None:
    sh("ip", "-n", ns, "link", "add", bridge, "type", "bridge")
    sh("ip", "-n", ns, "link", "set", bridge, "up")


def add_host_link(host_ns: str, iface: str, switch_ns: str, port: str, bridge: str, address: str,
                  prefixlen: int) -> None:
    """A veth pair created directly in its two namespaces (no name ever appears in the root
    namespace): ``iface`` in the host with ``address``, ``port`` on the switch's bridge."""
    check_loopback(address)
    sh("ip", "link", "add", "name", iface, "netns", host_ns, "type", "veth", "peer", "name", port,
       "netns", switch_ns)
    sh("ip", "-n", switch_ns, "link", "set", port, "master", bridge)
    sh("ip", "-n", switch_ns, "link", "set", port, "up")
    # 127/8 addresses are "martian" on a non-loopback interface unless route_localnet allows them
    in_ns(host_ns, "sysctl", "-q", "-w", "net.ipv4.conf.all.route_localnet=1",
          "net.ipv4.conf.default.route_localnet=1", f"net.ipv4.conf.{iface}.route_localnet=1",
          "net.ipv4.conf.lo.route_localnet=1")
    sh("ip", "-n", host_ns, "addr", "add", f"{address}/{prefixlen}", "dev", iface)
    sh("ip", "-n", host_ns, "link", "set", iface, "up")


def set_link(ns: str, iface: str, up: bool) -> None:
    sh("ip", "-n", ns, "link", "set", iface, "up" if up else "down")


RATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(bit|bps|b)?(?:/s)?\s*$", re.IGNORECASE)
_SCALE = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}


def parse_rate(rate) -> int:
    """Bits per second from an int or text such as '1gbit', '200mbit', '1.5g', '800000'."""
    if isinstance(rate, int) and not isinstance(rate, bool):
        bits = rate
    else:
        m = RATE.match(str(rate))
        if not m or (m.group(3) or "bit").lower() not in ("bit", "b"):
            raise ClusterError(f"bad rate {rate!r}: give bits per second, e.g. 1gbit, 200mbit, 800000")
        bits = int(float(m.group(1)) * _SCALE[m.group(2).lower()])
    if bits < 8000:
        raise ClusterError(f"rate {rate!r} is below 8 kbit/s")
    return bits


# The token bucket: 1 ms of traffic, at least two full-size frames (tbf cuts larger GSO packets
# into frames), so that the bytes a host sends after an idle spell pass at the cap, not at memory
# speed (a 64 KiB bucket let a whole level's exchange through uncapped at a few Mbit/s). The queue
# holds half a second of traffic, at least 256 KiB: TCP's bursts wait instead of being dropped (a
# drop costs a retransmission timeout of 200 ms or more).
MIN_BURST = 3028
MIN_QUEUE = 256 * 1024


def tbf_params(bits_per_s: int) -> tuple[int, int]:
    """(burst, queue limit) in bytes of the cap at ``bits_per_s`` (see above)."""
    per_s = bits_per_s // 8
    return max(MIN_BURST, per_s // 1000), max(MIN_QUEUE, per_s // 2)


def set_rate(ns: str, iface: str, bits_per_s: int | None) -> None:
    """Cap ``iface``'s egress with a token bucket (``tbf``), or remove the cap (None)."""
    sh("tc", "-n", ns, "qdisc", "del", "dev", iface, "root", check=False)
    if bits_per_s is None:
        return
    burst, limit = tbf_params(bits_per_s)
    sh("tc", "-n", ns, "qdisc", "add", "dev", iface, "root", "tbf", "rate", f"{bits_per_s}bit",
       "burst", str(burst), "limit", str(limit))


def pids_in(ns: str) -> list[int]:
    """Processes whose network namespace is ``ns``."""
    return pids_in_any([ns])


def pids_in_any(nss) -> list[int]:
    """Processes whose network namespace is one of ``nss`` (one pass over /proc)."""
    wanted = set()
    for ns in nss:
        try:
            st = os.stat(os.path.join(NETNS_DIR, ns))
        except FileNotFoundError:
            continue
        wanted.add((st.st_ino, st.st_dev))
    if not wanted:
        return []
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            other = os.stat(f"/proc/{entry}/ns/net")
        except OSError:
            continue
        if (other.st_ino, other.st_dev) in wanted:
            found.append(int(entry))
    return found


KILL_ROUNDS = 50


def kill_all(nss: list[str], grace: float = 2.0) -> int:
    """SIGTERM every process in the namespaces, SIGKILL what is left after ``grace`` seconds (at
    once when ``grace`` is 0), repeated for processes started meanwhile, at most ``KILL_ROUNDS``
    rounds of 50 ms; returns how many processes there were."""
    victims = set(pids_in_any(nss))
    count = len(victims)
    if grace > 0:
        for pid in victims:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while victims and time.monotonic() < deadline:
            time.sleep(0.05)
            victims = set(pids_in_any(nss))
    for _ in range(KILL_ROUNDS):
        if not victims:
            break
        for pid in victims:
            _signal(pid, signal.SIGKILL)
        time.sleep(0.05)
        victims = set(pids_in_any(nss))
    return count


def _signal(pid: int, sig) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def delete_namespace(ns: str) -> None:
    """Delete ``ns`` (its veth ends and bridge go with it once no process holds it); absent is fine.
    What ``ip netns del`` does (detach the bind mount, remove the file), in this process: no
    command to start on a loaded machine; ``ip netns del`` where libc cannot be called."""
    path = os.path.join(NETNS_DIR, ns)
    if not os.path.exists(path):
        return
    if _umount_detach(path):
        try:
            os.unlink(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            pass
    proc = sh("ip", "netns", "del", ns, check=False)
    if proc.returncode != 0 and ns in namespaces():
        raise ClusterError(f"ip netns del {ns}: {proc.stderr.strip()}")


MNT_DETACH = 2


def _umount_detach(path: str) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.umount2(os.fsencode(path), MNT_DETACH) == 0
    except (OSError, AttributeError):
        return False
