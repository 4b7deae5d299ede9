"""The input side of the bounded-memory conversion (``spill``): every format's tuples in chunks, and
the estimate of reading the file whole that chooses between the two conversions.

``tuple_chunks`` hands the pipeline int64 ``(src, dst)`` chunks of an edge list
(``edgelist.edge_chunks``: 64 MiB blocks of text through the numba parser), a Graph500
binary (``graph500bin.graph500_chunks``: 64 MiB of int64 pairs or packed tuples at a time) or a
Matrix Market coordinate file (``mtx.mtx_chunks``: the header checked as the in-memory reader
does, the entries through the edge-list parser, 1-based ids made 0-based), each with the checks,
errors and progress bar of its in-memory reader. ``estimate_in_memory_bytes`` predicts the peak
of the in-memory conversion from the file's size and a sample of it; ``needs_bounded`` compares
that with the memory allowed.
"""
from __future__ import annotations

import os
import zlib

from ...errors import InputError
from ..memory import available_bytes, csr_build_bytes
from ._common import check_input, is_gzip, open_binary
from .edgelist import edge_chunks
from .graph500bin import PACKED_BYTES, PAIR_BYTES, graph500_chunks
from .mtx import header_extent, mtx_chunks

BOUNDED_FORMATS = ("edgelist", "mtx", "graph500", "graph500-packed")
SAMPLE = 1 << 20           # bytes sampled to estimate the tuple count of a text or compressed file


def tuple_chunks(path, format="edgelist", *, directed=None, num_vertices=None, progress=None, stats=None,
                 declared=None, header=None):
    """The int64 (src, dst) chunks of ``path`` read as ``format``, with its reader's checks and errors.

    Args:
        path: the file.
        format: one of ``BOUNDED_FORMATS``.
        directed: None: the file's choice; matters to Matrix Market files only: a symmetric
            one read as directed yields both directions.
        num_vertices: the declared vertex count (ids must be below it).
        progress: a progress bar over the file (None: only on a terminal).
        stats: a ``ReadStats`` to fill in.
        declared: a dict that, once the chunks are read, holds "vertices" (the count the file
            or ``num_vertices`` declares, else None) and "directed" (what the format or file
            says, else None); for an edge list of vertex names also "labels", the names.
        header: edge lists only, as ``breadth.read``.

    Yields:
        ``(src, dst)`` int64 arrays, one pair per chunk; for an edge list of vertex names, dense
            ids, and ``None`` to say that the chunks before it are void (the file is read again as names).

    Raises:
        InputError: malformed content (raised while iterating).

    Examples:
        >>> from breadth.graph.io.sources import tuple_chunks
        >>> np.savetxt("path.txt", [[0, 1], [1, 2]], fmt="%d")
        >>> declared = {}
        >>> [(s.tolist(), d.tolist()) for s, d in tuple_chunks("path.txt", declared=declared)]
        [([0, 1], [1, 2])]
        >>> declared
        {'vertices': None, 'directed': None, 'labels': None}
    """
    if format == "edgelist":
        return edge_chunks(path, num_vertices, progress, stats, declared, header)
    if format == "mtx":
        return mtx_chunks(path, directed, num_vertices, progress, stats, declared)
    if format in ("graph500", "graph500-packed"):
        return graph500_chunks(path, format == "graph500-packed", num_vertices, progress, stats, declared)
    raise InputError(f"{path}: the bounded-memory conversion reads {', '.join(BOUNDED_FORMATS)} files, "
                     f"not {format}")


def _sample(path):
    """(first SAMPLE bytes of the decompressed content, file bytes they took), or None if unreadable."""
    try:
        with open_binary(path, is_gzip(path)) as (stream, raw):
            head = stream.read(SAMPLE)
            return head, max(1, raw.tell())
    except (OSError, EOFError, zlib.error):
        return None


def _mtx_counts(path, directed):
    """(tuples, vertices, directed) of a Matrix Market file from its header (``directed`` None: the
    file's symmetry says; a symmetric file read as directed counts both directions), or None when
    the header is not one."""
    try:
        _, _, banner, size_line = header_extent(path)
        fields = [int(f) for f in size_line.split()]
    except (OSError, EOFError, zlib.error, ValueError):
        return None
    if len(fields) != 3:
        return None
    symmetric = banner.lower().split()[-1:] != [b"general"]
    directed = not symmetric if directed is None else bool(directed)
    return fields[2] * (2 if symmetric and directed else 1), fields[0], directed


def estimate_in_memory_bytes(path, num_vertices=None, directed=False, format="edgelist") -> int:
    """Peak bytes of reading ``path`` (in ``format``) into memory and building its CSR.

    Text formats: the parsed tuples and their concatenation (32 bytes a tuple; an edge list's tuple
    count from a sample of its text, a Matrix Market file's from its size line). Graph500 binaries:
    the file's bytes and the tuples decoded from them. Or the CSR build with the edge arrays, when
    that is more.

    Args:
        path: the file.
        num_vertices: the declared vertex count.
        directed: whether the graph is read as directed (None: the file's choice; Matrix
            Market: its symmetry).
        format: one of ``BOUNDED_FORMATS``.

    Returns:
        The estimate in bytes; 0 when the file's content cannot be read (the reader then
            names the problem).

    Raises:
        InputError: no such file.

    Examples:
        >>> from breadth.graph.io.sources import estimate_in_memory_bytes
        >>> np.savetxt("path.txt", [[0, 1], [1, 2]], fmt="%d")
        >>> estimate_in_memory_bytes("path.txt") > 0
        True
    """
    path = check_input(path)
    size = os.path.getsize(path)
    if size == 0:
        return 0
    per_tuple = 32
    if format == "mtx":
        counts = _mtx_counts(path, directed)
        if counts is None:
            return 0
        tuples, n, directed = counts
        tuples = max(1, tuples)
    else:
        sample = _sample(path)
        if sample is None:
            return 0
        head, consumed = sample
        if format in ("graph500", "graph500-packed"):
            rec = PACKED_BYTES if format == "graph500-packed" else PAIR_BYTES
            content = len(head) if len(head) < SAMPLE else len(head) * size / consumed
            tuples = max(1, int(content) // rec)
            per_tuple = rec + 16
        else:
            lines = head.count(b"\n") + (0 if head.endswith(b"\n") else 1)
            tuples = max(1, lines if len(head) < SAMPLE else int(lines * size / consumed))
        n = tuples if num_vertices is None else int(num_vertices)
    return max(per_tuple * tuples, csr_build_bytes(n, tuples, bool(directed)))


def needs_bounded(path, *, memory=None, num_vertices=None, directed=False, format="edgelist") -> bool:
    """True when the in-memory conversion's estimate exceeds 3/4 of ``memory`` bytes.

    Args:
        path: the file.
        memory: the bytes available (default: the memory available, capped by
            ``$BREADTH_AVAILABLE_MEMORY``).
        num_vertices: the declared vertex count.
        directed: whether the graph is read as directed.
        format: one of ``BOUNDED_FORMATS``.

    Returns:
        Whether ``convert`` should take the bounded-memory path.

    Examples:
        >>> from breadth.graph.io.sources import needs_bounded
        >>> np.savetxt("path.txt", [[0, 1], [1, 2]], fmt="%d")
        >>> needs_bounded("path.txt"), needs_bounded("path.txt", memory=100)
        (False, True)
    """
    budget = available_bytes() if memory is None else int(memory)
    return estimate_in_memory_bytes(path, num_vertices, directed, format) > 0.75 * budget

