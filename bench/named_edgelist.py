"""Reading an edge list of vertex names: breadth against its peers, measured in the same run.

A tab-separated file of --lines edges between --vertices names (``user0001234``,
endpoints drawn at random) is read by

1. ``breadth.read`` (pyarrow's CSV reader, names numbered by ``name_partition``, CSR built)
   and breadth's parse alone (``read_edges``: the dense ids and the names, no CSR);
2. the peer of issue 36: ``pyarrow.csv.read_csv`` and ``pandas.factorize`` of both columns
   together (pandas' own string columns, ``Table.to_pandas``), which gives the same dense ids
   and names; and, as a further reference, ``read_csv`` with pyarrow's ``dictionary_encode``
   of both columns (C++ only, no pandas);
3. ``networkx.read_edgelist`` on the first --nx-lines lines only (it runs Python per
   line, at a steady time per line), extrapolated per line to the whole file.

The contenders run in turn, --repeat rounds, and each keeps its best round, so that a
busy machine slows them alike. Targets (issue 36): breadth within 2x of the peer, and
at least 20x faster than networkx. Numba compilation is excluded (a warm-up read of a
smaller file of the same kind first).

    .venv/bin/python bench/named_edgelist.py                         # 10M lines (needs pandas)
    .venv/bin/python bench/named_edgelist.py --lines 1000000 --nx-lines 100000
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

import breadth
from breadth.graph.io.edgelist import read_edges


def write_names(path, lines, vertices, seed=1, step=1 << 22):
    """``lines`` tab-separated edges between ``vertices`` names, written by pyarrow in blocks."""
    rng = np.random.default_rng(seed)
    opts = pacsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    with pa.OSFile(path, "wb") as f:
        for lo in range(0, lines, step):
            k = min(step, lines - lo)
            cols = [pc.binary_join_element_wise("user", pc.utf8_lpad(pa.array(rng.integers(0, vertices, k))
                                                                     .cast(pa.string()), 7, "0"), "")
                    for _ in range(2)]
            pacsv.write_csv(pa.table({"a": cols[0], "b": cols[1]}), f, opts)


def read_table(path):
    ropt = pacsv.ReadOptions(autogenerate_column_names=True)
    popt = pacsv.ParseOptions(delimiter="\t", quote_char=False)
    copt = pacsv.ConvertOptions(column_types={"f0": pa.string(), "f1": pa.string()})
    return pacsv.read_csv(path, ropt, popt, copt)


def peer_pandas(path):
    """pyarrow.csv.read_csv + pandas.factorize of both columns: the number of names."""
    import pandas as pd

    table = read_table(path)
    codes, uniques = pd.factorize(pd.concat([table["f0"].to_pandas(), table["f1"].to_pandas()],
                                            ignore_index=True))
    return len(uniques)


def peer_arrow(path):
    """pyarrow.csv.read_csv + pyarrow's dictionary_encode of both columns: the number of names."""
    table = read_table(path)
    both = pa.chunked_array(table["f0"].chunks + table["f1"].chunks).dictionary_encode()
    return len(both.chunk(0).dictionary) if both.num_chunks else 0


def parse_only(path):
    declared = {}
    read_edges(path, progress=False, declared=declared)
    return declared["labels"].size


def networkx_per_line(path, lines):
    import networkx as nx

    with open(path, "rb") as f:
        head = list(itertools.islice(f, lines))
    t0 = time.perf_counter()
    G = nx.read_edgelist(head, delimiter="\t")
    return (time.perf_counter() - t0) / max(1, len(head)), G.number_of_nodes()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=10_000_000, help="edges (lines) in the file")
    ap.add_argument("--vertices", type=int, default=None, help="distinct names (default: lines / 10)")
    ap.add_argument("--nx-lines", type=int, default=200_000, help="prefix networkx reads (extrapolated)")
    ap.add_argument("--repeat", type=int, default=2, help="rounds; each contender keeps its best")
    ap.add_argument("--json", metavar="FILE", default=None, help="write the numbers as JSON")
    ap.add_argument("--dir", default=None, help="where the file goes (default: a temporary folder)")
    args = ap.parse_args(argv)
    vertices = args.vertices or max(2, args.lines // 10)
    contenders = {"breadth.read (names, CSR)": lambda p: breadth.read(p, progress=False).num_vertices,
                  "breadth parse + numbering (no CSR)": parse_only,
                  "pyarrow.csv.read_csv + pandas.factorize (the peer)": peer_pandas,
                  "pyarrow.csv.read_csv + pyarrow dictionary_encode": peer_arrow}
    best = dict.fromkeys(contenders, float("inf"))
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = os.path.join(tmp, "names.tsv")
        small = os.path.join(tmp, "warm.tsv")
        write_names(small, min(args.lines, 200_000), min(vertices, 20_000))
        for fn in contenders.values():                          # compile (or load) the kernels, import pandas
            fn(small)
        t0 = time.perf_counter()
        write_names(path, args.lines, vertices)
        t_write = time.perf_counter() - t0
        size = os.path.getsize(path)
        names = set()
        for _ in range(args.repeat):
            for name, fn in contenders.items():
                t0 = time.perf_counter()
                names.add(fn(path))
                best[name] = min(best[name], time.perf_counter() - t0)
        assert len(names) == 1, names
        nx_line, _ = networkx_per_line(path, min(args.nx_lines, args.lines))
    t_nx = nx_line * args.lines
    rows = list(best.items()) + [(f"networkx.read_edgelist (first {min(args.nx_lines, args.lines):,} lines, "
                                  "extrapolated)", t_nx)]
    t_read, t_parse = best["breadth.read (names, CSR)"], best["breadth parse + numbering (no CSR)"]
    t_peer = best["pyarrow.csv.read_csv + pandas.factorize (the peer)"]
    t_arrow = best["pyarrow.csv.read_csv + pyarrow dictionary_encode"]
    print(f"{args.lines:,} lines, {names.pop():,} names, {size / 1e6:.0f} MB (written in {t_write:.1f} s), "
          f"best of {args.repeat}")
    for name, t in rows:
        print(f"  {name:<72} {t:8.2f} s {size / 1e6 / t:8.1f} MB/s")
    print(f"breadth.read / peer: {t_read / t_peer:.2f}x (target <= 2); parse only / peer: {t_parse / t_peer:.2f}x; "
          f"breadth.read / dictionary_encode: {t_read / t_arrow:.2f}x")
    print(f"networkx / breadth.read: {t_nx / t_read:.0f}x (target >= 20)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"lines": args.lines, "bytes": size, "repeat": args.repeat,
                       "seconds": {name: t for name, t in rows}}, f, indent=2)


if __name__ == "__main__":
    main()
