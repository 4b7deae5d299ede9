"""Reading an edge list of vertex names: breadth against its peers, measured in the same run.

A tab-separated file of --lines edges between --vertices names (``user0001234``,
endpoints drawn at random) is read by

1. ``breadth.read`` (pyarrow's CSV reader, names numbered by ``name_table``, CSR built)
   and breadth's parse alone (``read_edges``: the dense ids and the names, no CSR);
2. the peer: ``pyarrow.csv.read_csv`` and a factorize of both columns together
   (``pandas.factorize`` when pandas is installed, else ``pyarrow``'s
   ``dictionary_encode``), which gives the same dense ids and names;
3. ``networkx.read_edgelist`` on the first --nx-lines lines only (it runs Python per
   line), extrapolated per line to the whole file.

Targets (issue 36): breadth within 2x of the peer, and at least 20x faster than
networkx. Numba compilation is excluded (a warm-up read of a small file).

    .venv/bin/python bench/named_edgelist.py                         # 10M lines
    .venv/bin/python bench/named_edgelist.py --lines 1000000 --nx-lines 100000
"""
from __future__ import annotations

import argparse
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


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def peer(path):
    """pyarrow.csv.read_csv + factorize of both columns: (seconds, names, which factorize)."""
    ropt = pacsv.ReadOptions(autogenerate_column_names=True)
    popt = pacsv.ParseOptions(delimiter="\t", quote_char=False)
    copt = pacsv.ConvertOptions(column_types={"f0": pa.string(), "f1": pa.string()})
    t0 = time.perf_counter()
    table = pacsv.read_csv(path, ropt, popt, copt)
    try:
        import pandas as pd
    except ImportError:
        both = pa.chunked_array(table["f0"].chunks + table["f1"].chunks).dictionary_encode()
        names = len(both.chunk(0).dictionary) if both.num_chunks else 0
        how = "pyarrow dictionary_encode (pandas is not installed)"
    else:
        codes, uniques = pd.factorize(np.concatenate((table["f0"].to_numpy(zero_copy_only=False),
                                                      table["f1"].to_numpy(zero_copy_only=False))))
        names = len(uniques)
        how = "pandas.factorize"
    return time.perf_counter() - t0, names, how


def networkx_per_line(path, lines):
    import itertools

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
    ap.add_argument("--json", metavar="FILE", default=None, help="write the numbers as JSON")
    ap.add_argument("--dir", default=None, help="where the file goes (default: a temporary folder)")
    args = ap.parse_args(argv)
    vertices = args.vertices or max(2, args.lines // 10)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = os.path.join(tmp, "names.tsv")
        small = os.path.join(tmp, "warm.tsv")
        write_names(small, 1000, 100)
        breadth.read(small, progress=False)                       # compile (or load) the kernels
        t_write, _ = timed(lambda: write_names(path, args.lines, vertices))
        size = os.path.getsize(path)
        t_read, g = timed(lambda: breadth.read(path, progress=False))
        declared = {}
        t_parse, _ = timed(lambda: read_edges(path, progress=False, declared=declared))
        t_peer, peer_names, how = peer(path)
        assert peer_names == g.num_vertices == declared["labels"].size
        nx_line, _ = networkx_per_line(path, min(args.nx_lines, args.lines))
        t_nx = nx_line * args.lines
    rows = [("breadth.read (names, CSR)", t_read), ("breadth parse + numbering (no CSR)", t_parse),
            (f"pyarrow.csv.read_csv + {how}", t_peer),
            (f"networkx.read_edgelist (first {min(args.nx_lines, args.lines):,} lines, extrapolated)", t_nx)]
    print(f"{args.lines:,} lines, {g.num_vertices:,} names, {size / 1e6:.0f} MB (written in {t_write:.1f} s)")
    for name, t in rows:
        print(f"  {name:<72} {t:8.2f} s {size / 1e6 / t:8.1f} MB/s")
    print(f"breadth.read / peer: {t_read / t_peer:.2f}x (target <= 2); parse only / peer: {t_parse / t_peer:.2f}x")
    print(f"networkx / breadth.read: {t_nx / t_read:.0f}x (target >= 20)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"lines": args.lines, "names": g.num_vertices, "bytes": size, "peer": how,
                       "seconds": {name: t for name, t in rows}}, f, indent=2)


if __name__ == "__main__":
    main()
