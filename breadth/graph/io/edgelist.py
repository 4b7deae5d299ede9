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
note. Ids are non-negative decimal integers; the first token that is not one
makes the file an edge list of vertex names, read again from its start by
``names`` (pyarrow's CSV reader; every token a name, the names kept as labels).

The first data line is a column header (skipped, with a note naming it) when
``header=True``, or, by default, when it is not numeric and the other lines are:
it differs in kind from the rest. In a file of names a header cannot be told by
kind, so it is read as an edge (with a hint when its names occur nowhere else).

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
from .edgelist_parser import HASH, INT64_MAX, NL, NON_NUMERIC, error_message, parse_block
from .edges import edge_blocks, graph_from_edges, sparse_id_note
from .names import named_chunks, open_from, separator, shown
from .text import format_rows

SEPARATORS = {"edgelist": " ", "tsv": "\t", "csv": ","}

_BREADTH_HEADER = re.compile(rb"^#\s*breadth:\s*(.*)$")
_SNAP_DIRECTED = re.compile(rb"^[#%]\s*(un)?directed\s+graph", re.IGNORECASE)
_KONECT = re.compile(rb"^%\s*(sym|asym)\b")


# ---------------------------------------------------------------- header comments
_NUMBER = re.compile(rb"\d+")


def _first_line(buf, size):
    """(offset of its first character, offset past its newline, text) of the first data line of
    buf[:size], or None when the block holds none."""
    pos = 0
    head = bytes(buf[:min(size, 1 << 16)])
    for line in head.split(b"\n"):
        stripped = line.strip()
        if stripped and stripped[:1] not in (b"#", b"%"):
            start = pos + len(line) - len(line.lstrip())
            return start, pos + len(line) + 1, stripped
        pos += len(line) + 1
    return None


def _fields(line: bytes) -> list:
    return re.split(rb"[\s,]+", line.strip())


def _numeric(line: bytes) -> bool:
    """Whether a data line's first two fields are decimal ids (not names, not a column header)."""
    fields = _fields(line)
    return len(fields) >= 2 and all(_NUMBER.fullmatch(f) for f in fields[:2])


def _binary(line: bytes) -> bool:
    """Whether a line holds control bytes or is not UTF-8: binary data, not an edge list."""
    if any(c < 32 and c not in (9, 13) or c == 127 for c in line):
        return True
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


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
def read_edges(path, num_vertices=None, progress=None, stats: ReadStats | None = None, header=None,
               declared=None):
    """Parse an edge list file into int64 (src, dst) arrays.

    Returns (src, dst, declared vertex count or None, declared directedness or None).
    ``num_vertices`` (if given) is the declared count: any id >= it is an error. ``header``: whether
    the first data line names the columns (None: when it differs in kind from the rest). A file of
    vertex names gives dense ids; ``declared["labels"]`` (a dict, if given) then holds the names.
    """
    declared = {} if declared is None else declared
    srcs, dsts = [], []
    for chunk in edge_chunks(path, num_vertices, progress, stats, declared, header, whole=True):
        if chunk is None:               # the file names its vertices: read again from the start
            srcs, dsts = [], []
            continue
        srcs.append(chunk[0])
        dsts.append(chunk[1])
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


def edge_chunks(path, num_vertices=None, progress=None, stats: ReadStats | None = None, declared=None,
                header=None, whole=False):
    """Yield the int64 (src, dst) arrays of an edge list file one block (at most 64 MiB of text) at a
    time, with a progress bar over the file's bytes. Once the file is read, ``declared`` (a dict)
    holds "vertices" and "directed": what the header declared (or ``num_vertices``), else None, and
    "labels": the vertex names of a file of names (its ids are then dense), else None.

    A file found to name its vertices after some blocks were yielded yields ``None`` (drop what came
    before), then its blocks of dense ids (``names``; ``whole``: its text tokenized at once, for
    the in-memory reader). ``header`` as ``read_edges``. Bad input raises InputError naming the line."""
    path = check_input(path)
    declared_n, declared_dir = num_vertices, None
    limit = INT64_MAX if num_vertices is None else int(num_vertices)
    line_base = 0
    extra = False
    scanned = False
    yielded = False
    named = None                                   # (line number, text) of the first name found
    first_line = {}
    notes = stats.notes if stats is not None else []

    def first(buf, cut):
        if buf.startswith(b"\xef\xbb\xbf"):      # a UTF-8 byte order mark
            buf[:3] = b"   "
        found = _first_line(buf, cut)
        if found is None:
            return
        start, end, text = found
        line = buf.count(b"\n", 0, start) + 1
        if _binary(text):
            raise InputError(f"{path}: line {line}: not a text edge list (binary data?): {shown(text)}")
        numeric = _numeric(text)
        first_line.update(start=start, end=end, text=text.decode(), line=line, numeric=numeric,
                          fields=len(_fields(text)), skipped=False)
        if header or (header is None and not numeric):
            buf[start] = HASH                      # read it as a comment line
            first_line["skipped"] = True

    for block in line_blocks(path, progress, first):
        if not scanned:
            hdr_n, declared_dir = _scan_header(block)
            if declared_n is None and hdr_n is not None:
                declared_n = hdr_n
                limit = hdr_n
            scanned = True
        if header is False and first_line and not first_line["numeric"]:
            named = (first_line["line"], first_line["text"])
            break
        s, d, nl, more, error = parse_block(block, limit)
        if error is not None:
            if error[0] != NON_NUMERIC:
                raise InputError(error_message(path, block, *error, line_base, limit))
            line, text = _line_at(block, error[1], line_base)
            if _binary(text):
                raise InputError(f"{path}: line {line}: not a text edge list (binary data?): {shown(text)}")
            named = (line, text.decode())
            break
        line_base += nl
        extra |= more
        del block
        if s.size:
            yield s, d
            yielded = True
        del s, d
    base = os.path.basename(path)
    labels = None
    if named is None and header is None and first_line.get("skipped") and not yielded:
        named = (first_line["line"], first_line["text"])     # no other line to differ from: an edge
    if named is not None:
        if num_vertices is not None:
            raise InputError(f"{path}: line {named[0]}: the vertices have names ({shown(named[1])}); "
                             "a declared vertex count (num_vertices, --vertices) is for integer ids")
        if yielded:
            yield None
        labels = yield from _named(path, first_line, header, progress, notes, whole)
        declared_n = labels.size
    if stats is not None:
        stats.file_bytes = os.path.getsize(path)
        if extra and labels is None:
            notes.append(f"{base}: columns after the second (weights?) were ignored")
    if first_line.get("skipped") and (labels is None or header):
        why = ("--header" if header else
               "the other lines hold numbers; --no-header reads it as an edge")
        notes.insert(0, f"{base}: line {first_line['line']} {first_line['text']!r} skipped as a column "
                        f"header ({why})")
    if declared is not None:
        declared["vertices"], declared["directed"], declared["labels"] = declared_n, declared_dir, labels


def _line_at(block, pos, line_base):
    """(line number, bytes) of the line holding byte ``pos`` of ``block`` (only the bytes up to its end
    are looked at: the first name of a file of names is near the start of a 64 MiB block)."""
    before = np.flatnonzero(block[:pos] == NL)
    start = int(before[-1]) + 1 if before.size else 0
    end, width = pos, 4096
    while end < block.size:                # the line's end, in windows of growing width
        window = bytes(block[end:end + width])
        cut = window.find(b"\n")
        if cut >= 0:
            end += cut
            break
        end += len(window)
        width *= 2
    return line_base + before.size + 1, bytes(block[start:end]).strip()


def _named(path, first_line, header, progress, notes, whole=False):
    """Yield the dense-id blocks of a file of vertex names and return the names (``names`` module)."""
    skip = bool(header)
    offset = first_line["end"] if skip else first_line["start"]
    sep = separator(first_line["text"].encode())
    fields = len(_split_first(first_line["text"], sep))
    size = os.path.getsize(path)
    try:
        gz = is_gzip(path)
    except OSError as exc:
        raise os_error(path, exc) from None
    counts = np.zeros(2, dtype=np.int64)
    with progress_bar(size, f"reading names {os.path.basename(path)}", progress) as bar:
        stream, raw = open_from(path, gz, offset)
        try:
            chunks = named_chunks(path, stream, sep, fields, notes, whole)
            done = 0
            while True:
                try:
                    s, d = next(chunks)
                except StopIteration as stop:
                    labels = stop.value
                    break
                counts += [np.count_nonzero(s == 0) + np.count_nonzero(d == 0),
                           np.count_nonzero(s == 1) + np.count_nonzero(d == 1)]
                pos = raw.tell()
                bar.update(pos - done)
                done = pos
                yield s, d
        finally:
            stream.close()
    if not skip and header is None and labels.size >= 2 and (counts == 1).all():
        notes.append(f"{os.path.basename(path)}: line {first_line['line']} {first_line['text']!r} was read as "
                     "an edge; its two names occur nowhere else: if it names the columns, pass --header "
                     "(header=True)")
    return labels


def _split_first(text, sep):
    return text.split(sep) if sep != " " else text.split()


def read_edgelist(path, *, directed=None, relabel=False, num_vertices=None, index_dtype=None,
                  progress=None, stats=None, header=None) -> Graph:
    t0 = time.perf_counter()
    stats = stats if stats is not None else ReadStats(os.fspath(path), "edgelist")
    declared = {}
    src, dst, declared_n, declared_dir = read_edges(path, num_vertices, progress, stats, header, declared)
    labels = declared["labels"]
    if directed is None:
        directed = bool(declared_dir)
        if declared_dir is None and src.size:
            stats.notes.append(f"{os.path.basename(os.fspath(path))}: no directedness declared; "
                               "read as undirected (directed=True for a directed graph)")
    if relabel or labels is not None:
        declared_n = None if labels is None else labels.size
    g = graph_from_edges(src, dst, num_vertices=declared_n, directed=directed,
                         relabel=relabel and labels is None, index_dtype=index_dtype, stats=stats, bar_t0=t0,
                         progress=progress)
    if labels is not None:
        g.vertex_ids = labels
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
