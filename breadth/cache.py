"""Where numba keeps breadth's compiled kernels: a per-user cache directory, set before numba loads.

By default numba caches a kernel in ``__pycache__`` next to its source, and only when that
folder is not writable (a system-wide or read-only install) in its own per-user folder;
a reinstall wipes the first, and the choice depends on the install. breadth instead
points numba at one per-user directory, ``$XDG_CACHE_HOME/breadth/numba`` (``~/.cache``
when XDG_CACHE_HOME is unset), whatever the install, so ``breadth warmup`` fills the cache
every later process reads. ``NUMBA_CACHE_DIR``, when set, wins. When neither is writable
(a user without a home directory) the cache goes to ``breadth-numba-<uid>`` in the
temporary directory.

Inside that folder each version of breadth's sources has a folder of its own, named by a hash
of their contents (``source_tag``). numba checks only the time stamp of a kernel's own file
before it loads the cached copy, so a kernel whose callee moved to another module (an upgrade,
a ``git pull``) would load a copy that names the old module and fail; a new tag compiles anew.
``prune`` removes the folders of other versions once they are a week old.

numba reads ``NUMBA_CACHE_DIR`` when its configuration is first imported, so
``import breadth`` applies this first (``apply_default``), before any module imports numba;
the variable is set in the environment, so MPI ranks and other child processes share
the cache. The setting is process-wide: other numba code of the same process caches there
too. ``APPLIED`` holds what was set.
"""
from __future__ import annotations

import getpass
import hashlib
import os
import shutil
import sys
import tempfile
import time

PACKAGE = os.path.dirname(os.path.abspath(__file__))
STALE_SECONDS = 7 * 24 * 3600     # another version's cache folder unused this long is pruned


def source_tag(package: str = PACKAGE) -> str:
    """A hash of every ``.py`` file of the package (names and bytes): the cache folder of this version."""
    digest = hashlib.sha1()
    for folder, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, package).encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(f.read())
    return "src-" + digest.hexdigest()[:12]


def user_cache_root(environ=os.environ) -> str:
    """The platform's per-user cache folder (XDG on Linux, Library/Caches on macOS, LOCALAPPDATA on Windows)."""
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Caches")
    if os.name == "nt":
        return environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
    return environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def default_cache_dir(environ=os.environ) -> str:
    """breadth's choice of numba cache folder, the first writable of: the user cache, the temp folder."""
    tag = source_tag()
    preferred = os.path.join(user_cache_root(environ), "breadth", "numba", tag)
    if _writable(preferred):
        return preferred
    uid = os.getuid() if hasattr(os, "getuid") else getpass.getuser()
    fallback = os.path.join(tempfile.gettempdir(), f"breadth-numba-{uid}", tag)
    return fallback if _writable(fallback) else preferred


def apply_default(environ=os.environ) -> dict:
    """Set ``NUMBA_CACHE_DIR`` to ``default_cache_dir()`` unless the user set it; returns what was set."""
    if environ.get("NUMBA_CACHE_DIR"):
        return {}
    path = default_cache_dir(environ)
    environ["NUMBA_CACHE_DIR"] = path
    config = sys.modules.get("numba.core.config")
    if config is not None and environ is os.environ:
        config.CACHE_DIR = path       # numba was imported before breadth: its config read the old value
    return {"NUMBA_CACHE_DIR": path}


def cache_dir() -> str:
    """The folder numba caches compiled kernels in for this process."""
    config = sys.modules.get("numba.core.config")
    if config is not None and config.CACHE_DIR:
        return config.CACHE_DIR
    return os.environ.get("NUMBA_CACHE_DIR") or default_cache_dir()


def prune(path: str | None = None, now: float | None = None) -> list:
    """Remove the folders beside ``path`` (default: this process's cache) that no process has
    written for ``STALE_SECONDS``: other versions' caches, and numba's folders from before the
    caches had versions; returns the removed paths. Only a tagged ``src-*`` folder is pruned
    around: beside a user's own ``NUMBA_CACHE_DIR`` nothing is touched."""
    path = path or cache_dir()
    parent, own = os.path.split(os.path.normpath(path))
    if not own.startswith("src-"):
        return []
    now = time.time() if now is None else now
    removed = []
    for name in sorted(os.listdir(parent)):
        other = os.path.join(parent, name)
        if name == own or not os.path.isdir(other):
            continue
        newest = max((os.path.getmtime(os.path.join(d, f)) for d, _, fs in os.walk(other) for f in fs),
                     default=os.path.getmtime(other))
        if now - newest > STALE_SECONDS:
            shutil.rmtree(other, ignore_errors=True)
            removed.append(other)
    return removed


APPLIED = apply_default()

# numba colours its error messages with colorama when that is installed, and colorama then
# writes terminal reset codes to stdout, even when stdout is a pipe or a JSON file: off unless
# the user asks for them.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
