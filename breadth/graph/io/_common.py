"""Shared plumbing of the graph readers and writers.

Opening input files with clear errors (missing file, directory, unreadable),
(gzip-compressed) atomic output streams (``breadth.files.atomic_output``: a
temporary file renamed into place, so an error never leaves a partial file
behind), naming the stage on a progress bar and the read summary (``ReadStats``).
"""
from __future__ import annotations

import contextlib
import gzip
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError
from ...files import atomic_output

GZIP_MAGIC = b"\x1f\x8b"
CHUNK_BYTES = 1 << 26          # 64 MiB: unit of streamed reading and writing


# ---------------------------------------------------------------- input files
def check_input(path) -> str:
    """Return ``path`` as str after checking it names a readable regular file."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, expected a graph file")
    if not os.access(path, os.R_OK):
        raise InputError(f"{path}: permission denied")
    return path


def empty_error(path) -> InputError:
    """The error of a graph file without a vertex, where one was not allowed."""
    return InputError(f"{path}: no edges and no vertices (an empty graph); --allow-empty (allow_empty=True) "
                      "reads it as one")


def is_gzip(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == GZIP_MAGIC


@contextlib.contextmanager
def open_binary(path: str, gz: bool):
    """Yield (stream, raw) where ``stream`` reads the (decompressed) bytes and ``raw.tell()``
    is the position in the file on disk (what progress bars count)."""
    raw = open(path, "rb")
    try:
        if gz:
            stream = gzip.GzipFile(fileobj=raw, mode="rb")
            try:
                yield stream, raw
            finally:
                stream.close()
        else:
            yield raw, raw
    finally:
        raw.close()


def read_fully(stream, mv) -> int:
    """readinto until ``mv`` is full or the stream ends; returns bytes read."""
    got = 0
    while got < len(mv):
        n = stream.readinto(mv[got:])
        if not n:
            break
        got += n
    return got


def gzip_error(path, exc) -> InputError:
    return InputError(f"{path}: corrupt or truncated gzip data ({exc})")


# ---------------------------------------------------------------- output files
@contextlib.contextmanager
def output_stream(path, gz: bool):
    """Atomic binary output, gzip-compressed when ``gz``."""
    with atomic_output(path) as f:
        if gz:
            with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0) as z:
                yield z
        else:
            yield f


# ---------------------------------------------------------------- progress (bars: breadth.progress)
def show_stage(bar, name: str, t0: float, expect_slow: bool) -> None:
    """Name the stage on the bar; force it onto the screen when the read is already slow."""
    if getattr(bar, "disable", True):
        return
    bar.set_description_str(name, refresh=False)
    if expect_slow or time.perf_counter() - t0 > 1.0:
        bar.refresh()


# ---------------------------------------------------------------- summary
@dataclass
class ReadStats:
    """What reading one graph file did; ``summary()`` is the one-line report.

    Attributes:
        path: the file.
        format: the format it was read as.
        file_bytes: the file's size.
        tuples: edge records read from the file.
        vertices: the graph's vertex count.
        edges: the graph's edge count.
        directed: whether the graph is directed.
        self_loops: self-loops removed.
        duplicates: duplicate edges removed.
        max_degree: the largest out- or in-degree.
        max_out_degree: the largest out-degree.
        max_in_degree: the largest in-degree (for an undirected graph, the degree again).
        seconds: the read's wall time.
        relabelled: whether the ids were relabelled.
        memory_mapped: whether the arrays were memory-mapped (native files).
        notes: what the reader noticed (skipped header lines, ...).

    Examples:
        >>> from breadth.graph.io import read_with_stats
        >>> np.savetxt("path.txt", [[0, 1], [1, 2], [2, 3]], fmt="%d")
        >>> stats = read_with_stats("path.txt")[1]
        >>> stats.format, stats.vertices, stats.edges, stats.max_degree
        ('edgelist', 4, 3, 2)
    """

    path: str
    format: str
    file_bytes: int = 0
    tuples: int = 0              # edge records read from the file
    vertices: int = 0
    edges: int = 0
    directed: bool = False
    self_loops: int = 0          # removed
    duplicates: int = 0          # removed
    max_degree: int = 0          # the largest out- or in-degree
    max_out_degree: int = 0
    max_in_degree: int = 0
    seconds: float = 0.0
    relabelled: bool = False
    memory_mapped: bool = False
    notes: list = field(default_factory=list)

    @property
    def mb_per_s(self) -> float | None:
        """Reading speed: file megabytes per second; None for a memory-mapped file (nothing was read)."""
        if self.memory_mapped:
            return None
        return self.file_bytes / 1e6 / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict:
        """Every statistic and note, JSON-ready.

        Returns:
            A dict of every field, with ``mb_per_s``.
        """
        d = dict(self.__dict__)
        d["notes"] = list(self.notes)
        d["mb_per_s"] = None if self.mb_per_s is None else round(self.mb_per_s, 3)
        return d

    def degree_text(self) -> str:
        """The degree maxima as the summaries print them.

        Returns:
            "max degree D", or for a directed graph "max out-degree D, max in-degree E".

        Examples:
            >>> from breadth.graph.io import read_with_stats
            >>> np.savetxt("star.txt", [[0, 1], [0, 2]], fmt="%d")
            >>> read_with_stats("star.txt", directed=True)[1].degree_text()
            'max out-degree 2, max in-degree 1'
        """
        if self.directed:
            return f"max out-degree {self.max_out_degree:,}, max in-degree {self.max_in_degree:,}"
        return f"max degree {self.max_degree:,}"

    def summary(self) -> str:
        """The one-line summary the reader logs (vertices, edges, removals, speed).

        Returns:
            The line, e.g. ``path.txt [edgelist]: 4 vertices, 3 edges (undirected), ...``.
        """
        kind = "directed" if self.directed else "undirected"
        parts = [f"{self.vertices:,} vertices", f"{self.edges:,} edges ({kind})"]
        if self.memory_mapped:
            parts.append("memory-mapped")
        else:
            parts += [f"{self.self_loops:,} self-loops removed", f"{self.duplicates:,} duplicates removed"]
        parts.append(self.degree_text())
        if self.relabelled:
            parts.append("ids relabelled")
        parts.append(f"{self.seconds:.2f} s")
        if not self.memory_mapped:
            parts.append(f"{self.mb_per_s:.1f} MB/s")
        return f"{os.path.basename(self.path)} [{self.format}]: " + ", ".join(parts)


def finish_stats(stats: ReadStats, graph, t0: float) -> ReadStats:
    stats.vertices = graph.num_vertices
    stats.edges = graph.num_edges
    stats.directed = graph.directed
    if graph.build_info is not None:
        stats.self_loops = graph.build_info.self_loops
        stats.duplicates = graph.build_info.duplicates
    stats.max_out_degree, stats.max_in_degree = degree_maxima(graph)
    stats.max_degree = max(stats.max_out_degree, stats.max_in_degree)
    stats.relabelled = graph.vertex_ids is not None
    stats.seconds = time.perf_counter() - t0
    return stats


def degree_maxima(graph) -> tuple:
    """(largest out-degree, largest in-degree); the same number twice for an undirected graph."""
    if graph.num_vertices == 0:
        return 0, 0
    out = int(np.max(np.diff(graph.indptr)))
    return out, (int(np.max(np.diff(graph.in_indptr))) if graph.directed else out)


def max_degree(graph) -> int:
    return max(degree_maxima(graph))
