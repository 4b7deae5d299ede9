"""The batch name table of the bounded-memory reader (graph/io/name_table.py) against a dict."""
import numpy as np
import pyarrow as pa

from breadth.graph.io.name_table import EMPTY, NameTable


def reference(rows, known):
    """Ids by first appearance, source before target, comment rows dropped (a plain dict)."""
    src, dst = [], []
    for a, b in rows:
        if a.strip().startswith(("#", "%")):
            continue
        ids = [known.setdefault(x.strip(), len(known)) for x in (a, b)]
        src.append(ids[0])
        dst.append(ids[1])
    return src, dst


def test_batches_grow_the_table_and_number_names_in_order():
    rng = np.random.default_rng(3)
    table, known = NameTable(capacity=4), {}
    for batch in range(3):
        names = [f"v{int(x)}" for x in rng.integers(0, 3000, 4000)]
        rows = list(zip(names[:2000], names[2000:]))
        rows[7] = ("# a comment", "v1")
        rows[11] = ("v5", "#not-a-comment")          # only a first field starts a comment line
        rows[13] = ("  v9 ", "v9\t")
        s, d, problem = table.encode(pa.array([a for a, _ in rows]), pa.array([b for _, b in rows]))
        src, dst = reference(rows, known)
        assert problem is None
        assert s.tolist() == src and d.tolist() == dst
    assert len(table) == len(known)
    assert table.labels().tolist() == list(known)


def test_an_empty_name_stops_at_its_row():
    table = NameTable()
    s, d, problem = table.encode(pa.array(["a", "b", "c"]), pa.array(["b", " ", "a"]))
    assert problem == (EMPTY, 1)
    assert s.tolist() == [0] and d.tolist() == [1]
