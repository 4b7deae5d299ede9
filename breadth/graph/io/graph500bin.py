"""Graph500 binary edge files: little-endian tuples, no header.

Two layouts are supported:

* ``graph500`` (extensions ``.g500``, ``.bin``): pairs of int64 ``(v0, v1)``,
  16 bytes per tuple, the common "edge list of int64 pairs" dump.
* ``graph500-packed`` (``format="graph500-packed"`` only): the reference
  generator's ``packed_edge`` (``GENERATOR_USE_PACKED_EDGE_TYPE``), 12 bytes per
  tuple: uint32 low word of v0, uint32 low word of v1, then one uint32 whose
  low 16 bits are the (sign-extended) high bits of v0 and whose high 16 bits
  are those of v1; ids up to 2^47 - 1.

Tuples are undirected by default (Graph500's kernel 1 symmetrises them). The
files carry no vertex count: it is the largest id + 1 unless ``num_vertices``
declares it (needed to keep isolated vertices at the end of the id range).
"""
from __future__ import annotations

import gzip
import os
import time
import zlib

import numpy as np

from ...errors import InputError
from ...files import os_error
from ...progress import bar as progress_bar
from ..types import Graph
from ._common import (CHUNK_BYTES, ReadStats, check_input, finish_stats, gzip_error, is_gzip, open_binary,
                      output_stream, read_fully)
from .edges import edge_blocks, graph_from_edges, sparse_id_note

PACKED_DTYPE = np.dtype([("v0_low", "<u4"), ("v1_low", "<u4"), ("high", "<u4")])
PAIR_BYTES, PACKED_BYTES = 16, 12
PACKED_MAX = (1 << 47) - 1


def _read_bytes(path, size, gz, progress) -> np.ndarray:
    """All (decompressed) bytes of the file, read in 64 MiB pieces under a progress bar."""
    bar = progress_bar(size, f"reading {os.path.basename(path)}", progress)
    with bar, open_binary(path, gz) as (stream, raw):
        if not gz:
            out = np.empty(size, dtype=np.uint8)
            mv = memoryview(out)
            got = 0
            while got < size:
                k = read_fully(stream, mv[got:got + CHUNK_BYTES])
                if k == 0:
                    raise InputError(f"{path}: file shrank while being read")
                got += k
                bar.update(k)
            return out
        parts, done = [], 0
        while True:
            piece = stream.read(CHUNK_BYTES)
            if not piece:
                break
            parts.append(piece)
            pos = raw.tell()
            bar.update(pos - done)
            done = pos
        return np.frombuffer(b"".join(parts), dtype=np.uint8)


def _decode(buf: np.ndarray, packed: bool):
    if packed:
        rec = buf.view(PACKED_DTYPE)
        high = rec["high"]
        hi0 = (high & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.int64) << 32
        hi1 = (high >> 16).astype(np.uint16).view(np.int16).astype(np.int64) << 32
        return rec["v0_low"].astype(np.int64) | hi0, rec["v1_low"].astype(np.int64) | hi1
    pairs = buf.view("<i8").reshape(-1, 2)
    return np.ascontiguousarray(pairs[:, 0], dtype=np.int64), np.ascontiguousarray(pairs[:, 1], dtype=np.int64)


def _check_ids(path, src, dst, limit, rec_bytes, base=0):
    """InputError naming the first tuple (``base`` tuples precede these) with a negative id, or one
    at or beyond ``limit``."""
    bad = (src < 0) | (dst < 0)
    what = "negative vertex id"
    if not bad.any() and limit is not None:
        bad = (src >= limit) | (dst >= limit)
        what = f"vertex id beyond the declared vertex count {limit}"
    if bad.any():
        i = int(np.argmax(bad))
        v = int(src[i]) if (src[i] < 0 or (limit is not None and src[i] >= limit)) else int(dst[i])
        i += base
        raise InputError(f"{path}: tuple {i} (byte offset {i * rec_bytes}): {what}: {v}")


def _truncated(path, nbytes, packed) -> InputError:
    """The error of a file of ``nbytes`` (decompressed) bytes that is no whole number of tuples."""
    fmt, rec = ("graph500-packed", PACKED_BYTES) if packed else ("graph500", PAIR_BYTES)
    other, other_rec = ("graph500", PAIR_BYTES) if packed else ("graph500-packed", PACKED_BYTES)
    hint = f"; if it holds {other_rec}-byte tuples, read it with format='{other}'" if nbytes % other_rec == 0 else ""
    return InputError(f"{path}: truncated binary file: {nbytes} bytes is not a whole number of "
                      f"{rec}-byte {fmt} tuples ({nbytes % rec} bytes left over after tuple "
                      f"{nbytes // rec}){hint}")


def graph500_chunks(path, packed=False, num_vertices=None, progress=None, stats=None, declared=None):
    """Yield the int64 (src, dst) arrays of a Graph500 binary file about 64 MiB of it at a time, with
    a progress bar over the file's bytes; the same checks and errors as ``read_graph500`` (an
    uncompressed file's size is checked before any tuple is read, a gzip file's at its end).
    ``declared`` (a dict) receives "vertices" (``num_vertices``) and "directed" (False: undirected
    unless asked otherwise)."""
    path = check_input(path)
    size = os.path.getsize(path)
    rec = PACKED_BYTES if packed else PAIR_BYTES
    limit = None if num_vertices is None else int(num_vertices)
    if stats is not None:
        stats.file_bytes = size
    if declared is not None:
        declared["vertices"], declared["directed"] = limit, False
    try:
        gz = is_gzip(path)
        if not gz and size % rec:
            raise _truncated(path, size, packed)
        buf = np.empty(max(1, CHUNK_BYTES // rec) * rec, dtype=np.uint8)
        bar = progress_bar(size, f"reading {os.path.basename(path)}", progress)
        with bar, open_binary(path, gz) as (stream, raw):
            base = done = 0
            while True:
                got = read_fully(stream, memoryview(buf))
                if got % rec:
                    raise _truncated(path, base * rec + got, packed)
                if got:
                    src, dst = _decode(buf[:got], packed)
                    _check_ids(path, src, dst, limit, rec, base)
                    base += src.size
                    yield src, dst
                    del src, dst
                pos = raw.tell()
                bar.update(pos - done)
                done = pos
                if got < buf.size:
                    break
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise gzip_error(path, exc) from None
    except OSError as exc:
        raise os_error(path, exc) from None


def read_graph500(path, *, packed=False, directed=None, relabel=False, num_vertices=None, index_dtype=None,
                  progress=None, stats=None) -> Graph:
    t0 = time.perf_counter()
    path = check_input(path)
    fmt = "graph500-packed" if packed else "graph500"
    stats = stats if stats is not None else ReadStats(path, fmt)
    size = os.path.getsize(path)
    stats.file_bytes = size
    rec = PACKED_BYTES if packed else PAIR_BYTES
    try:
        gz = is_gzip(path)
        buf = _read_bytes(path, size, gz, progress)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise gzip_error(path, exc) from None
    except OSError as exc:
        raise os_error(path, exc) from None
    if buf.size % rec:
        raise _truncated(path, buf.size, packed)
    src, dst = _decode(buf, packed)
    del buf
    _check_ids(path, src, dst, None if num_vertices is None else int(num_vertices), rec)
    g = graph_from_edges(src, dst, num_vertices=None if relabel else num_vertices, directed=bool(directed),
                         relabel=relabel, index_dtype=index_dtype, stats=stats, bar_t0=t0, progress=progress)
    note = sparse_id_note(g, num_vertices is not None)
    if note:
        stats.notes.append(note)
    finish_stats(stats, g, t0)
    return g


def write_graph500(graph, path, *, packed=False, gz=False, original_ids=False, progress=None) -> None:
    """Write every edge once (u < v if undirected, every arc if directed) as binary tuples."""
    ids = graph.vertex_ids if original_ids else None
    if original_ids and ids is None:
        raise InputError("original_ids=True needs a relabelled graph (one with vertex_ids)")
    top = graph.num_vertices - 1 if ids is None else (int(ids.max()) if ids.size else -1)
    if packed and top > PACKED_MAX:
        raise InputError(f"vertex id {top} does not fit the 48-bit packed Graph500 format (max {PACKED_MAX})")
    bar = progress_bar(graph.num_edges, f"writing {os.path.basename(os.fspath(path))}", progress, unit="edges")
    with bar, output_stream(path, gz) as f:
        for src, dst in edge_blocks(graph):
            if ids is not None:
                src, dst = ids[src], ids[dst]
            if packed:
                rec = np.empty(src.size, dtype=PACKED_DTYPE)
                rec["v0_low"] = src & 0xFFFFFFFF
                rec["v1_low"] = dst & 0xFFFFFFFF
                rec["high"] = ((src >> 32) & 0xFFFF) | (((dst >> 32) & 0xFFFF) << 16)
                f.write(memoryview(rec.view(np.uint8)))
            else:
                pairs = np.empty((src.size, 2), dtype="<i8")
                pairs[:, 0] = src
                pairs[:, 1] = dst
                f.write(memoryview(pairs.reshape(-1).view(np.uint8)))
            bar.update(src.size)
