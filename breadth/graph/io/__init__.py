"""Graph input/output: ``read`` and ``write`` for every supported format, and BFS result files.

Formats (``format=`` names; inferred from the extension, ``.gz`` allowed on top
of the text and binary ones):

=================  ================================  =========================================
name               extensions                        what
=================  ================================  =========================================
edgelist           .el .txt .tsv .csv .edges         text ``source target`` lines (SNAP, KONECT)
mtx                .mtx                              Matrix Market coordinate (1-based)
graph500           .g500 .bin                        int64 (v0, v1) pairs
graph500-packed    (format= only)                    reference generator's 12-byte packed tuples
native             .npz                              breadth's CSR arrays, memory-mapped on read
=================  ================================  =========================================

An empty (0-byte) file is an empty graph in every format (``allow_empty=False``
makes a graph without vertices an error, as the command line does). Every output file
is written to a temporary file and renamed into place, so an error never
leaves a partial file behind. Bad input raises ``breadth.InputError`` with a
one-line message naming the file (and the line, for text formats).

Modules: ``edgelist`` (with its numba parser ``edgelist_parser``, and ``names``
with ``name_partition`` and ``name_table`` for edge lists of vertex names), ``mtx``,
``graph500bin`` and ``breadth.graph.native`` per format; ``edges``
(format-neutral: building a graph from parsed edges, relabelling, the edge
blocks writers walk), ``spill`` (an edge list, Matrix Market file or Graph500
binary to a native file in bounded memory, spilling to disk; its numba loops in
``spill_kernels``, its chunked input and memory estimate in ``sources``), ``text`` (parallel integer formatting), ``results`` (BFS
result files) and ``_common`` (input checks, output streams, progress bars,
the read summary).

Reading logs its summary line and its notes (``ReadStats.summary()``,
``ReadStats.notes``) on the ``breadth.graph.io`` logger; nothing is printed.
"""
from __future__ import annotations

import logging
import os
import time

import numpy as np

from ...errors import InputError
from ...files import os_error
from .. import native
from ..types import Graph
from ._common import ReadStats, check_input, empty_error, finish_stats
from .edgelist import SEPARATORS, read_edgelist, write_edgelist
from .edges import edge_blocks, graph_from_edges
from .graph500bin import read_graph500, write_graph500
from .mtx import read_mtx, write_mtx
from .results import write_result

FORMATS = ("edgelist", "mtx", "graph500", "graph500-packed", "native")
EXTENSIONS = {
    ".el": "edgelist", ".txt": "edgelist", ".tsv": "edgelist", ".csv": "edgelist", ".edges": "edgelist",
    ".mtx": "mtx", ".g500": "graph500", ".bin": "graph500", ".npz": "native",
}
_ALIASES = {"el": "edgelist", "txt": "edgelist", "tsv": "edgelist", "csv": "edgelist", "edges": "edgelist",
            "snap": "edgelist", "matrixmarket": "mtx", "npz": "native", "g500": "graph500", "bin": "graph500",
            "graph500-48": "graph500-packed", "packed": "graph500-packed"}

__all__ = ["read", "read_with_stats", "write", "write_result", "infer_format", "ReadStats", "FORMATS",
           "EXTENSIONS"]

log = logging.getLogger(__name__)


def _split_ext(path: str):
    """(extension before any .gz, gzipped?) of a path, lower-cased."""
    low = path.lower()
    gz = low.endswith(".gz")
    base = low[:-3] if gz else low
    return os.path.splitext(base)[1], gz


def _sniff(path: str):
    import gzip

    try:
        with open(path, "rb") as f:
            head = f.read(4096)
        if head[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as f:
                head = f.read(4096)
    except (OSError, EOFError):
        return None
    if head.startswith(b"%%MatrixMarket"):
        return "mtx"
    if head.startswith(b"PK\x03\x04"):
        return "native"
    if head and all(32 <= c < 127 or c in (9, 10, 13) for c in head):
        return "edgelist"
    return None


def normalise_format(fmt) -> str:
    key = str(fmt).strip().lower().lstrip(".")
    key = _ALIASES.get(key, key)
    if key not in FORMATS:
        raise InputError(f"unknown graph format {fmt!r}; choose from {', '.join(FORMATS)}")
    return key


def infer_format(path, format=None, for_write=False) -> str:
    """The format name for ``path``: ``format`` if given, else from the extension (else the content)."""
    if format is not None:
        return normalise_format(format)
    path = os.fspath(path)
    ext, _ = _split_ext(path)
    if ext in EXTENSIONS:
        return EXTENSIONS[ext]
    if not for_write and os.path.isfile(path):
        sniffed = _sniff(path)
        if sniffed:
            return sniffed
    raise InputError(f"{path}: cannot tell the graph format from the extension '{ext or '(none)'}'; "
                     f"pass format= one of {', '.join(FORMATS)}")


# ---------------------------------------------------------------- reading
def read(path, *, format=None, directed=None, relabel=False, num_vertices=None, index_dtype=None,
         mmap=True, check=True, progress=None, verbose=None, header=None, allow_empty=True) -> Graph:
    """Read a graph file into a ``breadth.Graph``.

    Args:
        path: the file; gzip is recognised by a ``.gz`` suffix or by its content.
        format: one of FORMATS; inferred from the extension when None.
        directed: None keeps what the file says (native, Matrix Market symmetry, an edge-list
            header) and otherwise reads undirected; True/False forces it.
        relabel: number the vertex ids that occur densely 0..k-1 (increasing order); the
            original ids are kept as ``graph.vertex_ids``. An edge list whose vertices are names
            (any token that is not a non-negative integer) is always numbered so, in order of first
            appearance, its names kept as ``graph.vertex_ids``.
        num_vertices: the declared vertex count (ids must be below it); lets isolated vertices
            at the end of the id range exist in edge lists and binary files.
        index_dtype: the dtype of the neighbour ids (default int32 below 2^31 vertices).
        mmap: native files only: map the arrays instead of reading them.
        check: native files only: verify the CSR structure.
        progress: progress bars on stderr (None: only on a terminal, after 1 s of work).
        verbose: the level at which the summary line and the notes are logged on the
            ``breadth.graph.io`` logger: None (default) INFO; True WARNING, which Python shows
            on stderr even where logging is not configured; False DEBUG.
        header: edge lists only: whether the first data line names the columns (skipped, with a
            note). None (default) skips it when it differs in kind from the other lines (names
            above numeric rows); in a file of names a header cannot be told by kind: say True.
        allow_empty: False makes a file without a vertex (no edges, no declared count) an error.

    Returns:
        The graph, with ``vertex_ids`` set when the file's ids were relabelled.

    Raises:
        InputError: a missing or unreadable file, an unknown format, or malformed content
            (the message names the file and, for text, the line).
        MemoryEstimateError: the graph would not fit in memory (``breadth convert`` converts
            such files in bounded memory).

    Examples:
        >>> np.savetxt("path.txt", [[0, 1], [1, 2], [2, 3]], fmt="%d")
        >>> breadth.read("path.txt")
        Graph(undirected, 4 vertices, 3 edges)
        >>> np.savetxt("sparse.txt", [[10, 20], [20, 30]], fmt="%d")
        >>> g = breadth.read("sparse.txt", relabel=True)
        >>> g.num_vertices, g.vertex_ids
        (3, array([10, 20, 30]))
    """
    graph, _ = read_with_stats(path, format=format, directed=directed, relabel=relabel,
                               num_vertices=num_vertices, index_dtype=index_dtype, mmap=mmap, check=check,
                               progress=progress, verbose=verbose, header=header, allow_empty=allow_empty)
    return graph


def read_with_stats(path, *, format=None, directed=None, relabel=False, num_vertices=None, index_dtype=None,
                    mmap=True, check=True, progress=None, verbose=False, header=None, allow_empty=True):
    """Like ``breadth.read`` but also returns what reading did; ``verbose`` defaults to False here.

    Args:
        path: the file (see ``breadth.read`` for this and the other arguments).
        format: one of ``FORMATS``; inferred from the extension when None.
        directed: None keeps what the file says; True/False forces it.
        relabel: number the ids that occur densely 0..k-1, keeping the originals as labels.
        num_vertices: the declared vertex count.
        index_dtype: the dtype of the neighbour ids.
        mmap: native files only: map the arrays instead of reading them.
        check: native files only: verify the CSR structure.
        progress: progress bars on stderr (None: only on a terminal).
        verbose: the logging level of the summary line: None INFO, True WARNING, False DEBUG.
        header: edge lists only: whether the first data line names the columns (skipped, with a
            note). None (default) skips it when it differs in kind from the other lines (names
            above numeric rows); in a file of names a header cannot be told by kind: say True.
        allow_empty: False makes a file without a vertex (no edges, no declared count) an error.

    Returns:
        ``(graph, stats)``: the ``Graph`` and its ``ReadStats``.

    Raises:
        InputError: a missing or unreadable file, an unknown format, or malformed content.
        MemoryEstimateError: the graph would not fit in memory.

    Examples:
        >>> from breadth.graph.io import read_with_stats
        >>> np.savetxt("path.txt", [[0, 1], [1, 2], [2, 3], [3, 3], [1, 0]], fmt="%d")
        >>> g, stats = read_with_stats("path.txt")
        >>> g, stats.tuples, stats.self_loops, stats.duplicates
        (Graph(undirected, 4 vertices, 3 edges), 5, 1, 1)
    """
    t0 = time.perf_counter()
    path = check_input(path)
    fmt = infer_format(path, format)
    if num_vertices is not None:
        if int(num_vertices) != num_vertices or num_vertices < 0:
            raise InputError(f"num_vertices must be a non-negative integer, got {num_vertices!r}")
        num_vertices = int(num_vertices)
    stats = ReadStats(path, fmt)
    kw = dict(directed=directed, relabel=relabel, num_vertices=num_vertices, index_dtype=index_dtype,
              progress=progress, stats=stats)
    try:
        if os.path.getsize(path) == 0:
            graph = graph_from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), num_vertices=num_vertices,
                                     directed=bool(directed), relabel=relabel, index_dtype=index_dtype,
                                     stats=stats, bar_t0=t0, progress=progress)
            finish_stats(stats, graph, t0)
        elif fmt == "edgelist":
            graph = read_edgelist(path, header=header, **kw)
        elif fmt == "mtx":
            graph = read_mtx(path, **kw)
        elif fmt in ("graph500", "graph500-packed"):
            graph = read_graph500(path, packed=fmt == "graph500-packed", **kw)
        else:
            graph = _read_native(path, mmap=mmap, check=check, t0=t0, **kw)
    except OSError as exc:
        raise os_error(path, exc) from None
    if not allow_empty and graph.num_vertices == 0:
        raise empty_error(path)
    level = logging.WARNING if verbose else logging.DEBUG if verbose is False else logging.INFO
    if log.isEnabledFor(level):
        log.log(level, "%s", stats.summary())
        for note in stats.notes:
            log.log(level, "note: %s", note)
    return graph, stats


def _read_native(path, *, directed, relabel, num_vertices, index_dtype, progress, stats, mmap, check, t0):
    stats.file_bytes = os.path.getsize(path)
    graph = native.load(path, mmap=mmap, check=check)
    if directed is not None and bool(directed) != graph.directed:
        stored = "directed" if graph.directed else "undirected"
        raise InputError(f"{path}: the file holds a {stored} graph; directed={directed} does not match")
    if num_vertices is not None and num_vertices != graph.num_vertices:
        raise InputError(f"{path}: the file holds {graph.num_vertices} vertices, not {num_vertices}")
    if index_dtype is not None and np.dtype(index_dtype) != graph.indices.dtype:
        graph = Graph(graph.indptr, np.asarray(graph.indices, dtype=index_dtype), directed=graph.directed,
                      in_indptr=graph.in_indptr,
                      in_indices=np.asarray(graph.in_indices, dtype=index_dtype) if graph.directed else None,
                      vertex_ids=graph.vertex_ids, check=False)
    if relabel and graph.vertex_ids is None:
        blocks = list(edge_blocks(graph))
        src = np.concatenate([b[0] for b in blocks]) if blocks else np.zeros(0, np.int64)
        dst = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0, np.int64)
        graph = graph_from_edges(src, dst, num_vertices=None, directed=graph.directed, relabel=True,
                                 index_dtype=graph.indices.dtype, stats=stats, bar_t0=t0, progress=progress)
    else:
        stats.memory_mapped = bool(mmap)
        stats.tuples = graph.num_edges
    finish_stats(stats, graph, t0)
    return graph


# ---------------------------------------------------------------- writing
def write(graph, path, *, format=None, original_ids=False, progress=None) -> list:
    """Write ``graph`` to ``path`` in ``format`` (inferred from the extension; ``.gz`` compresses).

    Args:
        graph: the ``breadth.Graph`` to write.
        path: the output file, written atomically (nothing is left behind on failure).
        format: one of ``FORMATS``; inferred from the extension when None.
        original_ids: for a relabelled graph, write its original vertex ids (edge lists and
            Graph500 binaries; the native format always keeps them).
        progress: progress bars on stderr (None: only on a terminal, after 1 s of work).

    Returns:
        Notes (strings) about anything the format could not keep (an empty list when it kept all).

    Raises:
        InputError: ``graph`` is not a Graph, an unknown format, or labels the format cannot hold.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> breadth.write(g, "path.txt")
        []
        >>> print(open("path.txt").read(), end="")
        # undirected graph: 4 vertices, 3 edges, written by breadth
        # breadth: vertices=4 directed=0
        0 1
        1 2
        2 3
    """
    if not isinstance(graph, Graph):
        raise InputError(f"expected a breadth.Graph, got {type(graph).__name__}")
    path = os.fspath(path)
    fmt = infer_format(path, format, for_write=True)
    ext, gz = _split_ext(path)
    notes = []
    if original_ids and graph.vertex_ids is not None and graph.vertex_ids.dtype == object:
        raise InputError(f"{path}: original_ids=True writes integer ids; this graph's labels are not all "
                         "integers (only the dense ids 0..n-1 can be written)")
    if original_ids and fmt in ("mtx", "native"):
        raise InputError(f"{path}: original_ids applies to edge lists and Graph500 binaries "
                         f"({'native files keep them anyway' if fmt == 'native' else 'Matrix Market ids are 1..n'})")
    if graph.vertex_ids is not None and fmt != "native" and not original_ids:
        notes.append(f"{os.path.basename(path)}: written with dense ids 0..{graph.num_vertices - 1}; the "
                     "original-id mapping is kept only by .npz (or pass original_ids=True)")
    if fmt in ("graph500", "graph500-packed") and graph.num_vertices and graph.degree()[-1] == 0 \
            and (graph.in_degree()[-1] == 0):
        notes.append(f"{os.path.basename(path)}: Graph500 binaries carry no vertex count; read it back with "
                     f"num_vertices={graph.num_vertices} to keep the isolated vertices at the end")
    try:
        if fmt == "edgelist":
            write_edgelist(graph, path, sep=SEPARATORS.get(ext.lstrip("."), " "), gz=gz,
                           original_ids=original_ids, progress=progress)
        elif fmt == "mtx":
            write_mtx(graph, path, gz=gz, progress=progress)
        elif fmt in ("graph500", "graph500-packed"):
            write_graph500(graph, path, packed=fmt == "graph500-packed", gz=gz, original_ids=original_ids,
                           progress=progress)
        else:
            if gz:
                raise InputError(f"{path}: native files are not compressed (they are memory-mapped); drop '.gz'")
            native.write_native(graph, path)
    except OSError as exc:
        raise os_error(path, exc) from None
    return notes
