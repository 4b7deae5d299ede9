"""``breadth convert IN OUT``: read a graph in one format, write it in another."""
from __future__ import annotations

import os
import time

from ..errors import InputError
from ..files import check_writable
from .common import (add_json_option, add_quiet_option, add_text_options, add_threads_option, eprint, set_threads,
                     write_json)
from .helpformat import examples
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
                        "(for SNAP-style files whose ids skip); an edge list of vertex names (any token "
                        "that is not a number) is always numbered so, its names kept as labels")
    p.add_argument("--vertices", type=int, default=None, metavar="N",
                   help="declared vertex count: ids must be < N; keeps isolated vertices at the end of the "
                        "id range (edge lists and Graph500 binaries)")
    add_text_options(p)


def register(sub):
    p = sub.add_parser(
        "convert",
        help="convert a graph file between formats",
        description="Read IN and write OUT, each in the format its extension names (or --from/--to). "
                    "Self-loops and duplicate edges are removed on the way. Bad input stops with a "
                    "one-line error naming the file and line, exit code 2, and no OUT file. "
                    f"Formats: {FORMAT_HELP}. With --relabel the original ids are kept: .npz files store "
                    "them (and string labels), and 'breadth bfs/msbfs/closeness' then speak them.",
        epilog=examples("breadth convert web-Google.txt.gz web.npz --relabel",
                        "breadth convert web.npz web.mtx",
                        "breadth convert web.npz web-orig.txt --original-ids",
                        "breadth convert kron.dat kron.txt --from graph500-packed --vertices 1048576",
                        "breadth convert g.txt g.npz --directed --json",
                        "breadth convert huge.txt.gz huge.npz --memory 4 --spill-dir /scratch",
                        "breadth convert kron26.bin kron26.npz --vertices 67108864 --spill-dir /scratch"),
    )
    p.add_argument("input", metavar="IN", help="graph file to read")
    p.add_argument("output", metavar="OUT", help="graph file to write (replaced atomically)")
    add_read_options(p)
    p.add_argument("--to", dest="outformat", metavar="FMT", default=None,
                   help="output format, when the extension does not say it")
    p.add_argument("--original-ids", action="store_true",
                   help="with --relabel (or a relabelled .npz input): write the original vertex ids "
                        "(edge lists and Graph500 binaries)")
    p.add_argument("--memory", type=float, default=None, metavar="GIB",
                   help="memory the conversion may use, in GiB (default: the memory available). An edge list, "
                        "Matrix Market or Graph500 binary file converted to .npz whose in-memory conversion "
                        "is estimated above 3/4 of it is converted in bounded memory instead: read in chunks, "
                        "its arcs spilled to disk by vertex range and built range by range (same result)")
    p.add_argument("--spill-dir", metavar="DIR", default=None,
                   help="convert an edge list, Matrix Market or Graph500 binary file to .npz in bounded "
                        "memory (whatever the estimate), with its temporary files in a directory made inside "
                        "DIR (default: beside OUT); about 16 bytes a tuple of disk, removed at the end")
    add_json_option(p, "what was read and written")
    add_quiet_option(p, "no summary lines, notes or progress bars")
    add_threads_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    """Progress bars: breadth.progress's (on a terminal; none with --quiet or --json -)."""
    from ..graph.io import infer_format, read_with_stats, write

    set_threads(args.threads)
    outformat = infer_format(args.output, args.outformat, for_write=True)   # refuse a bad OUT before reading
    check_writable(args.output)
    informat, bounded = _bounded(args, outformat)
    t0 = time.perf_counter()
    if bounded:
        from ..graph.io.spill import convert_to_native

        stats = convert_to_native(args.input, args.output, format=informat, directed=args.directed,
                                  relabel=args.relabel, num_vertices=args.vertices,
                                  memory=_memory_bytes(args.memory), spill_dir=args.spill_dir,
                                  header=args.header, allow_empty=args.allow_empty)
        written = []
    else:
        graph, stats = read_with_stats(args.input, format=args.informat, directed=args.directed,
                                       relabel=args.relabel, num_vertices=args.vertices,
                                       header=args.header, allow_empty=args.allow_empty)
        t0 = time.perf_counter()
        written = write(graph, args.output, format=outformat, original_ids=args.original_ids)
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
                                          "seconds": seconds, "bounded": bounded},
                               "notes": notes})
    if not args.quiet and args.json != "-":
        print(f"read  {stats.summary()}")
        how = " (bounded memory, spilled to disk)" if bounded else ""
        print(f"wrote {os.path.basename(args.output)} [{outformat}]{how}: {size / 1e6:.1f} MB in {seconds:.2f} s")
    return 0


def _memory_bytes(gib):
    if gib is None:
        return None
    if not gib > 0:
        raise InputError(f"--memory must be a positive number of GiB, got {gib}")
    return int(gib * (1 << 30))


def _bounded(args, outformat):
    """(input format, whether to convert in bounded memory): an edge list, Matrix Market or Graph500
    binary file to .npz, asked for with --spill-dir or estimated above 3/4 of the memory allowed;
    --spill-dir with another pair of formats is an error."""
    from ..graph.io import infer_format
    from ..graph.io._common import check_input
    from ..graph.io.sources import BOUNDED_FORMATS, needs_bounded

    check_input(args.input)
    memory = _memory_bytes(args.memory)
    informat = infer_format(args.input, args.informat)
    fits = informat in BOUNDED_FORMATS and outformat == "native"
    if args.spill_dir is not None and not fits:
        raise InputError(f"--spill-dir converts edge lists, Matrix Market and Graph500 binary files to .npz "
                         f"in bounded memory; not {informat} to {outformat}")
    if not fits or args.original_ids:
        return informat, False
    if args.spill_dir is not None:
        return informat, True
    return informat, needs_bounded(args.input, memory=memory, num_vertices=args.vertices,
                                   directed=args.directed, format=informat)
