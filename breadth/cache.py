"""Where numba keeps breadth's compiled kernels: a per-user cache directory, set before numba loads.

By default numba caches a kernel in ``__pycache__`` next to its source, and only when that
folder is not writable (a system-wide or read-only install) in its own per-user folder;
a reinstall wipes the first, and the choice depends on the install. breadth instead
points numba at one per-user directory, ``$XDG_CACHE_HOME/breadth/numba`` (``~/.cache``
when XDG_CACHE_HOME is unset), whatever the install, so ``breadth warmup`` fills the cache
every later process reads. ``NUMBA_CACHE_DIR``, when set, wins. When neither is writable
(a user without a home directory) the cache goes to ``breadth-numba-<uid>`` in the
temporary directory.

numba reads ``NUMBA_CACHE_DIR`` when its configuration is first imported, so
``import breadth`` applies this first (``apply_default``), before any module imports numba;
the variable is set in the environment, so MPI ranks and other child processes share
the cache. The setting is process-wide: other numba code of the same process caches there
too. ``APPLIED`` holds what was set.
"""
from __future__ import annotations

import getpass
import os
import sys
import tempfile


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
    preferred = os.path.join(user_cache_root(environ), "breadth", "numba")
    if _writable(preferred):
        return preferred
    uid = os.getuid() if hasattr(os, "getuid") else getpass.getuser()
    fallback = os.path.join(tempfile.gettempdir(), f"breadth-numba-{uid}")
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


APPLIED = apply_default()

# numba colours its error messages with colorama when that is installed, and colorama then
# writes terminal reset codes to stdout, even when stdout is a pipe or a JSON file: off unless
# the user asks for them.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
