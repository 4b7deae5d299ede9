"""The whole-file name numbering (``name_partition.encode_table``) against a plain dict, in every partitioning."""
import numpy as np
import pytest

from breadth.graph.io import name_partition
from breadth.graph.io.name_table import BINARY, EMPTY

pa = pytest.importorskip("pyarrow")


def reference(rows):
    """(src, dst, names) numbered by first appearance, source before target, comments dropped."""
    ids, src, dst = {}, [], []
    for a, b in rows:
        a, b = a.strip(" \t\r"), b.strip(" \t\r")
        if a[:1] in ("#", "%"):
            continue
        src.append(ids.setdefault(a, len(ids)))
        dst.append(ids.setdefault(b, len(ids)))
    return src, dst, list(ids)


def chunks_of(rows, size):
    return [(pa.array([r[0] for r in rows[i:i + size]], pa.string()),
             pa.array([r[1] for r in rows[i:i + size]], pa.string())) for i in range(0, len(rows), size)]


def random_rows(seed, count, names):
    rng = np.random.default_rng(seed)
    pool = [f"n{k}" * int(rng.integers(1, 4)) for k in range(names)] + ["é ü", "a,b", " pad ", "x\r"]
    rows = [(pool[int(rng.integers(len(pool)))], pool[int(rng.integers(len(pool)))]) for _ in range(count)]
    for k in rng.integers(0, count, 5):
        rows.insert(int(k), ("# comment", "z"))
    return rows


@pytest.mark.parametrize("part_values", [1, 64, 1 << 16])
@pytest.mark.parametrize("chunk", [7, 1000, 100_000])
def test_ids_and_names_equal_a_dict(monkeypatch, part_values, chunk):
    monkeypatch.setattr(name_partition, "PART_VALUES", part_values)
    rows = random_rows(part_values + chunk, 5000, 700)
    src, dst, labels, problem = name_partition.encode_table(chunks_of(rows, chunk))
    ref_src, ref_dst, ref_names = reference(rows)
    assert problem is None
    assert src.tolist() == ref_src and dst.tolist() == ref_dst and labels.tolist() == ref_names


def test_no_rows():
    src, dst, labels, problem = name_partition.encode_table([])
    assert problem is None and src.size == dst.size == labels.size == 0


@pytest.mark.parametrize("bad, status", [(("c", " "), EMPTY), (("", "d"), EMPTY), (("c\x01", "d"), BINARY),
                                         (("c", "d\x7f"), BINARY)])
def test_first_bad_row_is_reported(bad, status):
    rows = [("a", "b")] * 10 + [bad] + [("", "")] * 3
    *_, problem = name_partition.encode_table(chunks_of(rows, 4))
    assert problem == (status, 2, 2)          # chunk 2 (rows 8..11), its row 2


def test_one_thread_gives_the_same_ids():
    import numba

    rows = random_rows(3, 20_000, 3000)
    ref_src, ref_dst, ref_names = reference(rows)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        src, dst, labels, _ = name_partition.encode_table(chunks_of(rows, 6000))
    finally:
        numba.set_num_threads(before)
    assert src.tolist() == ref_src and dst.tolist() == ref_dst and labels.tolist() == ref_names
