"""``breadth msbfs``: BFS from many sources at once (iBFS joint traversal in groups).

Also holds the options and helpers ``breadth closeness`` shares: source
selection, grouping, checkpointing and running under mpiexec.
"""
from __future__ import annotations

import os

import numpy as np

from ..errors import InputError
from ..files import atomic_output
from .common import (add_device_option, add_graph_argument, add_json_option, add_max_depth_option, add_quiet_option,
                     add_search_options, add_threads_option, note_compile, open_graph, save_npy, set_threads, write_json)
from .helpformat import examples
from .ids import VertexIds, add_ids_option


def add_source_options(p, default_all=False):
    g = p.add_mutually_exclusive_group(required=not default_all)
    g.add_argument("--sources", metavar="FILE",
                   help="source vertices, in the graph's labels when it has them (see --dense-ids): a .npy "
                        "array, or text with ids separated by spaces, commas or newlines ('#' starts a "
                        "comment); string labels: one per line")
    g.add_argument("--all", action="store_true",
                   help="every vertex is a source" + (" (the default)" if default_all else ""))
    g.add_argument("--sample", type=int, metavar="K",
                   help="K distinct sources drawn at random (--seed) among vertices with out-edges")


def add_run_options(p):
    p.add_argument("--groupby", choices=("rules", "random"), default="rules",
                   help="how sources are grouped: 'rules' = iBFS out-degree GroupBy (sources of "
                        "out-degree < p sharing a neighbour of out-degree > q run together), "
                        "'random' = shuffled")
    p.add_argument("--p", dest="p_values", default="4,16,64,128", metavar="P,P,...",
                   help="GroupBy rule 1 thresholds, tried in ascending order")
    p.add_argument("--q", type=int, default=128, help="GroupBy rule 2: a shared hub has out-degree > q")
    p.add_argument("--group-size", type=int, default=None, metavar="N",
                   help="sources per group (unset: 64 * W)")
    p.add_argument("--words", type=int, default=None, metavar="W",
                   help="64-bit status words per vertex, so up to 64*W sources per group "
                        "(unset: chosen from the source count and free memory, at most 8)")
    add_search_options(p, per_group=True)
    add_device_option(p)   # under mpiexec each rank takes GPU (local rank % GPUs)
    p.add_argument("--seed", type=int, default=0, help="seed of --sample and of random grouping")
    p.add_argument("--checkpoint", metavar="DIR", default=None,
                   help="write each finished group to DIR (atomically); rerun the same command to "
                        "resume after a crash or kill")
    add_ids_option(p)
    add_json_option(p)
    add_quiet_option(p)
    add_threads_option(p)   # under mpiexec the default shares each host's cores among its computing ranks


def register(sub):
    p = sub.add_parser(
        "msbfs",
        help="BFS from many sources at once (iBFS: bitwise joint traversal in groups)",
        description="Run one BFS from each source, many at once: sources are grouped (iBFS GroupBy) "
                    "and each group is one joint traversal with a bitwise status array (one bit per "
                    "source). Prints per-source reach and eccentricity summaries and each group's "
                    "sharing degree; --output writes the depth matrix. Under mpiexec the groups are "
                    "shared among the ranks and rank 0 reports. Sources are read and written in the "
                    "graph's labels when it has them (--dense-ids: internal ids). One of --sources, --all, "
                    "--sample is required.",
        epilog=examples("breadth msbfs g.npz --sample 1024 --json",
                        "breadth msbfs g.npz --sources ids.txt --output depths.npz",
                        "breadth msbfs g.npz --all --checkpoint ck/      # kill it, rerun: it resumes",
                        "mpiexec -n 8 breadth msbfs g.npz --all --max-depth 3"),
    )
    add_graph_argument(p)
    add_source_options(p)
    add_max_depth_option(p, "stop every search after D levels")
    p.add_argument("--output", metavar="FILE", default=None,
                   help="write the depth matrix (row i = depths from source i, column j = vertex j by internal "
                        "id; unsigned, smallest dtype that fits; its maximum value, e.g. 255, marks unreachable "
                        "vertices): .npz holds it as 'depths' with the 'sources' and 'vertices' of its rows "
                        "and columns in the graph's labels; .npy the bare matrix (on a labelled graph with "
                        "--dense-ids only)")
    add_run_options(p)
    p.set_defaults(run=run)


def read_sources(path: str, strings: bool = False):
    """The source ids of a file as given: an int64 array, a str array (.npy), or a list of str lines
    (``strings``: a graph with string labels, one label per line)."""
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    try:
        if path.endswith(".npy"):
            arr = np.load(path, allow_pickle=False)
            if arr.dtype.kind not in "iuU":
                raise ValueError(f"dtype {arr.dtype}")
        elif strings:
            with open(path, encoding="utf-8") as f:
                arr = [line.rstrip("\r\n") for line in f]
            arr = [x for x in arr if x.strip() and not x.lstrip().startswith("#")]
        else:
            with open(path) as f:
                text = "\n".join(line.split("#", 1)[0] for line in f)
            arr = np.array(text.replace(",", " ").split(), dtype=np.int64)
    except (OSError, ValueError, OverflowError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a list of vertex ids ({exc})") from None
    if len(arr) == 0:
        raise InputError(f"{path}: no source ids in the file")
    if isinstance(arr, np.ndarray) and arr.ndim > 1:
        if 1 not in arr.shape:
            raise InputError(f"{path}: expected a 1-D array of source ids, got shape {arr.shape}")
        arr = arr.reshape(-1)
    return arr


def select_sources(args, graph, ids: VertexIds) -> np.ndarray | None:
    """The sources the options name, as dense ids (None = every vertex)."""
    if args.sources:
        return ids.parse(read_sources(args.sources, ids.strings), "source")
    if args.sample is not None:
        candidates = np.flatnonzero(graph.out_degree() > 0)
        if args.sample < 1:
            raise InputError(f"--sample must be positive, got {args.sample}")
        if args.sample > candidates.size:
            raise InputError(f"--sample {args.sample}: only {candidates.size} vertices have out-edges")
        rng = np.random.default_rng(args.seed)
        return np.sort(rng.choice(candidates, args.sample, replace=False)).astype(np.int64)
    return None


def parse_p(text: str):
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"--p must be comma-separated integers, got {text!r}") from None
    if not vals or min(vals) < 1:
        raise InputError(f"--p must list positive integers, got {text!r}")
    return vals


def run_options(args) -> dict:
    return dict(groupby=args.groupby, group_size=args.group_size, words=args.words,
                algorithm=args.algorithm, alpha=args.alpha, beta=args.beta, p_values=parse_p(args.p_values),
                q=args.q, seed=args.seed, checkpoint=args.checkpoint, progress=None, device=args.device)


def setup(args, check=None):
    """Threads, MPI world, graph, its ids and the sources, identically on every rank; errors stop all
    ranks. ``check(ids)`` refuses bad output options before any work."""
    from ..errors import BreadthError
    from ..multisource import mpi

    comm = mpi.world()
    mpi.install_abort_hook(comm)
    error = graph = sources = ids = None
    try:
        set_threads(args.threads)
        if comm is not None and args.threads is None:
            import numba

            numba.set_num_threads(mpi.worker_threads(comm))
        graph = open_graph(args.graph, args=args)
        ids = VertexIds(graph, args.dense_ids, args.graph)
        if check is not None:
            check(ids)
        sources = select_sources(args, graph, ids)
    except BreadthError as exc:
        error = exc
    mpi.check_all(comm, error)
    return comm, graph, ids, sources


def graph_info(args, graph) -> dict:
    return {"path": args.graph, "vertices": graph.num_vertices, "edges": graph.num_edges,
            "directed": graph.directed}


def check_output(args, ids: VertexIds) -> None:
    ids.check_output(args.output, "--output", (".npz", ".npy"),
                     ".npz (the matrix with its sources and vertices in labels)")


def save_depths(path: str, depths: np.ndarray, sources: np.ndarray, ids: VertexIds) -> None:
    """.npy: the bare matrix; .npz: 'depths', and 'sources'/'vertices' (its rows and columns) in the
    command line's ids."""
    if path.endswith(".npy"):
        save_npy(path, depths)
        return
    vertices = ids.column(np.arange(depths.shape[1], dtype=np.int64))
    with atomic_output(path) as f:
        np.savez(f, depths=depths, sources=_storable(ids.column(sources)), vertices=_storable(vertices))


def _storable(column: np.ndarray) -> np.ndarray:
    """String labels (an object array) as a numpy unicode array: .npz files are read without pickle."""
    from ..graph.io.results import string_column

    return string_column("labels", column, column.size) if column.dtype == object else column


def run(args) -> int:
    from ..multisource import msbfs
    from ..multisource.results import unreachable

    comm, graph, ids, sources = setup(args, lambda ids: check_output(args, ids))
    res = msbfs(graph, sources, max_depth=args.max_depth, keep_depths=args.output is not None, comm=comm,
                **run_options(args))
    if res is None:          # an MPI worker rank: rank 0 reports
        return 0
    summary = res.summary()
    summary["graph"] = graph_info(args, graph)
    summary["ranks"] = 1 if comm is None else comm.Get_size()
    summary["ids"] = "labels" if ids.labelled else "dense"
    if args.output is not None:
        save_depths(args.output, res.depths, res.sources, ids)
        summary["output"] = {"path": args.output, "dtype": str(res.depths.dtype),
                             "unreachable": unreachable(res.depths.dtype)}
    if args.json:
        summary["per_source"] = {"source": ids.json(res.sources), "reached": res.reached,
                                 "eccentricity": res.eccentricity, "distance_sum": res.distance_sum}
        write_json(args.json, summary)
    note_compile(res.compile_seconds)
    if args.json != "-":
        sd = summary["sharing_degree"]
        print(f"msbfs sources={res.sources.size} groups={len(res.groups)} W={res.words} "
              f"seconds={res.seconds:.3f} resumed={res.resumed} "
              f"sharing_degree mean={sd['mean']:.2f} min={sd['min']:.2f} max={sd['max']:.2f} "
              f"reached mean={res.reached.mean():.1f} eccentricity max={int(res.eccentricity.max())}")
    return 0
