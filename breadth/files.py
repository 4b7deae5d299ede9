"""Atomic file output, the one implementation every layer uses (graph files, results, checkpoints,
CLI reports, plots).

``atomic_output(path)`` opens a temporary file in the target's directory and,
when the ``with`` block ends normally, renames it over ``path``
(``os.replace``, atomic on POSIX); when the block raises, the temporary file is
removed. So a reader never sees a partial file and an error never leaves one
behind. The temporary name is ``.<name>.<random>.tmp`` (``TEMP_NAME`` matches
it), so debris of a killed process is recognisable. ``fsync=True`` flushes the
data to disk before the rename (checkpoints, which must survive a crash of the
machine, not only of the process).

Errors: a ``path`` that is a directory or lies in a missing directory, a folder
where no file can be created (named, with the reason: ``folder_error``), and any
``OSError`` while writing, become ``InputError`` naming the file (``os_error``),
unless ``on_error`` builds another exception from the path and the ``OSError``.
``check_writable`` makes the same checks before a command starts its work.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile

from .errors import InputError

TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]+\.tmp$")


def os_error(path, exc: OSError) -> InputError:
    """An OSError as a one-line InputError naming ``path``."""
    reason = exc.strerror or str(exc)
    return InputError(f"{path}: {reason.lower() if reason else 'I/O error'}")


def folder_error(path, directory, exc: OSError) -> InputError:
    """A file that cannot be created in ``directory``: the folder and the reason, in one line."""
    reason = (exc.strerror or str(exc) or "I/O error").lower()
    if exc.errno == errno.ENOENT:          # the folder exists (checked before) but takes no new files (/proc)
        reason = f"the folder takes no new files ({reason})"
    return InputError(f"{path}: cannot create a file in the folder {directory}: {reason}")


def _temp_in(path, directory):
    """(fd, name) of a new temporary file beside ``path``, or InputError naming the folder."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, cannot write a file there")
    if not os.path.isdir(directory):
        raise InputError(f"{path}: directory {directory} does not exist")
    try:
        return tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise folder_error(path, directory, exc) from None


def check_writable(path) -> None:
    """InputError (naming the folder and the reason) unless a file can be written at ``path``: what a
    command checks before its work, so that a bad output name costs no time."""
    path = os.fspath(path)
    fd, tmp = _temp_in(path, os.path.dirname(os.path.abspath(path)))
    os.close(fd)
    _unlink(tmp)


@contextlib.contextmanager
def atomic_output(path, mode: str = "wb", *, fsync: bool = False, on_error=os_error):
    """Yield a file object writing to a temporary file that replaces ``path`` on success."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = _temp_in(path, directory)
    try:
        with os.fdopen(fd, mode) as f:
            yield f
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        _unlink(tmp)
        raise on_error(path, exc) from None
    except BaseException:
        _unlink(tmp)
        raise


def _umask() -> int:
    """The process umask: read from /proc where the kernel reports it (no change of state, so no race
    with other threads), else by setting and restoring it."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0)
    os.umask(old)
    return old


def _unlink(p) -> None:
    try:
        os.unlink(p)
    except OSError:
        pass


def json_default(o):
    """``json.dump``'s ``default`` for numpy scalars and arrays (the one JSON conversion every writer uses)."""
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
