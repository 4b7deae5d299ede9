"""Whether this machine can make namespace clusters, and if not, why."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess


@functools.lru_cache(maxsize=1)
def available() -> str | None:
    """None when namespace clusters work here, else the reason in one line."""
    if not hasattr(os, "geteuid") or not os.path.isdir("/proc"):
        return "namespace clusters need Linux"
    if os.geteuid() != 0:
        return "namespace clusters need root (creating network namespaces needs CAP_SYS_ADMIN)"
    for tool in ("ip", "tc", "nsenter", "unshare"):
        if not (shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin:/bin")):
            return f"namespace clusters need '{tool}' (iproute2 / util-linux)"
    probe = f"bprobe-{os.getpid()}"
    try:
        made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=20)
        if made.returncode != 0:
            return f"'ip netns add' fails here: {made.stderr.strip()}"
        inside = subprocess.run(["ip", "netns", "exec", probe, "unshare", "--uts", "--mount", "true"],
                                capture_output=True, text=True, timeout=20)
        if inside.returncode != 0:
            return f"cannot make UTS/mount namespaces here: {inside.stderr.strip()}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"'ip netns' fails here: {exc}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=20)
    return None
