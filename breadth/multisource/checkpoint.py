"""Checkpoints of long many-source runs: one file per finished group, written atomically.

Layout of a checkpoint directory::

    manifest.json        the run's fingerprint (graph hash, sources, groups, W, ...)
    group-000042.npz     one finished group (histogram, level statistics, depths if kept)

A group file is written to a temporary name, flushed to disk and renamed into
place (``breadth.files.atomic_output`` with ``fsync``), so a run killed at any
moment leaves only whole group files behind; the temporary files it may leave
are removed when the run resumes.
Restarted with the same arguments, a run loads the finished groups and
computes only the rest, which gives the identical result. A directory holding
another run's manifest is refused rather than mixed.
"""
from __future__ import annotations

import json
import os
import re

import numpy as np

from ..errors import InputError
from ..files import TEMP_NAME, atomic_output
from .results import GroupResult

MANIFEST = "manifest.json"
_GROUP = re.compile(r"^group-(\d{6,})\.npz$")
_OLD_PARTIAL = re.compile(r"^group-\d{6,}\.npz\.tmp\d+$")     # temporary names of earlier versions


def _cannot_write(what: str):
    """``atomic_output``'s ``on_error``: the message names the checkpoint file."""
    return lambda path, exc: InputError(f"cannot write {what}{path}: {exc.strerror or exc}")


class Checkpoint:
    """A checkpoint directory bound to one run's fingerprint."""

    def __init__(self, directory, fingerprint: dict):
        self.directory = os.fspath(directory)
        if os.path.exists(self.directory) and not os.path.isdir(self.directory):
            raise InputError(f"checkpoint {self.directory} exists and is not a directory")
        try:
            os.makedirs(self.directory, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create checkpoint directory {self.directory}: "
                             f"{exc.strerror or exc}") from None
        path = os.path.join(self.directory, MANIFEST)
        fingerprint = json.loads(json.dumps(fingerprint))
        if os.path.exists(path):
            try:
                with open(path) as f:
                    found = json.load(f)
            except (OSError, ValueError) as exc:
                raise InputError(f"checkpoint {path} is unreadable ({exc}); remove it or use another "
                                 f"directory") from None
            if found != fingerprint:
                diff = sorted(k for k in set(found) | set(fingerprint) if found.get(k) != fingerprint.get(k))
                raise InputError(f"checkpoint {self.directory} belongs to another run (differs in "
                                 f"{', '.join(diff)}); use a new directory or the original arguments")
            self._remove_partial()
        else:
            text = json.dumps(fingerprint, indent=2, sort_keys=True).encode()
            with atomic_output(path, fsync=True, on_error=_cannot_write("")) as f:
                f.write(text)

    def _remove_partial(self) -> None:
        """Drop temporary files a killed run left half-written (never valid group files)."""
        for name in os.listdir(self.directory):
            if _OLD_PARTIAL.match(name) or TEMP_NAME.match(name):
                try:
                    os.unlink(os.path.join(self.directory, name))
                except OSError:
                    pass

    def _path(self, gi: int) -> str:
        return os.path.join(self.directory, f"group-{gi:06d}.npz")

    def done(self) -> list[int]:
        """Indices of the groups already finished, ascending."""
        found = []
        for name in os.listdir(self.directory):
            m = _GROUP.match(name)
            if m:
                found.append(int(m.group(1)))
        return sorted(found)

    def load(self, gi: int) -> GroupResult:
        path = self._path(gi)
        try:
            with np.load(path, allow_pickle=False) as a:
                res = GroupResult.from_arrays({k: a[k] for k in a.files})
        except (OSError, ValueError, KeyError) as exc:
            raise InputError(f"checkpoint file {path} is damaged ({exc}); delete it to recompute "
                             f"that group") from None
        if res.index != gi:
            raise InputError(f"checkpoint file {path} holds group {res.index}, expected {gi}")
        return res

    def save(self, result: GroupResult) -> None:
        with atomic_output(self._path(result.index), fsync=True, on_error=_cannot_write("checkpoint ")) as f:
            np.savez(f, **result.arrays())
