"""Edge lists whose vertices are names (``Napoleon<TAB>Myriel``, ``alice,bob``): pyarrow tokenizes, numba numbers.

``edgelist.edge_chunks`` reads numeric files with its own parser and comes here when
a token is not a number. The text is tokenized by pyarrow's CSV reader (the ``io``
extra: ``read_csv`` for the whole text in memory, ``open_csv`` block by block for
bounded memory) with the separator of the first data line (a tab, else a comma, else
a space; quotes are honoured in comma-separated files), from the first data line on
(the leading comment lines are skipped, and the first data line too when it is a
column header). The first two fields of each row are names, given dense ids in order
of first appearance and kept as the graph's labels (``Graph.vertex_ids``, an object
array of str): by ``name_partition`` for the in-memory reader (the whole text at
once, all threads), by ``name_table.NameTable`` batch by batch for the
bounded-memory one. Rows of another width than the first (more fields: weights; a
space-separated row with a double space) are split by Python's ``str.split`` (or the
``csv`` module) in the reader's callback; a row of one field is an error naming its
text.
"""
from __future__ import annotations

import csv
import os

from ...errors import InputError
from .name_partition import encode_table
from .name_table import BINARY, EMPTY, NameTable

BLOCK_BYTES = 1 << 24


def shown(raw, limit: int = 40) -> str:
    """Bytes or text for a message, quoted: undecodable bytes and control characters escaped
    (``\\x89``), cut after ``limit`` characters of the escaped text (then ``...``)."""
    text = raw.decode("utf-8", "surrogateescape") if isinstance(raw, (bytes, bytearray)) else str(raw)
    out, size = [], 0
    for c in text:
        if 0xDC80 <= ord(c) <= 0xDCFF:               # an undecodable byte
            piece = f"\\x{ord(c) - 0xDC00:02x}"
        else:
            piece = c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
        if size + len(piece) > limit:
            out.append("...")
            break
        out.append(piece)
        size += len(piece)
    return "'" + "".join(out) + "'"


def pyarrow_csv():
    """pyarrow and its csv module, or InputError saying how to install them."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        raise InputError("reading vertex names needs pyarrow, which is not installed: "
                         "pip install 'breadth[io]'") from None
    return pa, pacsv


def separator(line: bytes) -> str:
    """The field separator of a data line: a tab, else a comma, else a space."""
    return "\t" if b"\t" in line else "," if b"," in line else " "


def _split(text: str, sep: str) -> list:
    if sep == ",":
        return next(csv.reader([text]), [])
    return text.split()


def named_chunks(path, stream, sep: str, first_fields: int, notes: list, whole: bool = False):
    """Yield (src ids, dst ids) of the named edge rows of the binary ``stream`` (positioned at the first
    edge row); once done, return the labels (object array of str). ``first_fields`` is the width of the
    first row. ``whole``: tokenize the whole text at once (``read_csv``, all threads; the in-memory
    reader) instead of block by block (``open_csv``, bounded memory). Bad rows raise InputError."""
    pa, pacsv = pyarrow_csv()
    odd = []

    def irregular(row):
        odd.append(row.text)
        return "skip"

    ropt = pacsv.ReadOptions(autogenerate_column_names=True, block_size=BLOCK_BYTES)
    popt = pacsv.ParseOptions(delimiter=sep, quote_char='"' if sep == "," else False,
                              invalid_row_handler=irregular)
    copt = pacsv.ConvertOptions(column_types={"f0": pa.string(), "f1": pa.string()},
                                include_columns=["f0", "f1"])
    table = NameTable()
    wider = first_fields > 2
    try:
        if whole:
            labels, wider = yield from _whole(path, stream, ropt, popt, copt, odd, sep, wider)
            return _noted(path, notes, wider, labels)
        for batch in pacsv.open_csv(stream, read_options=ropt, parse_options=popt, convert_options=copt):
            s, d, problem = table.encode(batch.column(0), batch.column(1))
            if problem is not None:
                raise _row_error(path, problem, batch.column(0), batch.column(1))
            if s.size:
                yield s, d
            if odd:
                s, d, more = _odd_rows(path, odd, sep, table)
                wider |= more
                odd.clear()
                if s.size:
                    yield s, d
    except pa.ArrowInvalid as exc:
        raise InputError(f"{path}: cannot read the vertex names: {_arrow_reason(exc)}") from None
    if odd:
        s, d, more = _odd_rows(path, odd, sep, table)
        wider |= more
        if s.size:
            yield s, d
    return _noted(path, notes, wider, table.labels())


def _whole(path, stream, ropt, popt, copt, odd, sep, wider):
    """The in-memory reader: the whole text tokenized at once (``read_csv``, all threads), the rows of
    another width appended, every name numbered by ``name_partition``. Yields (src, dst) once; returns
    (labels, wider)."""
    pa, pacsv = pyarrow_csv()
    whole_table = pacsv.read_csv(stream, read_options=ropt, parse_options=popt, convert_options=copt)
    chunks = list(zip(whole_table.column(0).chunks, whole_table.column(1).chunks))
    del whole_table
    if odd:
        first, second, more = _odd_fields(path, odd, sep)
        wider |= more
        odd.clear()
        chunks.append((pa.array(first, pa.string()), pa.array(second, pa.string())))
    s, d, labels, problem = encode_table(chunks)
    if problem is not None:
        status, chunk, row = problem
        raise _row_error(path, (status, row), *chunks[chunk])
    if s.size:
        yield s, d
    return labels, wider


def _noted(path, notes, wider, labels):
    if wider:
        notes.append(f"{_base(path)}: columns after the second (weights?) were ignored")
    return labels


def _base(path) -> str:
    return os.path.basename(path)


def _arrow_reason(exc) -> str:
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "UTF8" in msg or "utf8" in msg.lower():
        return "the file is not UTF-8 text (binary data?)"
    return msg[:200]


def _row_error(path, problem, col0, col1) -> InputError:
    status, row = problem
    cells = [col0[row].as_py(), col1[row].as_py()]
    text = "\t".join(cells)
    if status == BINARY:
        return InputError(f"{path}: not a text edge list: the line {shown(text)} holds control bytes (binary data?)")
    if status == EMPTY:
        return InputError(f"{path}: an empty vertex name on the line {shown(text)}")
    return InputError(f"{path}: unreadable edge line {shown(text)}")  # pragma: no cover - every status is named


def _odd_fields(path, rows, sep):
    """(first names, second names, wider) of rows pyarrow found of another width than the first: split
    here (few, in most files); comment and blank rows dropped, a row of one field an error."""
    first, second = [], []
    wider = False
    for text in rows:
        stripped = text.strip()
        if not stripped or stripped[0] in "#%":
            continue
        fields = [f for f in _split(stripped, sep) if f.strip()] if sep == " " else _split(stripped, sep)
        if len(fields) < 2:
            raise InputError(f"{path}: the line {shown(text)} has one field; an edge needs two vertex "
                             "names (source target)")
        wider |= len(fields) > 2
        first.append(fields[0])
        second.append(fields[1])
    return first, second, wider


def _odd_rows(path, rows, sep, table):
    """Ids of the rows of another width (``_odd_fields``), numbered by ``table``."""
    import pyarrow as pa

    first, second, wider = _odd_fields(path, rows, sep)
    s, d, problem = table.encode(pa.array(first, pa.string()), pa.array(second, pa.string()))
    if problem is not None:
        status, row = problem
        text = f"{first[row]}{sep}{second[row]}"
        what = "holds control bytes (binary data?)" if status == BINARY else "has an empty vertex name"
        raise InputError(f"{path}: the line {shown(text)} {what}")
    return s, d, wider


def open_from(path, gz: bool, offset: int):
    """(stream, raw): a pyarrow stream of ``path``'s (decompressed) text from byte ``offset``, and the
    file under it (``raw.tell()`` is the position on disk, for progress bars)."""
    pa, _ = pyarrow_csv()
    raw = pa.OSFile(path, "rb")
    stream = pa.CompressedInputStream(raw, "gzip") if gz else raw
    if gz:
        while offset > 0:
            got = stream.read(min(offset, 1 << 24))
            if not got:
                break
            offset -= len(got)
    elif offset:
        stream.seek(offset)
    return stream, raw
