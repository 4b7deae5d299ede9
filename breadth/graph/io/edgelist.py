"""Plain-text edge lists (SNAP, KONECT, CSV/TSV), optionally gzip-compressed.

Reading streams the file (decompressing gzip on the fly) in 64 MiB blocks
cut at line ends and hands each block to the parallel byte-level numba parser
of ``edgelist_parser`` (never a Python loop per line); this module handles
what surrounds it: the header comments, a column-header row, the line count
carried from block to block for error messages, and the notes. The block
reader, ``line_blocks``, also feeds the chunked Matrix Market reader. Writing
formats the edges with ``text.format_rows``.

Accepted syntax, per line: blank; a comment starting with ``#`` or ``%``; or
``source target [anything...]`` with the fields separated by spaces, tabs or
commas. Columns after the second (weights, timestamps) are ignored with a
note. Ids are non-negative decimal integers.

A first data line whose first two fields start with a letter or a quote
(``src,dst``, ``source target``) is a column-header row: it is skipped with a
note. Any later non-numeric field is an error.

Header comments understood: ``# breadth: vertices=N directed=0|1`` (written by
``write_edgelist``; declares the vertex count, so isolated vertices at the end
of the id range survive a round trip), SNAP's ``# Directed graph`` /
``# Undirected graph`` and KONECT's ``% sym`` / ``% asym``.
"""
from __future__ import annotations

import gzip
import os
import re
import time
import zlib

import numpy as np

from ...errors import InputError
from ...files import os_error
from ...progress import bar as progress_bar
from ..types import Graph
from ._common import (CHUNK_BYTES, ReadStats, check_input, finish_stats, gzip_error, is_gzip, open_binary,
                      output_stream, read_fully)
from .edgelist_parser import HASH, INT64_MAX, error_message, parse_block
from .edges import edge_blocks, graph_from_edges, sparse_id_note
from .text import format_rows

SEPARATORS = {"edgelist": " ", "tsv": "\t", "csv": ","}

_BREADTH_HEADER = re.compile(rb"^#\s*breadth:\s*(.*)$")
_SNAP_DIRECTED = re.compile(rb"^[#%]\s*(un)?directed\s+graph", re.IGNORECASE)
_KONECT = re.compile(rb"^%\s*(sym|asym)\b")


# ---------------------------------------------------------------- header comments
def _column_header(buf: bytearray, size: int):
    """Offset and text of a column-header first data line (e.g. ``src,dst``), or None."""
    pos = 0
    head = bytes(buf[:min(size, 1 << 16)])
    for line in head.split(b"\n"):
        stripped = line.strip()
        if stripped and stripped[:1] not in (b"#", b"%"):
            fields = re.split(rb"[\s,]+", stripped)
            if len(fields) >= 2 and all(f[:1].isalpha() or f[:1] in (b'"', b"'") for f in fields[:2]):
                return pos + len(line) - len(line.lstrip()), stripped.decode("utf-8", "replace")
            return None
        pos += len(line) + 1
    return None


def _scan_header(buf):
    """Vertex count and directedness declared in the leading comment lines (None if absent)."""
    vertices = directed = None
    head = bytes(buf[:65536])
    for raw in head.split(b"\n")[:200]:
        line = raw.strip()
        if not line:
            continue
        if line[:1] not in (b"#", b"%"):
            break
        m = _BREADTH_HEADER.match(line)
        if m:
            for key, value in re.findall(rb"(\w+)=(\S+)", m.group(1)):
                if key == b"vertices" and value.isdigit():
                    vertices = int(value)
                elif key == b"directed" and value in (b"0", b"1"):
                    directed = value == b"1"
            continue
        m = _SNAP_DIRECTED.match(line)
        if m:
            directed = m.group(1) is None
            continue
        m = _KONECT.match(line)
        if m:
            directed = m.group(1) == b"asym"
    return vertices, directed


# ---------------------------------------------------------------- reading
def read_edges(path, num_vertices=None, progress=None, stats: ReadStats | None = None):
    """Parse an edge list file into int64 (src, dst) arrays.

    Returns (src, dst, declared vertex count or None, declared directedness or None).
    ``num_vertices`` (if given) is the declared count: any id >= it is an error.
    """
    declared = {}
    srcs, dsts = [], []
    for s, d in edge_chunks(path, num_vertices, progress, stats, declared):
        srcs.append(s)
        dsts.append(d)
    src = srcs[0] if len(srcs) == 1 else np.concatenate(srcs) if srcs else np.zeros(0, np.int64)
    dst = dsts[0] if len(dsts) == 1 else np.concatenate(dsts) if dsts else np.zeros(0, np.int64)
    return src, dst, declared["vertices"], declared["directed"]


def line_blocks(path, progress=None, first=None, skip=0):
    """Yield the (decompressed) text of ``path`` from byte ``skip`` on as uint8 arrays of whole lines,
    at most CHUNK_BYTES each unless one line is longer, with a progress bar over the file's bytes.
    ``first(buf, length)`` may rewrite the first block in place before it is yielded. A block is a
    view of a buffer the next one reuses: parse it before asking for the next. Read errors raise
    InputError."""
    path = check_input(path)
    size = os.path.getsize(path)
    try:
        gz = is_gzip(path)
    except OSError as exc:
        raise os_error(path, exc) from None
    buf = bytearray(min(CHUNK_BYTES, max(1 << 16, 8 * size if gz else size + 1)))
    keep = 0
    bar = progress_bar(size, f"reading {os.path.basename(path)}", progress)
    try:
        with bar, open_binary(path, gz) as (stream, raw):
            while skip > 0:                   # the bytes before ``skip``: read and dropped
                k = read_fully(stream, memoryview(buf)[:min(skip, len(buf))])
                skip = skip - k if k else 0
            done = 0
            while True:
                got = read_fully(stream, memoryview(buf)[keep:])
                total = keep + got
                eof = total < len(buf)
                if eof:
                    cut = total
                else:
                    cut = buf.rfind(b"\n", 0, total) + 1
                    if cut == 0:          # a line longer than the buffer: a buffer twice the size, read on
                        grown = bytearray(2 * len(buf))
                        grown[:total] = buf
                        buf, keep = grown, total
                        continue
                if first is not None:
                    first(buf, cut)
                    first = None
                yield np.frombuffer(buf, dtype=np.uint8, count=cut)
                pos = raw.tell()
                bar.update(pos - done)
                done = pos
                if eof:
                    break
                keep = total - cut
                buf[:keep] = buf[cut:total]
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise gzip_error(path, exc) from None
    except OSError as exc:
        raise os_error(path, exc) from None


def edge_chunks(path, num_vertices=None, progress=None, stats: ReadStats | None = None, declared=None):
    """Yield the int64 (src, dst) arrays of an edge list file one block (at most 64 MiB of text) at a
    time, with a progress bar over the file's bytes. Once the file is read, ``declared`` (a dict)
    holds "vertices" and "directed": what the header declared (or ``num_vertices``), else None.
    Bad input raises InputError naming the line."""
    path = check_input(path)
    declared_n, declared_dir = num_vertices, None
    limit = INT64_MAX if num_vertices is None else int(num_vertices)
    line_base = 0
    extra = False
    scanned = False
    column_header = []

    def first(buf, cut):
        if buf.startswith(b"\xef\xbb\xbf"):      # a UTF-8 byte order mark
            buf[:3] = b"   "
        found = _column_header(buf, cut)
        if found is not None:
            buf[found[0]] = HASH                  # read it as a comment line
            column_header.append(found[1])

    for block in line_blocks(path, progress, first):
        if not scanned:
            hdr_n, declared_dir = _scan_header(block)
            if declared_n is None and hdr_n is not None:
                declared_n = hdr_n
                limit = hdr_n
            scanned = True
        s, d, nl, more, error = parse_block(block, limit)
        if error is not None:
            raise InputError(error_message(path, block, *error, line_base, limit))
        line_base += nl
        extra |= more
        del block
        if s.size:
            yield s, d
        del s, d
    if stats is not None:
        stats.file_bytes = os.path.getsize(path)
        if column_header:
            stats.notes.append(f"{os.path.basename(path)}: first line {column_header[0]!r} taken as column names")
        if extra:
            stats.notes.append(f"{os.path.basename(path)}: columns after the second (weights?) were ignored")
    if declared is not None:
        declared["vertices"], declared["directed"] = declared_n, declared_dir


def read_edgelist(path, *, directed=None, relabel=False, num_vertices=None, index_dtype=None,
                  progress=None, stats=None) -> Graph:
    t0 = time.perf_counter()
    stats = stats if stats is not None else ReadStats(os.fspath(path), "edgelist")
    src, dst, declared_n, declared_dir = read_edges(path, num_vertices, progress, stats)
    if directed is None:
        directed = bool(declared_dir)
        if declared_dir is None and src.size:
            stats.notes.append(f"{os.path.basename(os.fspath(path))}: no directedness declared; "
                               "read as undirected (directed=True for a directed graph)")
    if relabel:
        declared_n = None
    g = graph_from_edges(src, dst, num_vertices=declared_n, directed=directed, relabel=relabel,
                         index_dtype=index_dtype, stats=stats, bar_t0=t0, progress=progress)
    note = sparse_id_note(g, declared_n is not None)
    if note:
        stats.notes.append(note)
    finish_stats(stats, g, t0)
    return g


# ---------------------------------------------------------------- writing
def _header_lines(graph, ids_original: bool) -> str:
    kind = "directed" if graph.directed else "undirected"
    lines = [f"# {kind} graph: {graph.num_vertices} vertices, {graph.num_edges} edges, written by breadth"]
    if ids_original:
        lines.append("# original vertex ids (read with relabel=True / --relabel to number them densely)")
        lines.append(f"# breadth: directed={int(graph.directed)}")
    else:
        lines.append(f"# breadth: vertices={graph.num_vertices} directed={int(graph.directed)}")
    return "\n".join(lines) + "\n"


def write_edgelist(graph, path, *, sep=" ", gz=False, original_ids=False, progress=None) -> None:
    """Write ``graph`` as text lines ``u<sep>v`` (undirected: each edge once, u < v)."""
    ids = graph.vertex_ids if original_ids else None
    if original_ids and ids is None:
        raise InputError("original_ids=True needs a relabelled graph (one with vertex_ids)")
    bar = progress_bar(graph.num_edges, f"writing {os.path.basename(os.fspath(path))}", progress, unit="edges")
    with bar, output_stream(path, gz) as f:
        f.write(_header_lines(graph, ids is not None).encode())
        for src, dst in edge_blocks(graph):
            if ids is not None:
                src, dst = ids[src], ids[dst]
            f.write(memoryview(format_rows(np.stack((src, dst)), sep)))
            bar.update(src.size)
