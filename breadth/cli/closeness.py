"""``breadth closeness``: exact closeness (or harmonic) centrality by concurrent BFS."""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..files import atomic_output
from .common import add_graph_argument, save_npy, write_json
from .helpformat import examples
from .ids import VertexIds
from .msbfs import add_run_options, add_source_options, graph_info, run_options, setup


def register(sub):
    p = sub.add_parser(
        "closeness",
        help="exact closeness or harmonic centrality (many BFS at once, no distance matrix)",
        description="Exact closeness centrality of every vertex (or of --sources / --sample K) by "
                    "concurrent BFS: groups of sources traverse jointly and only per-level counts are "
                    "kept, never the distance matrix. Closeness of u = (r-1)/(sum of distances) over "
                    "the r vertices reachable, times (r-1)/(n-1) (Wasserman-Faust, for disconnected "
                    "graphs) unless --no-wf; as networkx, on a directed graph distances are those to u "
                    "unless --direction out. Under mpiexec the groups are shared among the ranks. Vertices "
                    "are read and written in the graph's labels when it has them (--dense-ids: internal ids).",
        epilog=examples("breadth closeness g.npz --top 20 --output scores.csv",
                        "breadth closeness g.npz --measure harmonic --sample 5000",
                        "breadth closeness g.npz --sources ids.txt --direction out --json",
                        "mpiexec -n 8 breadth closeness g.npz --checkpoint ck/"),
    )
    add_graph_argument(p)
    add_source_options(p, default_all=True)
    p.add_argument("--measure", choices=("closeness", "harmonic"), default="closeness",
                   help="closeness, or harmonic centrality (sum of 1/distance)")
    p.add_argument("--no-wf", dest="wf_improved", action="store_false",
                   help="plain closeness (r-1)/sum, without the Wasserman-Faust factor")
    p.add_argument("--direction", choices=("in", "out"), default="in",
                   help="directed graphs: distances to each vertex (in) or from it (out)")
    p.add_argument("--top", type=int, default=10, metavar="K", help="print the K most central vertices")
    p.add_argument("--output", metavar="FILE", default=None,
                   help="write every score: .csv (vertex,score rows, vertices in the graph's labels) or .npy "
                        "(float64, in source order; on a labelled graph with --dense-ids only)")
    add_run_options(p)
    p.set_defaults(run=run)


def _write_scores(path, vertices, scores, ids: VertexIds):
    if path.endswith(".npy"):
        save_npy(path, scores)
        return
    column = ids.column(vertices)
    if column.dtype == object:      # string labels: quoted where needed
        from ..graph.io.results import string_column, write_csv_rows

        with atomic_output(path) as f:
            write_csv_rows(f, "vertex,score", (string_column("labels", column, column.size),
                                               np.char.mod("%.17g", scores)))
        return
    with atomic_output(path, "w") as f:
        f.write("vertex,score\n")
        np.savetxt(f, np.column_stack([column, scores]), fmt=["%d", "%.17g"], delimiter=",")


def top_table(vertices, scores, measure: str) -> str:
    """The most central vertices as aligned columns: rank, vertex (padded to the longest), score."""
    labels = [str(v) for v in vertices]
    width = max([len("vertex")] + [len(x) for x in labels])
    lines = [f"{'rank':>4}  {'vertex':<{width}}  {measure}"]
    lines += [f"{rank:4d}  {label:<{width}}  {score:.6f}" for rank, (label, score) in enumerate(zip(labels, scores), 1)]
    return "\n".join(lines)


def check_output(args, ids: VertexIds) -> None:
    ids.check_output(args.output, "--output", (".npy", ".csv"), ".csv (vertex,score rows in labels)")


def run(args) -> int:
    from ..multisource import msbfs
    from ..multisource.reducers import closeness_scores

    if args.top < 0:
        raise InputError(f"--top must be non-negative, got {args.top}")
    comm, graph, ids, sources = setup(args, lambda ids: check_output(args, ids))
    n = graph.num_vertices
    if n == 0:
        raise InputError(f"{args.graph}: the graph has no vertices")
    res = msbfs(graph, sources, direction=args.direction, comm=comm, **run_options(args))
    if res is None:
        return 0
    if args.measure == "harmonic":
        scores = res.harmonic
    else:
        scores = closeness_scores(res.reached, res.distance_sum, n, args.wf_improved)
    order = np.argsort(-scores, kind="stable")[:args.top]
    summary = res.summary()
    summary.update(graph=graph_info(args, graph), measure=args.measure, wf_improved=args.wf_improved,
                   direction=args.direction, ranks=1 if comm is None else comm.Get_size(),
                   ids="labels" if ids.labelled else "dense",
                   top=[{"vertex": v, "score": float(scores[i])} for v, i in zip(ids.json(res.sources[order]), order)])
    if args.output is not None:
        _write_scores(args.output, res.sources, scores, ids)
        summary["output"] = args.output
    if args.json:
        summary["scores"] = {"vertex": ids.json(res.sources), "score": scores}
        write_json(args.json, summary)
    if args.json != "-":
        print(f"{args.measure} sources={res.sources.size} groups={len(res.groups)} W={res.words} "
              f"seconds={res.seconds:.3f} resumed={res.resumed} "
              f"sharing_degree mean={summary['sharing_degree']['mean']:.2f}")
        print(top_table(ids.json(res.sources[order]), scores[order], args.measure))
    return 0
