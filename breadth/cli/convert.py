"""``breadth convert IN OUT``: read a graph in one format, write it in another."""
from __future__ import annotations

import argparse
import os
import time

from .common import add_threads_option, eprint, set_threads, write_json
from .messages import translate

FORMAT_HELP = ("edgelist (.el .txt .tsv .csv .edges), mtx (.mtx), graph500 (.g500 .bin: int64 pairs), "
               "graph500-packed (12-byte reference-generator tuples), native (.npz); "
               "a trailing .gz compresses text and binary formats")


def add_read_options(p):
    """Options shared by every command that reads a graph file in any format."""
    p.add_argument("--from", dest="informat", metavar="FMT", default=None,
                   help=f"input format, when the extension does not say it: {FORMAT_HELP}")
    d = p.add_mutually_exclusive_group()
    d.add_argument("--directed", dest="directed", action="store_const", const=True, default=None,
                   help="read the edges as directed (default: what the file declares, else undirected)")
    d.add_argument("--undirected", dest="directed", action="store_const", const=False,
                   help="read the edges as undirected (symmetrise)")
    p.add_argument("--relabel", action="store_true",
                   help="number the vertex ids that occur densely 0..k-1 and keep the original ids "
                        "(for SNAP-style files whose ids skip)")
    p.add_argument("--vertices", type=int, default=None, metavar="N",
                   help="declared vertex count: ids must be < N; keeps isolated vertices at the end of the "
                        "id range (edge lists and Graph500 binaries)")


def register(sub):
    p = sub.add_parser(
        "convert",
        help="convert a graph file between formats",
        description="Read IN and write OUT, each in the format its extension names (or --from/--to). "
                    "Self-loops and duplicate edges are removed on the way. Bad input stops with a "
                    "one-line error naming the file and line, exit code 2, and no OUT file. "
                    f"Formats: {FORMAT_HELP}.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("input", metavar="IN", help="graph file to read")
    p.add_argument("output", metavar="OUT", help="graph file to write (replaced atomically)")
    add_read_options(p)
    p.add_argument("--to", dest="outformat", metavar="FMT", default=None,
                   help="output format, when the extension does not say it")
    p.add_argument("--original-ids", action="store_true",
                   help="with --relabel (or a relabelled .npz input): write the original vertex ids "
                        "(edge lists and Graph500 binaries)")
    p.add_argument("--json", metavar="FILE", nargs="?", const="-", default=None,
                   help="print what was read and written as JSON to stdout, or FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary lines, notes or progress bars")
    add_threads_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..graph.io import infer_format, read_with_stats, write

    set_threads(args.threads)
    progress = False if args.quiet else None
    outformat = infer_format(args.output, args.outformat, for_write=True)   # refuse a bad OUT before reading
    graph, stats = read_with_stats(args.input, format=args.informat, directed=args.directed,
                                   relabel=args.relabel, num_vertices=args.vertices, progress=progress)
    t0 = time.perf_counter()
    written = write(graph, args.output, format=outformat, original_ids=args.original_ids, progress=progress)
    seconds = time.perf_counter() - t0
    notes = [translate(note) for note in stats.notes + written]
    size = os.path.getsize(args.output)
    if not args.quiet:
        for note in notes:
            eprint(f"breadth convert: note: {note}")
    if args.json:
        read = dict(stats.as_dict(), notes=[translate(note) for note in stats.notes])
        write_json(args.json, {"input": read,
                               "output": {"path": args.output, "format": outformat, "bytes": size,
                                          "seconds": seconds},
                               "notes": notes})
    if not args.quiet and args.json != "-":
        print(f"read  {stats.summary()}")
        print(f"wrote {os.path.basename(args.output)} [{outformat}]: {size / 1e6:.1f} MB in {seconds:.2f} s")
    return 0
