"""Graph file reading speed: breadth.read against parsers measured in the same run.

1. A text edge list of --edges Kronecker tuples (SNAP style: tab separated, '#' header)
   read by breadth (parse + CSR build, and the parse alone), pyarrow.csv (multi-threaded
   C++ CSV reader, parse only), numpy.loadtxt (numpy 2's C reader, parse only) and
   networkx.read_edgelist (on a --small-edges prefix: it runs Python per line; MB/s makes
   it comparable). Ratios are MB/s against breadth's parse.
2. The same edges as gzip text, Matrix Market (breadth via fast_matrix_market, and
   fast_matrix_market alone) and a Graph500 int64 binary.
3. Opening the native .npz of a scale --native-scale Kronecker graph (memory-mapped), with
   and without the O(edges) structural check.

Numba compilation is excluded (one warm-up read). Timings are the median of --repeat.

    .venv/bin/python bench/io_read.py                       # 5M edges, native scale 22
    .venv/bin/python bench/io_read.py --edges 500000 --native-scale 16 --repeat 1   # quick
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import tempfile
import time

import numpy as np

import breadth
from breadth.graph import native
from breadth.graph.io.edgelist import read_edges
from breadth.graph.io.text import format_rows


def median_time(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def kron_edges(num_edges, seed=1):
    """About num_edges Kronecker tuples (edgefactor chosen so scale * factor fits)."""
    scale = max(4, int(np.ceil(np.log2(max(num_edges, 16) / 16))))
    src, dst = breadth.kronecker_edges(scale, 16, seed)
    return src[:num_edges], dst[:num_edges], scale


def write_text(path, src, dst, header=True):
    with open(path, "wb") as f:
        if header:
            f.write(b"# Directed graph (each unordered pair of nodes is saved once): bench\n"
                    b"# FromNodeId\tToNodeId\n")
        step = 1 << 22
        for lo in range(0, src.size, step):
            f.write(format_rows(np.stack((src[lo:lo + step], dst[lo:lo + step])), "\t").tobytes())


def ensure(path, make):
    if not os.path.exists(path):
        make(path)
    return path


def row(table, name, edges, nbytes, seconds, note=""):
    table.append({"reader": name, "edges": int(edges), "MB": nbytes / 1e6, "seconds": seconds,
                  "MB_per_s": nbytes / 1e6 / seconds if seconds else float("inf"),
                  "Medges_per_s": edges / 1e6 / seconds if seconds else float("inf"), "note": note})


def text_section(work, m, small, repeat, table):
    src, dst, _ = kron_edges(m)
    txt = ensure(os.path.join(work, f"kron_{m}.txt"), lambda p: write_text(p, src, dst))
    plain = ensure(os.path.join(work, f"kron_{m}_noheader.tsv"), lambda p: write_text(p, src, dst, header=False))
    small_txt = ensure(os.path.join(work, f"kron_{small}.txt"), lambda p: write_text(p, src[:small], dst[:small]))
    size, small_size = os.path.getsize(txt), os.path.getsize(small_txt)

    breadth.read(small_txt, progress=False)                       # numba warm-up (compile or cache load)
    t, g = median_time(lambda: breadth.read(txt, progress=False), repeat)
    row(table, "breadth.read .txt (parse + CSR)", m, size, t, f"{g.num_vertices:,} vertices, directed")
    t, _ = median_time(lambda: read_edges(txt, progress=False), repeat)
    row(table, "breadth parse only", m, size, t, "baseline for ratios")

    try:
        import pyarrow.csv as pacsv

        opts = dict(read_options=pacsv.ReadOptions(autogenerate_column_names=True),
                    parse_options=pacsv.ParseOptions(delimiter="\t"))
        t, _ = median_time(lambda: pacsv.read_csv(plain, **opts), repeat)
        row(table, "pyarrow.csv.read_csv (parse only)", m, os.path.getsize(plain), t, "no comment lines")
    except ImportError:
        pass
    t, _ = median_time(lambda: np.loadtxt(txt, dtype=np.int64, comments="#"), 1)
    row(table, "numpy.loadtxt (parse only)", m, size, t, "C reader, one thread")
    try:
        import networkx as nx

        t, _ = median_time(lambda: nx.read_edgelist(small_txt, nodetype=int, create_using=nx.DiGraph), 1)
        row(table, "networkx.read_edgelist (+ graph)", small, small_size, t, "on a prefix")
    except ImportError:
        pass
    return src, dst, g


def other_formats(work, m, src, dst, g, repeat, table):
    gz = ensure(os.path.join(work, f"kron_{m}.txt.gz"),
                lambda p: open(p, "wb").write(gzip.compress(open(os.path.join(work, f"kron_{m}.txt"), "rb").read(), 6)))
    t, _ = median_time(lambda: breadth.read(gz, progress=False), repeat)
    row(table, "breadth.read .txt.gz (parse + CSR)", m, os.path.getsize(gz), t, "MB/s of compressed bytes")

    mtx = ensure(os.path.join(work, f"kron_{m}.mtx"), lambda p: breadth.write(g, p))
    t, _ = median_time(lambda: breadth.read(mtx, progress=False), repeat)
    row(table, "breadth.read .mtx (parse + CSR)", g.num_edges, os.path.getsize(mtx), t)
    try:
        import fast_matrix_market as fmm

        t, _ = median_time(lambda: fmm.read_coo(mtx), repeat)
        row(table, "fast_matrix_market.read_coo (parse only)", g.num_edges, os.path.getsize(mtx), t)
    except ImportError:
        pass

    def make_bin(p):
        pairs = np.empty((src.size, 2), dtype="<i8")
        pairs[:, 0], pairs[:, 1] = src, dst
        pairs.tofile(p)
    binf = ensure(os.path.join(work, f"kron_{m}.g500"), make_bin)
    t, _ = median_time(lambda: breadth.read(binf, directed=True, progress=False), repeat)
    row(table, "breadth.read .g500 int64 pairs (+ CSR)", m, os.path.getsize(binf), t)


def native_section(work, scale, repeat, out):
    path = os.path.join(work, f"kron_s{scale}.npz")
    if not os.path.exists(path):
        t0 = time.perf_counter()
        native.save(breadth.kronecker(scale), path)
        out["native_build_seconds"] = time.perf_counter() - t0
    size = os.path.getsize(path)
    breadth.read(path, progress=False)                           # page cache warm, as after a first use
    t_check, g = median_time(lambda: breadth.read(path, progress=False), repeat)
    t_nocheck, _ = median_time(lambda: breadth.read(path, check=False, progress=False), repeat)
    out.update({"native_scale": scale, "native_MB": size / 1e6, "native_open_checked_s": t_check,
                "native_open_unchecked_s": t_nocheck, "native_edges": g.num_edges})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edges", type=int, default=5_000_000, help="tuples in the text edge list")
    ap.add_argument("--small-edges", type=int, default=200_000, help="prefix for the slow per-line readers")
    ap.add_argument("--native-scale", type=int, default=22, help="Kronecker scale of the native file (0: skip)")
    ap.add_argument("--repeat", type=int, default=3, help="timed repetitions (median)")
    ap.add_argument("--workdir", default=None, help="where the input files are made and kept (default: a temp dir)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args()

    tmp = None
    if args.workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="breadth_io_bench_")
        work = tmp.name
    else:
        work = args.workdir
        os.makedirs(work, exist_ok=True)
    table, extra = [], {}
    small = min(args.small_edges, args.edges)
    src, dst, g = text_section(work, args.edges, small, args.repeat, table)
    other_formats(work, args.edges, src, dst, g, args.repeat, table)
    del src, dst, g
    if args.native_scale:
        native_section(work, args.native_scale, args.repeat, extra)
    base = next(r["MB_per_s"] for r in table if r["reader"] == "breadth parse only")
    for r in table:
        r["ratio_vs_breadth_parse"] = r["MB_per_s"] / base
    if args.json:
        print(json.dumps({"rows": table, **extra}, indent=2))
    else:
        print(f"{'reader':<44}{'edges':>11}{'MB':>9}{'seconds':>9}{'MB/s':>9}{'Medges/s':>10}{'x parse':>9}  note")
        for r in table:
            print(f"{r['reader']:<44}{r['edges']:>11,}{r['MB']:>9.1f}{r['seconds']:>9.3f}{r['MB_per_s']:>9.1f}"
                  f"{r['Medges_per_s']:>10.2f}{r['ratio_vs_breadth_parse']:>9.2f}  {r['note']}")
        if extra:
            print(f"\nnative .npz, Kronecker scale {extra['native_scale']} ({extra['native_edges']:,} edges, "
                  f"{extra['native_MB']:.0f} MB): open {extra['native_open_checked_s'] * 1e3:.1f} ms with the "
                  f"structural check, {extra['native_open_unchecked_s'] * 1e3:.1f} ms without (memory-mapped)")
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
