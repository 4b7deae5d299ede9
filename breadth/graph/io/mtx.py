"""Matrix Market (``.mtx``, optionally gzip-compressed) through ``fast_matrix_market``.

Only the sparse ``coordinate`` form of a square matrix is a graph; entry
(i, j) (1-based in the file) is the edge i-1 -> j-1, whatever its value
(pattern, integer, real or complex; explicit zeros are edges too, since the
file lists them as structure). A ``symmetric`` (or skew-symmetric, hermitian)
matrix stores one triangle and is read as an undirected graph; a ``general``
one as a directed graph, unless ``directed`` says otherwise. Writing produces
``pattern`` matrices: ``symmetric`` (lower triangle) for undirected graphs,
``general`` for directed ones.

``mtx_chunks`` reads the same files block by block for the bounded-memory
conversion: the header through ``fast_matrix_market``, the entries through the
edge-list parser, with ``read_mtx``'s errors.
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
from ._common import ReadStats, check_input, finish_stats, gzip_error, is_gzip, open_binary, output_stream
from .edgelist import line_blocks
from .edgelist_parser import (BEYOND, COMMA, HASH, NEGATIVE, NL, NON_NUMERIC, PERCENT, TOO_BIG, data_line_start,
                              first_of, parse_block)
from .edges import edge_blocks, graph_from_edges
from .text import format_rows

TOO_MANY = -1                  # an entry beyond the count the size line declares
_SEPARATORS = b" \t,\r\v\f"


def _fmm():
    try:
        import fast_matrix_market
    except ImportError:  # pragma: no cover - part of the io extra
        raise InputError("reading Matrix Market needs fast_matrix_market: pip install 'breadth[io]'") from None
    return fast_matrix_market


class _CountingReader:
    """A read-only stream that advances a progress bar by the bytes consumed on disk.

    It deliberately has no ``seek``/``tell``: fast_matrix_market (1.7) seeks a seekable
    stream after reading a header and aborts the whole process on the resulting error.
    """

    def __init__(self, stream, raw, bar=None):
        self._stream, self._raw, self._bar, self._done = stream, raw, bar, 0

    def read(self, n=-1):
        data = self._stream.read(n)
        if self._bar is not None:
            pos = self._raw.tell()
            self._bar.update(pos - self._done)
            self._done = pos
        return data


def _mtx_error(path, exc, n=None) -> InputError:
    msg = str(exc).strip() or type(exc).__name__
    m = re.match(r"Line (\d+):\s*(.*)", msg)
    line, detail = (m.group(1), m.group(2)) if m else (None, msg)
    lowered = detail[:1].lower() + detail[1:]
    if "header" in detail.lower() or "banner" in detail.lower():
        return InputError(f"{path}: line {line or 1}: bad Matrix Market header: {lowered}")
    if "out of bounds" in detail and n is not None:
        lowered += f" (Matrix Market ids are 1-based: 1..{n} for this {n}x{n} matrix)"
    where = f"{path}: line {line}" if line else path
    return InputError(f"{where}: {lowered}")


def read_mtx_header(path):
    """The fast_matrix_market header of ``path`` (InputError if it is not a Matrix Market file)."""
    fmm = _fmm()
    path = check_input(path)
    try:
        with open_binary(path, is_gzip(path)) as (stream, raw):
            return fmm.read_header(_CountingReader(stream, raw))
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise gzip_error(path, exc) from None
    except OSError as exc:
        raise os_error(path, exc) from None
    except (ValueError, RuntimeError, OverflowError) as exc:
        raise _mtx_error(path, exc) from None


def coordinate_header(path, num_vertices=None):
    """(vertices, symmetric?, entries) of a square coordinate matrix file; InputError for any other
    Matrix Market file, or when ``num_vertices`` differs from the header's."""
    h = read_mtx_header(path)
    if h.object != "matrix" or h.format != "coordinate":
        raise InputError(f"{path}: line 1: a graph needs a sparse 'matrix coordinate' Matrix Market file, "
                         f"got '{h.object} {h.format}'")
    if h.nrows != h.ncols:
        raise InputError(f"{path}: the matrix is {h.nrows}x{h.ncols}; an adjacency matrix must be square")
    n = int(h.nrows)
    if num_vertices is not None and int(num_vertices) != n:
        raise InputError(f"{path}: the header declares {n} vertices, not {num_vertices}")
    return n, h.symmetry != "general", int(h.nnz)


def read_mtx(path, *, directed=None, relabel=False, num_vertices=None, index_dtype=None,
             progress=None, stats=None) -> Graph:
    t0 = time.perf_counter()
    fmm = _fmm()
    path = check_input(path)
    stats = stats if stats is not None else ReadStats(path, "mtx")
    size = os.path.getsize(path)
    stats.file_bytes = size
    if size == 0:
        g = graph_from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), num_vertices=num_vertices or 0,
                             directed=bool(directed), relabel=relabel, index_dtype=index_dtype, stats=stats,
                             bar_t0=t0, progress=progress)
        finish_stats(stats, g, t0)
        return g
    n, symmetric, _ = coordinate_header(path, num_vertices)
    bar = progress_bar(size, f"reading {os.path.basename(path)}", progress)
    try:
        with bar, open_binary(path, is_gzip(path)) as (stream, raw):
            (_, (rows, cols)), _shape = fmm.read_coo(_CountingReader(stream, raw, bar), generalize_symmetry=False)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise gzip_error(path, exc) from None
    except OSError as exc:
        raise os_error(path, exc) from None
    except (ValueError, RuntimeError, OverflowError) as exc:
        raise _mtx_error(path, exc, n) from None
    src = rows.astype(np.int64)
    dst = cols.astype(np.int64)
    del rows, cols
    if directed is None:
        directed = not symmetric
    if symmetric and directed:          # each stored entry stands for both directions
        off = src != dst
        src, dst = np.concatenate((src, dst[off])), np.concatenate((dst, src[off]))
    g = graph_from_edges(src, dst, num_vertices=None if relabel else n, directed=directed, relabel=relabel,
                         index_dtype=index_dtype, stats=stats, bar_t0=t0, progress=progress)
    finish_stats(stats, g, t0)
    return g


def header_extent(path):
    """(bytes, lines, banner, size line) of the banner, comment lines and size line that precede the
    entries (the two lines stripped; the size line empty when the file ends first)."""
    nbytes = lines = 0
    banner = b""
    with open_binary(path, is_gzip(path)) as (stream, _):
        while True:
            line = stream.readline()
            if not line:
                return nbytes, lines, banner, b""
            nbytes += len(line)
            lines += 1
            stripped = line.strip()
            if lines == 1:
                banner = stripped
            elif stripped and not stripped.startswith(b"%"):
                return nbytes, lines, banner, stripped


def _entry_error(path, block, code, pos, line_base, n) -> InputError:
    """``read_mtx``'s one-line error for the bad entry whose token starts at byte ``pos`` of ``block``."""
    line = line_base + int(np.count_nonzero(block[:pos] == NL)) + 1
    if code in (BEYOND, NEGATIVE):
        start = pos - len(bytes(block[max(0, pos - 4096):pos]).rpartition(b"\n")[2])
        first = not bytes(block[start:pos]).strip(_SEPARATORS)
        detail = ("Row" if first else "Column") + " index out of bounds"
    elif code == TOO_MANY:
        detail = "Too many lines in file (file too long)"
    elif code == TOO_BIG:
        detail = "Integer out of range."
    else:
        detail = "Invalid integer value."
    return _mtx_error(path, ValueError(f"Line {line}: {detail}"), n)


def _zero_id(block, s, d):
    """(BEYOND, byte offset of the token) of the first entry with a 0 id (ids are 1-based), or None."""
    zero = np.flatnonzero((s == 0) | (d == 0))
    if not zero.size:
        return None
    k = int(zero[0])
    pos = data_line_start(block, k)
    if s[k] != 0:                       # the column: the second field of the line
        head = bytes(block[pos:pos + 4096])
        pos += len(head) - len(head.lstrip(_SEPARATORS).lstrip(b"0123456789").lstrip(_SEPARATORS))
    return BEYOND, pos


def mtx_chunks(path, directed=None, num_vertices=None, progress=None, stats=None, declared=None):
    """Yield the 0-based int64 (src, dst) arrays of a coordinate Matrix Market file one block (at most
    64 MiB of text) at a time: the header checked as ``read_mtx`` does, then the entries parsed by the
    edge-list parser (the value column ignored), with a progress bar over the file's bytes. A
    symmetric file read as directed yields both directions of each off-diagonal entry, as
    ``read_mtx`` does. ``declared`` (a dict) receives "vertices" (the header's) and "directed" (the
    direction read: ``directed``, else the file's symmetry). Bad entries raise ``read_mtx``'s errors."""
    path = check_input(path)
    size = os.path.getsize(path)
    if stats is not None:
        stats.file_bytes = size
    if size == 0:
        if declared is not None:
            declared["vertices"], declared["directed"] = num_vertices, bool(directed)
        return
    n, symmetric, entries = coordinate_header(path, num_vertices)
    directed = not symmetric if directed is None else bool(directed)
    if declared is not None:
        declared["vertices"], declared["directed"] = n, directed
    try:
        skip, line_base, _, _ = header_extent(path)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise gzip_error(path, exc) from None
    except OSError as exc:
        raise os_error(path, exc) from None
    seen = 0
    for block in line_blocks(path, progress, skip=skip):
        s, d, nl, _, error = parse_block(block, n + 1)
        bad = first_of(block, PERCENT, HASH, COMMA)     # comment lines and commas: not in an entry
        if bad >= 0 and (error is None or bad < error[1]):
            error = (NON_NUMERIC, bad)
        if error is None:               # the first of a 0 id and an entry beyond the declared count
            extra = (TOO_MANY, data_line_start(block, entries - seen)) if seen + s.size > entries else None
            found = [e for e in (_zero_id(block, s, d), extra) if e is not None]
            error = min(found, key=lambda e: e[1]) if found else None
        if error is not None:
            raise _entry_error(path, block, *error, line_base, n)
        line_base += nl
        seen += s.size
        del block
        s -= 1
        d -= 1
        if symmetric and directed:      # each stored entry stands for both directions
            off = s != d
            s, d = np.concatenate((s, d[off])), np.concatenate((d, s[off]))
        if s.size:
            yield s, d
        del s, d
    if seen < entries:
        raise InputError(f"{path}: truncated file. Expected another {entries - seen} lines.")


def write_mtx(graph, path, *, gz=False, progress=None) -> None:
    """Write a pattern Matrix Market file: symmetric lower triangle (undirected) or general (directed).

    Written here with the parallel text formatter rather than by fast_matrix_market, whose
    stream writer aborts the process on an empty matrix (fast_matrix_market 1.7).
    """
    n = graph.num_vertices
    kind = "directed" if graph.directed else "undirected"
    symmetry = "general" if graph.directed else "symmetric"
    head = (f"%%MatrixMarket matrix coordinate pattern {symmetry}\n"
            f"% {kind} graph: {n} vertices, {graph.num_edges} edges, written by breadth\n"
            f"{n} {n} {graph.num_edges}\n")
    bar = progress_bar(graph.num_edges, f"writing {os.path.basename(os.fspath(path))}", progress, unit="edges")
    with bar, output_stream(path, gz) as f:
        f.write(head.encode())
        for src, dst in edge_blocks(graph):
            rows, cols = (src, dst) if graph.directed else (dst, src)   # symmetric: lower triangle
            f.write(memoryview(format_rows(np.stack((rows + 1, cols + 1)), " ")))
            bar.update(src.size)
