"""The launch agent: what Open MPI runs instead of ssh to start a command on a namespace host.

``AGENT HOST COMMAND...`` (ssh's calling convention; leading ``-options`` are
ignored) runs COMMAND with ``/bin/sh -c`` inside HOST's network namespace, in a new
UTS namespace carrying the host's hostname and a new mount namespace with a
private tmpfs on ``/dev/shm``: Open MPI's daemons tell hosts apart by hostname and
meet in ``/dev/shm``, so without both they fail. HOST is the host's address or
name. An unknown host, or one whose namespace is gone, exits 255 as ssh does
for a host it cannot reach. Per-host environment variables are exported before
COMMAND runs (a host can be given another PYTHONPATH, for instance).

The agent is a shell script written into the cluster's state directory, so that
it starts in milliseconds and needs nothing but ``nsenter``/``unshare``.
"""
from __future__ import annotations

import shlex
import shutil

from .netns import NETNS_DIR, ClusterError

_TEMPLATE = """#!/bin/sh
# Launch agent of breadth namespace cluster {name} (Open MPI's plm_ssh_agent), written by breadth.cluster.
while [ $# -gt 0 ]; do case "$1" in -*) shift;; *) break;; esac; done
host="$1"; shift
case "$host" in
{cases}
  *) echo "breadth cluster {name}: ssh: Could not resolve hostname $host: no such host in the cluster" >&2
     exit 255;;
esac
if [ ! -e "{netns_dir}/$ns" ]; then
  echo "breadth cluster {name}: ssh: connect to host $host: host is down (no namespace $ns)" >&2
  exit 255
fi
exec {nsenter} --net="{netns_dir}/$ns" -- {unshare} --uts --mount --propagation private -- /bin/sh -c \\
  'hostname "$1" && mount -t tmpfs -o mode=1777 tmpfs /dev/shm && shift && exec /bin/sh -c "$*"' \\
  agent "$hostname" "$@"
"""


def tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
    if not found:
        raise ClusterError(f"the namespace cluster needs '{name}' (util-linux / iproute2)")
    return found


def render(name: str, hosts, env: dict[int, dict[str, str]]) -> str:
    """The agent script of cluster ``name`` for ``hosts`` (``Host`` records); ``env``: host index ->
    variables exported on that host."""
    cases = []
    for h in hosts:
        exports = "".join(f"\n     export {k}={shlex.quote(str(v))}" for k, v in sorted(env.get(h.index, {}).items()))
        cases.append(f"  {h.address}|{h.name}) ns={shlex.quote(h.netns)}; hostname={shlex.quote(h.name)}{exports};;")
    return _TEMPLATE.format(name=name, cases="\n".join(cases), netns_dir=NETNS_DIR,
                            nsenter=tool("nsenter"), unshare=tool("unshare"))
