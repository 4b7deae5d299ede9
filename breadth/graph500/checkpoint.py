"""Checkpoints of a Graph500 run, so that a run that fails after hours resumes where it stopped.

``Checkpoint(directory, params, resume)`` keeps ``DIRECTORY/graph500-checkpoint.json``:
the run's parameters (scale, edgefactor, number of search keys, seed, validation and
the direction policy), a fingerprint of the graph, and one record per completed
search (its index and root, time, nedge, validation outcome and time, and its summary
with the per-level statistics). The file is rewritten atomically, flushed to disk,
after every search (``breadth.files.atomic_output``), so a crash leaves the previous
complete version.

The fingerprint (``fingerprint``) does not depend on how the graph is laid out:
vertices, distinct edges, the search keys (drawn from the seed among non-isolated
vertices) and which of a seeded sample of vertices are non-isolated, hashed. A run
may thus resume on another number of ranks or another layout; the parameters and the
graph must be the same, or ``start`` refuses with an ``InputError`` naming what differs.

Under MPI only rank 0 reads and writes the file; ``start`` shares what it read with
the other ranks through the engine's ``broadcast`` (an engine without one is a single
process), and makes a refusal collective.
"""
from __future__ import annotations

import hashlib
import json
import os

import numpy as np

from ..errors import InputError
from ..files import atomic_output, json_default

FILE = "graph500-checkpoint.json"
FORMAT = 1
SAMPLE = 4096


def fingerprint(engine, num_vertices: int, roots, graph: dict) -> str:
    """A hash naming the graph independently of its layout (module header). Collective."""
    rng = np.random.default_rng([0x6B9, 0xF1])
    sample = rng.integers(0, num_vertices, size=min(SAMPLE, num_vertices))
    mask = np.packbits(np.asarray(engine.nonisolated(sample), dtype=bool))
    h = hashlib.sha256()
    h.update(json.dumps({"vertices": int(graph.get("vertices", num_vertices)), "edges": int(graph.get("edges", -1)),
                         "roots": [int(r) for r in roots]}).encode())
    h.update(mask.tobytes())
    return h.hexdigest()[:32]


class Checkpoint:
    """The checkpoint file of one run (module header). ``writer``: this process writes (rank 0)."""

    def __init__(self, directory: str, params: dict, resume: bool = False, writer: bool = True):
        self.directory = os.fspath(directory)
        self.path = os.path.join(self.directory, FILE)
        self.params = dict(params)
        self.resume = bool(resume)
        self.writer = bool(writer)
        self.fingerprint = None
        self.records: dict[int, dict] = {}

    def prepare(self, engine=None) -> None:
        """Before any work: refuse a directory that cannot hold the checkpoint, a fresh run over an
        existing checkpoint, or ``--resume`` without one. Collective when ``engine`` has ``broadcast``."""
        self._agreed(engine, self._check_directory)

    def start(self, fingerprint_: str, engine=None) -> dict[int, dict]:
        """Load (on resume) and check the file against this run; returns the completed searches by index.
        Collective when ``engine`` has ``broadcast``."""
        self.fingerprint = fingerprint_
        value = self._agreed(engine, self._load if self.resume else dict)
        self.records = {int(k): v for k, v in value.items()}
        if self.writer and not self.resume:
            self._write()
        return self.records

    def _agreed(self, engine, fn):
        """``fn()`` on the writer, its value (or its InputError, raised collectively) on every process."""
        payload = None
        if self.writer:
            try:
                payload = ("ok", fn())
            except InputError as exc:
                payload = ("error", str(exc))
        share = getattr(engine, "broadcast", None)
        if share is not None:
            payload = share(payload)
        status, value = payload
        if status == "error":
            if share is None:
                raise InputError(value)
            from ..distributed.runtime import collective_error

            raise collective_error(InputError(value))
        return value

    def _check_directory(self) -> None:
        if not os.path.isdir(self.directory):
            if os.path.exists(self.directory):
                raise InputError(f"--checkpoint {self.directory}: not a directory")
            if self.resume:
                raise InputError(f"--resume: {self.directory} does not exist (nothing to resume)")
            try:
                os.makedirs(self.directory)
            except OSError as exc:
                raise InputError(f"--checkpoint {self.directory}: {exc.strerror}") from None
        exists = os.path.exists(self.path)
        if self.resume and not exists:
            raise InputError(f"--resume: {self.path} does not exist (nothing to resume)")
        if not self.resume and exists:
            raise InputError(f"--checkpoint {self.directory} already holds a run ({FILE}); add --resume to "
                             f"continue it, or remove it to start again")

    def record(self, index: int, entry: dict) -> None:
        """Add completed search ``index`` and rewrite the file (rank 0; others only remember it)."""
        self.records[int(index)] = entry
        if self.writer:
            self._write()

    def _load(self) -> dict:
        try:
            with open(self.path) as f:
                data = json.load(f)
        except OSError as exc:
            raise InputError(f"--resume: cannot read {self.path}: {exc.strerror}") from None
        except ValueError as exc:
            raise InputError(f"--resume: {self.path} is not a breadth checkpoint ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or "params" not in data:
            raise InputError(f"--resume: {self.path} is not a breadth Graph500 checkpoint of format {FORMAT}")
        theirs = data["params"]
        diff = [f"{k} {theirs.get(k)!r} there, {v!r} here" for k, v in self.params.items() if theirs.get(k) != v]
        if diff:
            raise InputError(f"--resume: {self.path} belongs to a run with other parameters: " + "; ".join(diff))
        if data.get("fingerprint") != self.fingerprint:
            raise InputError(f"--resume: {self.path} was written for another graph (fingerprint "
                             f"{data.get('fingerprint')}, this graph {self.fingerprint}): same parameters but "
                             f"a different generator or input")
        return data.get("searches", {})

    def _write(self) -> None:
        data = {"format": FORMAT, "params": self.params, "fingerprint": self.fingerprint,
                "searches": {str(k): v for k, v in sorted(self.records.items())}}
        with atomic_output(self.path, "w", fsync=True) as f:
            json.dump(data, f, default=json_default)
            f.write("\n")
