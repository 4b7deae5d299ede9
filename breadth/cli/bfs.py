"""``breadth bfs``: one BFS on a graph file."""
from __future__ import annotations

import os

from ..errors import InputError
from ..files import check_writable
from ..graph.io import write_result
from .common import (add_device_option, add_graph_argument, add_json_option, add_max_depth_option, add_quiet_option,
                     add_search_options, add_threads_option, note_compile, open_graph, run_on_ranks, save_npy, set_threads, write_json)
from .dist_options import add_dist_options
from .helpformat import examples
from .ids import VertexIds, add_ids_option


def register(sub):
    p = sub.add_parser(
        "bfs",
        help="run one BFS on a graph file",
        description="Breadth-first search from --root on GRAPH (a file saved by 'breadth generate' or "
                    "any format 'breadth convert' reads). Prints a summary line; writes depths and "
                    "parents on request. When GRAPH carries vertex labels (the original ids kept by "
                    "'breadth convert --relabel', string labels of a native file), roots are given and "
                    "results written in those labels; --dense-ids uses the internal ids 0..n-1.",
        epilog=examples("breadth bfs k20.npz --root 0 --validate --out depth.csv",
                        "breadth bfs k20.npz --root 0 5 9 --max-depth 3 --json",
                        "breadth convert web.txt web.npz --relabel     # keeps web.txt's ids",
                        "breadth bfs web.npz --root 1024 --out r.csv     # root and rows in those ids",
                        "breadth bfs web.npz --root 17 --dense-ids --out depth.npy",
                        "breadth bfs k20.npz --root 0 --ranks 4            # on 4 MPI ranks"),
    )
    add_graph_argument(p)
    p.add_argument("--root", required=True, nargs="+", metavar="R",
                   help="search key, a vertex of GRAPH in its labels if it has them; several run one search "
                        "seeded from all of them")
    add_ids_option(p)
    add_search_options(p)
    add_device_option(p)
    add_max_depth_option(p, "stop after D levels (farther vertices stay unreached, depth -1)")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="write depths: .csv (vertex,depth,parent rows), .npz (arrays vertex, depth, parent) or "
                        ".npy (the int64 depth array indexed by internal id; on a labelled graph with "
                        "--dense-ids only)")
    p.add_argument("--parents", metavar="FILE", default=None,
                   help="write the parent array (.npy, indexed by internal id, -1 = unreached; on a labelled "
                        "graph with --dense-ids only)")
    p.add_argument("--validate", action="store_true",
                   help="validate the tree by the Graph500 rules (a failure exits with code 3)")
    add_json_option(p, "the result (summary and per-level statistics)")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="plot frontier size per level to FILE: .png, .svg or .pdf (the suffix picks the format)")
    add_quiet_option(p)
    add_threads_option(p)
    add_dist_options(p)
    p.set_defaults(run=run, parser=p)      # ``--ranks`` rebuilds the command line from the parser


def check_outputs(args, ids: VertexIds) -> None:
    """Refuse output names that cannot hold the results, before searching."""
    ids.check_output(args.out, "--out", (".csv", ".npz", ".npy"), ".csv or .npz (rows in labels)")
    if args.parents:
        if not args.parents.endswith(".npy"):
            raise InputError(f"--parents {args.parents}: the parent array is written as .npy "
                             "(--out FILE.csv or .npz has a parent column)")
        ids.check_positional(args.parents, "--parents", "--out FILE.csv or .npz (a parent column in labels)")
        check_writable(args.parents)
    if args.validate and args.max_depth is not None:
        raise InputError("--validate checks complete BFS trees; drop --max-depth")
    if args.plot:
        from ..plot import check_plot_path

        check_plot_path(args.plot)


def write_depths(path, result, ids: VertexIds):
    """.csv / .npz: vertex, depth, parent in the command line's ids; .npy: the depth array."""
    if path.endswith((".csv", ".npz")):
        write_result(path, result.depth, result.parent, original_ids=ids.labels)
    else:
        save_npy(path, result.depth)


def summarise(summary: dict, ids: VertexIds, roots) -> dict:
    """A result summary speaking the command line's ids (roots in labels; the dense ids kept too)."""
    if ids.labelled:
        summary["root_ids"] = summary["roots"]
        summary["roots"] = ids.json(roots)
    summary["ids"] = "labels" if ids.labelled else "dense"
    return summary


def run(args) -> int:
    from ..graph500.validate import validate
    from ..search import bfs

    from .dist_options import partition_mode

    if partition_mode(args) != "none":
        return run_distributed(args)
    set_threads(args.threads)
    graph = open_graph(args.graph, args=args)
    ids = VertexIds(graph, args.dense_ids, args.graph)
    check_outputs(args, ids)
    roots = ids.parse(args.root, "root")
    root = int(roots[0]) if roots.size == 1 else roots
    result = bfs(graph, root, args.algorithm, max_depth=args.max_depth, alpha=args.alpha, beta=args.beta,
                 device=args.device)
    note_compile(result.compile_seconds)
    summary = summarise(result.summary(), ids, roots)
    summary["graph"] = {"path": args.graph, "vertices": graph.num_vertices, "edges": graph.num_edges,
                        "directed": graph.directed}
    if args.validate:
        report = validate(graph, root, result.parent, result.depth)
        summary["validation"] = {"passed": True, "seconds": report.seconds}
    if args.out:
        write_depths(args.out, result, ids)
    if args.parents:
        save_npy(args.parents, result.parent)
    if args.plot:
        from ..plot import plot_levels

        shown = " ".join(map(str, args.root))
        plot_levels([summary], args.plot, title=f"BFS from {shown} on {os.path.basename(args.graph)}")
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
    from .dist_options import choose_layout, engine_options, format_choice, format_partition

    def estimate():
        from ..distributed.planner.graph import pick_roots, sample

        graph = open_graph(args.graph, args=args)
        return sample(graph, pick_roots(graph, 2), f"{os.path.basename(args.graph)}: 2 single-node searches")

    def body(comm):
        choice = choose_layout(args, comm, estimate)
        engine = DistEngine(comm=comm, **engine_options(args, choice))
        engine.load(args.graph)
        try:      # every rank reads the same labels and parses the same roots: errors are collective
            ids = VertexIds(file_labels(args.graph, engine.num_vertices), args.dense_ids, args.graph)
            check_outputs(args, ids)
            roots = ids.parse(args.root, "root")
        except InputError as exc:
            raise collective_error(exc) from None
        root = int(roots[0]) if roots.size == 1 else roots
        result = engine.search(root, args.max_depth)
        summary = summarise(result.summary(), ids, roots)
        summary["graph"] = {"path": args.graph, **engine.graph_summary()}
        if choice is not None:
            summary["planner"] = choice.report(result.seconds)
        if args.validate:
            report = engine.validate(root, result)
            summary["validation"] = {"passed": True, "seconds": report.seconds, "distributed": True}
        full = engine.gather(result) if (args.out or args.parents) else None
        if not engine.is_root:
            return 0
        note_compile(result.compile_seconds)
        if args.out:
            write_depths(args.out, full, ids)
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
            if format_partition(summary["graph"]["partition"]):
                print(format_partition(summary["graph"]["partition"]))
            if choice is not None:
                print(format_choice(choice, result.seconds))
        return 0

    return run_on_ranks(args.parser, args, "bfs", body)


def file_labels(path, num_vertices: int):
    """What VertexIds needs of a graph file read by the MPI engine: a native file's labels (memory-mapped,
    without its CSR check), else none (Graph500 pair files carry no labels)."""
    from types import SimpleNamespace

    from ..graph.io import infer_format
    from ..graph.native import load

    if infer_format(path) == "native":
        return load(path, mmap=True, check=False)
    return SimpleNamespace(num_vertices=num_vertices, vertex_ids=None, has_labels=False)
