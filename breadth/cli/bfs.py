"""``breadth bfs``: one BFS on a graph file."""
from __future__ import annotations

import argparse
import os

import numpy as np

from ..errors import InputError
from ..graph.io import write_result
from .common import (add_search_options, add_threads_option, open_graph, run_on_ranks, save_npy, set_threads,
                     write_json)
from .dist_options import add_dist_options

_PARSER = None   # this subcommand's parser (``--ranks`` rebuilds the command line from it)


def register(sub):
    p = sub.add_parser(
        "bfs",
        help="run one BFS on a graph file",
        description="Breadth-first search from --root on GRAPH (a file saved by 'breadth generate' or "
                    "any format 'breadth convert' reads). Prints a summary line; writes depths and "
                    "parents on request.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("graph", metavar="GRAPH", help="graph file (.npz native, or another supported format)")
    p.add_argument("--root", required=True, type=int, nargs="+", metavar="R",
                   help="search key; several ids run one search seeded from all of them")
    add_search_options(p)
    p.add_argument("--max-depth", type=int, default=None, metavar="D",
                   help="stop after D levels (farther vertices stay unreached, depth -1)")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="write depths: .npy (int64 array) or .csv (vertex,depth,parent)")
    p.add_argument("--parents", metavar="FILE", default=None, help="write the parent array (.npy)")
    p.add_argument("--validate", action="store_true", help="validate the tree by the Graph500 rules")
    p.add_argument("--json", metavar="FILE", nargs="?", const="-", default=None,
                   help="print the result (summary and per-level statistics) as JSON to stdout, or FILE")
    p.add_argument("--plot", metavar="PNG", default=None, help="plot frontier size per level to a PNG")
    add_threads_option(p)
    add_dist_options(p)
    p.set_defaults(run=run)
    global _PARSER
    _PARSER = p


def write_depths(path, result):
    """.csv: vertex,depth,parent rows; anything else: the depth array as .npy."""
    if path.endswith(".csv"):
        write_result(path, result.depth, result.parent)
    else:
        save_npy(path, result.depth)


def run(args) -> int:
    from ..graph500.validate import validate
    from ..search import bfs

    from .dist_options import partition_mode

    if partition_mode(args) != "none":
        return run_distributed(args)
    set_threads(args.threads)
    graph = open_graph(args.graph)
    root = args.root[0] if len(args.root) == 1 else np.asarray(args.root, dtype=np.int64)
    result = bfs(graph, root, args.algorithm, max_depth=args.max_depth, alpha=args.alpha, beta=args.beta)
    summary = result.summary()
    summary["graph"] = {"path": args.graph, "vertices": graph.num_vertices, "edges": graph.num_edges,
                        "directed": graph.directed}
    if args.validate:
        if args.max_depth is not None:
            raise InputError("--validate checks complete BFS trees; drop --max-depth")
        report = validate(graph, root, result.parent, result.depth)
        summary["validation"] = {"passed": True, "seconds": report.seconds}
    if args.out:
        write_depths(args.out, result)
    if args.parents:
        save_npy(args.parents, result.parent)
    if args.plot:
        from ..plot import plot_levels

        roots = " ".join(map(str, args.root))
        plot_levels([summary], args.plot, title=f"BFS from {roots} on {os.path.basename(args.graph)}")
    if args.json:
        write_json(args.json, summary)
    if args.json != "-":
        ok = " validated" if args.validate else ""
        print(f"bfs root={' '.join(map(str, args.root))} algorithm={args.algorithm} "
              f"reached={result.num_reached} max_depth={result.max_depth} levels={len(result.levels)} "
              f"seconds={result.seconds:.6f}{ok}")
    return 0


def run_distributed(args) -> int:
    """One BFS on the MPI engine: every rank reads its share of GRAPH; rank 0 reports and writes."""
    from ..distributed.comm import collective_error
    from ..distributed.engine import DistEngine
    from .dist_options import engine_options

    def body(comm):
        if args.validate and args.max_depth is not None:
            raise collective_error(InputError("--validate checks complete BFS trees; drop --max-depth"))
        engine = DistEngine(comm=comm, **engine_options(args))
        engine.load(args.graph)
        root = args.root[0] if len(args.root) == 1 else np.asarray(args.root, dtype=np.int64)
        result = engine.search(root, args.max_depth)
        summary = result.summary()
        summary["graph"] = {"path": args.graph, **engine.graph_summary()}
        if args.validate:
            report = engine.validate(root, result)
            summary["validation"] = {"passed": True, "seconds": report.seconds, "distributed": True}
        full = engine.gather(result) if (args.out or args.parents) else None
        if not engine.is_root:
            return 0
        if args.out:
            write_depths(args.out, full)
        if args.parents:
            save_npy(args.parents, full.parent)
        if args.plot:
            from ..plot import plot_levels

            plot_levels([summary], args.plot, title=f"BFS from {' '.join(map(str, args.root))} on "
                                                    f"{os.path.basename(args.graph)}, {comm.size} ranks")
        if args.json:
            write_json(args.json, summary)
        if args.json != "-":
            c = summary["communication"]
            ok = " validated" if args.validate else ""
            how = c["exchange"] if c["fanout"] is None else f"{c['exchange']} fanout={c['fanout']}"
            print(f"bfs root={' '.join(map(str, args.root))} algorithm={args.algorithm} ranks={comm.size} "
                  f"exchange={how} reached={result.num_reached} max_depth={result.max_depth} levels={len(result.levels)} "
                  f"seconds={result.seconds:.6f} messages={c['messages']} bytes={c['bytes']}{ok}")
        return 0

    return run_on_ranks(_PARSER, args, "bfs", body)
