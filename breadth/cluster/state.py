"""Which namespace clusters exist, who owns them, and removing them.

A cluster ``NAME`` is the namespaces ``breadth-NAME-*`` plus the directory
``/run/breadth-cluster/NAME`` (its ``state.json``, launch agent and hostfile).
The state is written before the first namespace is made and removed after the
last is gone, so a crash in between leaves something ``sweep`` recognises.
``state.json`` names the owner process (pid and start time, so a reused pid does
not count) unless the cluster was made to outlive its maker (``breadth cluster
up``); ``sweep`` removes the clusters whose owner is dead and namespaces left
without any state.
"""
from __future__ import annotations

import json
import logging
import os
import re
import shutil

from .netns import ClusterError, delete_namespace, kill_all, namespaces

log = logging.getLogger("breadth.cluster")

STATE_DIR = os.environ.get("BREADTH_CLUSTER_STATE", "/run/breadth-cluster")
NS_PREFIX = "breadth-"
NAME = re.compile(r"^[a-z0-9]{1,16}$")


def check_name(name: str) -> str:
    if not NAME.match(name or ""):
        raise ClusterError(f"bad cluster name {name!r}: 1 to 16 lower-case letters and digits")
    return name


def state_dir(name: str) -> str:
    return os.path.join(STATE_DIR, name)


def namespaces_of(name: str) -> list[str]:
    return [ns for ns in namespaces() if ns.startswith(f"{NS_PREFIX}{name}-")]


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def owner_token(pid: int | None = None) -> dict:
    pid = os.getpid() if pid is None else pid
    return {"pid": pid, "start": start_time(pid)}


def owner_alive(owner: dict | None) -> bool:
    """A cluster without an owner (made to outlive its maker) counts as alive."""
    if not owner:
        return True
    return start_time(owner["pid"]) == owner["start"]


def claim(name: str, state: dict) -> None:
    """Create cluster ``name``'s state directory with ``state`` in one rename (never half-made);
    ClusterError if the name is taken."""
    os.makedirs(STATE_DIR, exist_ok=True)
    tmp = os.path.join(STATE_DIR, f".{name}.{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with open(os.path.join(tmp, "state.json"), "w") as f:
        json.dump(state, f, indent=1)
    try:
        if namespaces_of(name):
            raise OSError("namespaces exist")
        os.rename(tmp, state_dir(name))
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ClusterError(f"cluster {name} exists already: 'breadth cluster down {name}' removes it") from None


def write_state(name: str, state: dict) -> None:
    d = state_dir(name)
    tmp = os.path.join(d, "state.json.tmp")
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1)
    os.replace(tmp, os.path.join(d, "state.json"))


def read_state(name: str) -> dict | None:
    try:
        with open(os.path.join(state_dir(name), "state.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def known() -> list[str]:
    """Names of every cluster with state or namespaces."""
    names = set()
    if os.path.isdir(STATE_DIR):
        names.update(n for n in os.listdir(STATE_DIR) if NAME.match(n))
    for ns in namespaces():
        if ns.startswith(NS_PREFIX):
            head = ns[len(NS_PREFIX):].split("-", 1)[0]
            if NAME.match(head):
                names.add(head)
    return sorted(names)


def teardown(name: str) -> int:
    """Stop every process in cluster ``name``'s namespaces, delete them and its state; returns
    how many processes were stopped."""
    nss = namespaces_of(name)
    killed = kill_all(nss)
    errors = []
    for ns in nss:
        try:
            delete_namespace(ns)
        except ClusterError as exc:
            errors.append(str(exc))
    if errors:
        raise ClusterError("; ".join(errors))
    shutil.rmtree(state_dir(name), ignore_errors=True)
    return killed


def stale() -> list[str]:
    """Clusters whose owner process is gone (or whose state is missing)."""
    out = []
    for name in known():
        state = read_state(name)
        if state is None or not owner_alive(state.get("owner")):
            out.append(name)
    return out


def sweep() -> list[str]:
    """Tear down every stale cluster (a dead run's), and the namespaces ``probe.available`` makes
    if its process died before removing it; returns the clusters' names."""
    for ns in namespaces():
        head, _, pid = ns.partition("-")
        if head == "bprobe" and pid.isdigit() and start_time(int(pid)) is None:
            delete_namespace(ns)
    removed = []
    for name in stale():
        state = read_state(name)
        if state is not None and owner_alive(state.get("owner")):
            continue                      # taken over in the meantime
        log.info("removing stale cluster %s", name)
        teardown(name)
        removed.append(name)
    return removed
