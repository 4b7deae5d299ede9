"""breadth's native graph file: an uncompressed ``.npz`` of the CSR arrays, opened memory-mapped.

Layout: a zip archive (numpy ``savez``, stored, not deflated) with members
``indptr``, ``indices`` and for directed graphs ``in_indptr``, ``in_indices``,
plus ``meta`` = [format version, directed] and, for a graph with vertex labels,
``vertex_ids``: the original id of each vertex (int64), or its string label (a
numpy unicode array, read back without pickle as an object array of str).
Other labels (tuples, a mix of integers and strings, strings ending in a NUL
character, which numpy unicode arrays cannot keep) are refused with InputError.
Because members are stored uncompressed, ``load`` maps each array straight from the file (np.memmap at the
member's data offset): opening costs page-table work, not a read of the file.
"""
from __future__ import annotations

import os
import struct
import zipfile

import numpy as np

from ..errors import InputError
from ..files import atomic_output
from .memory import check_fits
from .types import Graph

FORMAT_VERSION = 1
_MEMBERS = ("indptr", "indices", "in_indptr", "in_indices", "vertex_ids")


def members(graph: Graph) -> dict:
    """The named arrays a native file stores for ``graph`` (write them with ``np.savez``)."""
    arrays = {"indptr": graph.indptr, "indices": graph.indices,
              "meta": np.array([FORMAT_VERSION, int(graph.directed)], dtype=np.int64)}
    if graph.directed:
        arrays["in_indptr"] = graph.in_indptr
        arrays["in_indices"] = graph.in_indices
    ids = getattr(graph, "vertex_ids", None)
    if ids is not None:
        arrays["vertex_ids"] = string_labels(ids) if ids.dtype == object else np.asarray(ids, dtype=np.int64)
    return arrays


def string_labels(ids: np.ndarray) -> np.ndarray:
    """An object array of str labels as a numpy unicode array; InputError for any other labels."""
    items = ids.tolist()
    kinds = {type(x) for x in items}
    if kinds - {str}:
        raise InputError("native files store integer ids or string labels; this graph's labels are "
                         f"{_kinds(kinds)} (set graph.vertex_ids = None to save it with dense ids)")
    if any(x.endswith("\0") for x in items):
        bad = next(x for x in items if x.endswith("\0"))
        raise InputError(f"native files cannot keep the label {bad!r}: a label may not end in a NUL character")
    width = max(map(len, items), default=1)
    check_fits(f"the string labels of {len(items):,} vertices ({width} characters each)",
               4 * max(width, 1) * len(items))
    return np.array(items, dtype=f"<U{max(width, 1)}")


def _kinds(kinds) -> str:
    """Label types for messages ("tuple", "int and str", ...)."""
    return " and ".join(sorted(k.__name__ for k in kinds))


def save(graph: Graph, path) -> None:
    """Write ``graph`` to ``path`` in the native format (.npz added if missing), atomically.

    The native format keeps everything: the CSR arrays, the in-edges of a directed graph and
    the labels; ``breadth.load`` opens it without parsing (memory-mapped).

    Args:
        graph: the graph.
        path: the output file.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3], directed=True)
        >>> breadth.save(g, "path")
        >>> breadth.load("path.npz")
        Graph(directed, 4 vertices, 3 edges)
    """
    path = os.fspath(path)
    write_native(graph, path if path.endswith(".npz") else path + ".npz")


def write_native(graph: Graph, path) -> None:
    """Write ``graph`` to exactly ``path``, atomically (``breadth.files.atomic_output``)."""
    with atomic_output(path) as f:
        np.savez(f, **members(graph))


def _member_array(path, fh, info: zipfile.ZipInfo, mmap: bool):
    if info.compress_type != zipfile.ZIP_STORED or not mmap:
        with zipfile.ZipFile(path) as zf, zf.open(info) as m:
            return np.lib.format.read_array(m, allow_pickle=False)
    fh.seek(info.header_offset)
    local = fh.read(30)
    if len(local) != 30 or local[:4] != b"PK\x03\x04":
        raise ValueError("bad local header")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    start = info.header_offset + 30 + name_len + extra_len
    fh.seek(start)
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    if dtype.hasobject:
        raise ValueError("object arrays are not allowed")
    offset = fh.tell()
    count = int(np.prod(shape))
    if offset + count * dtype.itemsize > start + info.file_size:
        raise ValueError(f"member {info.filename} is truncated")
    if count == 0:
        return np.empty(shape, dtype=dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape,
                     order="F" if fortran else "C")


def load(path, mmap: bool = True, check: bool = True) -> Graph:
    """Open a native graph file (``.npz`` written by ``breadth.save``).

    Args:
        path: the file.
        mmap: memory-map the arrays (nothing is read until used) instead of reading them.
        check: verify the CSR structure (offsets, id range), so a corrupt file is refused with
            InputError instead of crashing a kernel.

    Returns:
        The graph, with its labels (``vertex_ids``) if it was saved with them.

    Raises:
        InputError: no such file, or not a valid breadth graph file.

    Examples:
        >>> breadth.save(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]), "path.npz")
        >>> breadth.load("path.npz")
        Graph(undirected, 4 vertices, 3 edges)
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, expected a .npz graph file")
    try:
        with zipfile.ZipFile(path) as zf, open(path, "rb") as fh:
            infos = {i.filename[:-4]: i for i in zf.infolist() if i.filename.endswith(".npy")}
            if "meta" not in infos or "indptr" not in infos or "indices" not in infos:
                raise ValueError("not a breadth graph (missing indptr/indices/meta)")
            meta = _member_array(path, fh, infos["meta"], False)
            if meta.shape != (2,) or int(meta[0]) != FORMAT_VERSION:
                raise ValueError(f"unsupported format version {meta[:1]}")
            directed = bool(meta[1])
            arrays = {k: _member_array(path, fh, infos[k], mmap) for k in _MEMBERS if k in infos}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error) as exc:
        raise InputError(f"{path}: not a valid breadth graph file ({exc})") from None
    if directed and ("in_indptr" not in arrays or "in_indices" not in arrays):
        raise InputError(f"{path}: directed graph without in-edge arrays")
    try:
        return Graph(arrays["indptr"], arrays["indices"], directed=directed,
                     in_indptr=arrays.get("in_indptr"), in_indices=arrays.get("in_indices"), check=check,
                     vertex_ids=arrays.get("vertex_ids"))
    except InputError as exc:
        raise InputError(f"{path}: corrupt graph file: {exc}") from None
