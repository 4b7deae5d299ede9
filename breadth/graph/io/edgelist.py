"""Plain-text edge lists (SNAP, KONECT, CSV/TSV), optionally gzip-compressed.

Reading is a parallel byte-level parser in numba, never a Python loop per
line. The file is streamed in 64 MiB blocks cut at line ends; each block is
split into one piece per thread (also at line ends). Pass 1 counts the data
lines of every piece, a prefix sum gives each piece its slice of the output,
pass 2 parses the pieces in parallel straight into the int64 ``src``/``dst``
arrays. A piece that meets bad input stops and records the byte offset; the
earliest one is reported, its line number found by counting the newlines
before that offset (a targeted second pass over one block).

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

import numba
import numpy as np
from numba import njit, prange

from ...errors import InputError
from ..types import Graph
from ._common import (CHUNK_BYTES, ReadStats, check_input, finish_stats, gzip_error, is_gzip, open_binary,
                      os_error, output_stream, progress_bar, read_fully, relabel_dense, show_stage,
                      sparse_id_note)

INT64_MAX = np.iinfo(np.int64).max
OK, NON_NUMERIC, NEGATIVE, ONE_COLUMN, TOO_BIG, BEYOND = 0, 1, 2, 3, 4, 5
NL, HASH, PERCENT, MINUS = 10, 35, 37, 45
SEPARATORS = {"edgelist": " ", "tsv": "\t", "csv": ","}

_BREADTH_HEADER = re.compile(rb"^#\s*breadth:\s*(.*)$")
_SNAP_DIRECTED = re.compile(rb"^[#%]\s*(un)?directed\s+graph", re.IGNORECASE)
_KONECT = re.compile(rb"^%\s*(sym|asym)\b")


# ---------------------------------------------------------------- numba parser
@njit(cache=True)
def _is_sep(c):
    return c == 32 or c == 9 or c == 44 or c == 13 or c == 11 or c == 12


@njit(cache=True)
def _is_digit(c):
    return 48 <= c <= 57


@njit(cache=True)
def _piece_starts(buf, npieces):
    """Offsets cutting buf into npieces runs of whole lines (starts[-1] == buf.size)."""
    n = buf.size
    starts = np.empty(npieces + 1, dtype=np.int64)
    starts[0] = 0
    for k in range(1, npieces):
        i = max(n * k // npieces, starts[k - 1])
        while i < n and buf[i] != NL:
            i += 1
        starts[k] = min(i + 1, n)
    starts[npieces] = n
    return starts


@njit(cache=True)
def _checked_value(buf, start, stop):
    """Value of the digits buf[start:stop] with an overflow check (-1 if it exceeds int64)."""
    v = 0
    for j in range(start, stop):
        d = np.int64(buf[j]) - 48
        if v > (INT64_MAX - d) // 10:
            return -1
        v = v * 10 + d
    return v


@njit(cache=True)
def _parse_id(buf, i, end, limit):
    """Parse one id at buf[i]; returns (value, next index, error code)."""
    c = buf[i]
    if not _is_digit(c):
        if c == MINUS and i + 1 < end and _is_digit(buf[i + 1]):
            return 0, i, NEGATIVE
        return 0, i, NON_NUMERIC
    start = i
    v = 0
    while i < end:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            break
        v = v * 10 + d
        i += 1
    if i - start > 18:                  # may have wrapped: redo with the (slower) overflow check
        v = _checked_value(buf, start, i)
        if v < 0:
            return 0, start, TOO_BIG
    if i < end and not (_is_sep(buf[i]) or buf[i] == NL):
        return 0, i, NON_NUMERIC
    if v >= limit:
        return 0, i, BEYOND
    return v, i, OK


@njit(parallel=True, cache=True)
def _parse_lines(buf, starts, offsets, limit, src, dst, counts, newlines, err_code, err_pos, columns):
    """Parse every piece's data lines into src/dst[offsets[p]:] (room for a line per 4 bytes)."""
    for p in prange(starts.size - 1):
        i = starts[p]
        end = starts[p + 1]
        k = offsets[p]
        nl = 0
        code = OK
        pos = -1
        cols = 2
        while i < end:
            line = i
            while i < end and _is_sep(buf[i]):
                i += 1
            if i >= end:
                break
            c = buf[i]
            if c == NL:
                nl += 1
                i += 1
                continue
            if c == HASH or c == PERCENT:
                while i < end and buf[i] != NL:
                    i += 1
                if i < end:
                    nl += 1
                i += 1
                continue
            tok = i
            u, i, code = _parse_id(buf, i, end, limit)
            if code != OK:
                pos = tok
                break
            while i < end and _is_sep(buf[i]):
                i += 1
            if i >= end or buf[i] == NL:
                code = ONE_COLUMN
                pos = line
                break
            tok = i
            v, i, code = _parse_id(buf, i, end, limit)
            if code != OK:
                pos = tok
                break
            src[k] = u
            dst[k] = v
            k += 1
            while i < end and _is_sep(buf[i]):
                i += 1
            if i < end and buf[i] != NL:
                cols = 3
                while i < end and buf[i] != NL:
                    i += 1
            if i < end:
                nl += 1
            i += 1
        counts[p] = k - offsets[p]
        newlines[p] = nl
        err_code[p] = code
        err_pos[p] = pos
        columns[p] = cols


@njit(cache=True)
def _token_end(buf, i):
    j = i
    while j < buf.size and j - i < 40 and not (_is_sep(buf[j]) or buf[j] == NL):
        j += 1
    return j


def _parse_block(buf, limit):
    """Parse one block of whole lines. Returns (src, dst, newlines, extra_columns, error or None).

    A data line takes at least 4 bytes ("u v" and its newline; 3 for a last line without
    one), so a piece of b bytes holds at most b // 4 + 1 of them: each piece parses into
    its own slice of that size in one pass, and the slices are then packed together.
    (np.empty leaves the unused tail of the slices untouched, so it costs no memory.)
    """
    npieces = max(1, min(4 * numba.get_num_threads(), buf.size // 65536 + 1))
    starts = _piece_starts(buf, npieces)
    offsets = np.zeros(npieces + 1, dtype=np.int64)
    np.cumsum(np.diff(starts) // 4 + 1, out=offsets[1:])
    src_buf = np.empty(int(offsets[-1]), dtype=np.int64)
    dst_buf = np.empty(int(offsets[-1]), dtype=np.int64)
    counts = np.zeros(npieces, dtype=np.int64)
    newlines = np.zeros(npieces, dtype=np.int64)
    err_code = np.zeros(npieces, dtype=np.int64)
    err_pos = np.zeros(npieces, dtype=np.int64)
    columns = np.zeros(npieces, dtype=np.int64)
    _parse_lines(buf, starts, offsets, limit, src_buf, dst_buf, counts, newlines, err_code, err_pos, columns)
    bad = np.flatnonzero(err_code)
    if bad.size:
        p = int(bad[0])
        return None, None, 0, False, (int(err_code[p]), int(err_pos[p]))
    src = np.concatenate([src_buf[offsets[p]:offsets[p] + counts[p]] for p in range(npieces)])
    dst = np.concatenate([dst_buf[offsets[p]:offsets[p] + counts[p]] for p in range(npieces)])
    return src, dst, int(newlines.sum()), bool(columns.max() > 2), None


def _error_message(path, buf, code, pos, line_base, limit):
    line = line_base + int(np.count_nonzero(buf[:pos] == NL)) + 1
    tok = bytes(buf[pos:_token_end(buf, pos)]).decode("utf-8", "replace")
    where = f"{path}: line {line}"
    if code == NON_NUMERIC:
        return f"{where}: non-numeric vertex id {tok!r} (expected a non-negative integer)"
    if code == NEGATIVE:
        return f"{where}: negative vertex id {tok}"
    if code == ONE_COLUMN:
        return f"{where}: only one column; an edge needs two vertex ids (source target)"
    if code == TOO_BIG:
        return f"{where}: vertex id {tok}... does not fit in int64"
    if code == BEYOND and limit == INT64_MAX:
        return f"{where}: vertex id {tok} is too large (at most {INT64_MAX - 1})"
    if code == BEYOND:
        return f"{where}: vertex id {tok} is beyond the declared vertex count {limit} (ids 0..{limit - 1})"
    return f"{where}: unreadable edge line"  # pragma: no cover - every code is named above


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
    path = check_input(path)
    size = os.path.getsize(path)
    try:
        gz = is_gzip(path)
    except OSError as exc:
        raise os_error(path, exc) from None
    srcs, dsts = [], []
    declared_n, declared_dir = num_vertices, None
    limit = INT64_MAX if num_vertices is None else int(num_vertices)
    line_base = 0
    extra = False
    first = True
    column_header = None
    buf = bytearray(min(CHUNK_BYTES, max(1 << 16, 8 * size if gz else size + 1)))
    keep = 0
    bar = progress_bar(size, f"reading {os.path.basename(path)}", progress)
    try:
        with bar, open_binary(path, gz) as (stream, raw):
            done = 0
            while True:
                got = read_fully(stream, memoryview(buf)[keep:])
                total = keep + got
                eof = keep + got < len(buf)
                if eof:
                    cut = total
                else:
                    cut = buf.rfind(b"\n", 0, total) + 1
                    if cut == 0:          # a line longer than the buffer: grow and read on
                        buf.extend(bytes(len(buf)))
                        keep = total
                        continue
                if first and buf.startswith(b"\xef\xbb\xbf"):      # a UTF-8 byte order mark
                    buf[:3] = b"   "
                if first:
                    column_header = _column_header(buf, cut)
                    if column_header is not None:
                        buf[column_header[0]] = HASH           # read it as a comment line
                block = np.frombuffer(buf, dtype=np.uint8, count=cut)
                if first:
                    hdr_n, declared_dir = _scan_header(block)
                    if declared_n is None and hdr_n is not None:
                        declared_n = hdr_n
                        limit = hdr_n
                    first = False
                s, d, nl, more, error = _parse_block(block, limit)
                if error is not None:
                    raise InputError(_error_message(path, block, *error, line_base, limit))
                line_base += nl
                extra |= more
                if s.size:
                    srcs.append(s)
                    dsts.append(d)
                del block
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
    if stats is not None:
        stats.file_bytes = size
        if column_header is not None:
            stats.notes.append(f"{os.path.basename(path)}: first line {column_header[1]!r} taken as column names")
        if extra:
            stats.notes.append(f"{os.path.basename(path)}: columns after the second (weights?) were ignored")
    src = srcs[0] if len(srcs) == 1 else np.concatenate(srcs) if srcs else np.zeros(0, np.int64)
    dst = dsts[0] if len(dsts) == 1 else np.concatenate(dsts) if dsts else np.zeros(0, np.int64)
    return src, dst, declared_n, declared_dir


def graph_from_edges(src, dst, *, num_vertices, directed, relabel, index_dtype, stats, bar_t0, progress):
    """Relabel (optionally) and build the CSR, naming the stage on a progress bar."""
    bar = progress_bar(None, "building CSR", progress, unit="it")
    with bar:
        show_stage(bar, "relabelling" if relabel else "building CSR", bar_t0, src.size > 20_000_000)
        ids = None
        if relabel:
            src, dst, ids = relabel_dense(src, dst)
            num_vertices = ids.size
            show_stage(bar, "building CSR", bar_t0, src.size > 20_000_000)
        g = Graph.from_edges(src, dst, num_vertices=num_vertices, directed=directed, index_dtype=index_dtype)
        g.vertex_ids = ids
    if stats is not None:
        stats.tuples = int(src.size)
    return g


def read_edgelist(path, *, directed=None, relabel=False, num_vertices=None, index_dtype=None,
                  progress=None, stats=None) -> Graph:
    t0 = time.perf_counter()
    stats = stats if stats is not None else ReadStats(os.fspath(path), "edgelist")
    src, dst, declared_n, declared_dir = read_edges(path, num_vertices, progress, stats)
    if directed is None:
        directed = bool(declared_dir)
        if declared_dir is None and src.size:
            stats.notes.append(f"{os.path.basename(os.fspath(path))}: no directedness declared; "
                               "read as undirected (directed=True / --directed for a directed graph)")
    if relabel:
        declared_n = None
    g = graph_from_edges(src, dst, num_vertices=declared_n, directed=directed, relabel=relabel,
                         index_dtype=index_dtype, stats=stats, bar_t0=t0, progress=progress)
    note = sparse_id_note(g, declared_n is not None)
    if note:
        stats.notes.append(note)
    finish_stats(stats, g, t0)
    return g


# ---------------------------------------------------------------- text formatting (writers)
@njit(cache=True)
def _ndigits(x):
    if x < 0:
        return 1 + _ndigits(-x)
    d = 1
    while x >= 10:
        x //= 10
        d += 1
    return d


@njit(parallel=True, cache=True)
def _row_lengths(cols, lengths):
    k, n = cols.shape
    for i in prange(n):
        total = k                       # k - 1 separators + newline
        for j in range(k):
            total += _ndigits(cols[j, i])
        lengths[i] = total


@njit(cache=True)
def _put_int(out, p, x):
    if x < 0:
        out[p] = MINUS
        p += 1
        x = -x
    d = _ndigits(x)
    q = p + d - 1
    while True:
        out[q] = 48 + x % 10
        x //= 10
        q -= 1
        if x == 0:
            break
    return p + d


@njit(parallel=True, cache=True)
def _write_rows(cols, ends, sep, out):
    k, n = cols.shape
    for i in prange(n):
        p = 0 if i == 0 else ends[i - 1]
        for j in range(k):
            p = _put_int(out, p, cols[j, i])
            out[p] = sep if j < k - 1 else NL
            p += 1


def format_rows(cols, sep: str) -> np.ndarray:
    """ASCII text of the rows of a (k, n) int64 array: k columns joined by ``sep``, one line each."""
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    n = cols.shape[1]
    if n == 0:
        return np.zeros(0, dtype=np.uint8)
    lengths = np.empty(n, dtype=np.int64)
    _row_lengths(cols, lengths)
    ends = np.cumsum(lengths)
    out = np.empty(int(ends[-1]), dtype=np.uint8)
    _write_rows(cols, ends, np.uint8(ord(sep)), out)
    return out


def edge_blocks(graph, target_arcs=1 << 22):
    """Yield (src, dst) int64 blocks of the graph's edges: every arc if directed, u < v once if not."""
    n = graph.num_vertices
    indptr = graph.indptr
    lo = 0
    while lo < n:
        hi = int(np.searchsorted(indptr, indptr[lo] + target_arcs, side="right")) - 1
        hi = min(n, max(hi, lo + 1))
        a, b = int(indptr[lo]), int(indptr[hi])
        dst = np.asarray(graph.indices[a:b], dtype=np.int64)
        src = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(indptr[lo:hi + 1]))
        if not graph.directed:
            keep = src < dst
            src, dst = src[keep], dst[keep]
        yield src, dst
        lo = hi


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
