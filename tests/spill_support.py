"""Shared by the bounded-conversion tests (tests/graph/test_io_spill.py, test_io_sources.py): the
random tuples they convert, the members of an .npz, and the small sizes that make small files take
every path of the spill pipeline."""
import zipfile

import numpy as np

from breadth.graph.io import edgelist, graph500bin, spill


def random_tuples(seed=3, m=6000, n=700):
    """Random tuples with duplicates, self-loops and a hub (vertex 5), in shuffled order."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, n, m)
    d = rng.integers(0, n, m)
    s[:40] = d[:40]                                     # self-loops
    s[40:400] = 5                                       # a hub
    s[400:800], d[400:800] = s[800:1200], d[800:1200]   # duplicates
    order = rng.permutation(m)
    return s[order], d[order]


def members(path):
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}, zf.namelist()


def shrink(monkeypatch):
    """Buckets of a few hundred arcs, tuple chunks of 1000, binary chunks of 100 pairs (75 packed
    tuples) and text blocks of 4 KiB; returns the list that collects the bucket count of each build."""
    monkeypatch.setattr(spill, "MIN_BUCKET_ARCS", 256)
    monkeypatch.setattr(spill, "CHUNK", 1000)
    monkeypatch.setattr(graph500bin, "CHUNK_BYTES", 1600)
    monkeypatch.setattr(edgelist, "CHUNK_BYTES", 1 << 12)
    seen = []
    cuts = spill._cuts

    def counting(raw_starts, per):
        c = cuts(raw_starts, per)
        seen.append(c.size - 1)
        return c

    monkeypatch.setattr(spill, "_cuts", counting)
    return seen
