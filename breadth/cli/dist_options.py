"""Distributed (MPI) options shared by ``breadth graph500`` and ``breadth bfs``, and their report."""
from __future__ import annotations

from ..errors import InputError

DEFAULT_FANOUT = 1


def add_dist_options(p):
    from ..distributed import registry

    parts = registry.partitions()
    g = p.add_argument_group(
        "distributed search (MPI)",
        "Run under 'mpiexec -n P breadth ...' (or let --ranks start mpiexec). Rank 0 prints; every rank "
        "holds only its share of the graph.")
    g.add_argument("--partition", choices=("auto", "none") + parts, default="auto",
                   help=f"none: one process, no MPI; 1d: contiguous vertex ranges balanced by edge count, one "
                        f"per rank; auto: {registry.DEFAULT_PARTITION} under mpiexec with more than one rank, "
                        f"else none")
    g.add_argument("--exchange", choices=registry.exchanges(), default=None,
                   help="how each level's discoveries are exchanged (default: the partition's own, "
                        + ", ".join(f"{q}: {registry.default_exchange(q)}" for q in parts)
                        + "): alltoall routes (vertex, parent) pairs to their owners; butterfly synchronises "
                          "a replicated level array over a butterfly network (Green, ButterFly BFS); with --partition "
                          "2d, fold expands the frontier along grid columns and folds (vertex, parent) pairs along "
                          "rows (Beamer, Bulu\u00e7), scan OR-contracts bitmap frontiers along rows in ceil(log2 C) "
                          "rounds and computes parents from the levels (MapGraph)")
    g.add_argument("--fanout", type=int, default=DEFAULT_FANOUT, metavar="F",
                   help="butterfly partners per round (1: pairwise): a network of radix F+1 in ceil(log_(F+1) P) "
                        "rounds, P*F*log_(F+1)(P) messages per level when P is a power of F+1")
    g.add_argument("--grid", default=None, metavar="RxC",
                   help="with --partition 2d: the processor grid, R rows x C columns with R*C ranks (default: the "
                        "most square factorisation, R <= C); edges are cut into R x C blocks, the frontier is "
                        "expanded along grid columns and discoveries folded along grid rows (Beamer, Bulu\u00e7)")
    g.add_argument("--ranks", type=int, default=None, metavar="P",
                   help=f"start 'mpiexec -n P' with this same command yourself (implies --partition "
                        f"{registry.DEFAULT_PARTITION} unless another is given; adds --oversubscribe when P "
                        f"exceeds the cores)")
    g.add_argument("--hostfile", default=None, metavar="FILE",
                   help="with --ranks: the mpiexec hostfile naming the hosts to spread the ranks over")


def partition_mode(args) -> str:
    """'none' or the partition to run, after checking the distributed options agree with each other."""
    from ..distributed import registry
    from ..distributed.runtime import world_size_from_env

    world = world_size_from_env()
    mode = args.partition
    if args.ranks is not None:
        if args.ranks < 1:
            raise InputError(f"--ranks must be >= 1, got {args.ranks}")
        if mode == "none":
            raise InputError(f"--ranks runs a distributed search: use --partition {registry.DEFAULT_PARTITION} "
                             f"(or leave --partition out)")
        if mode == "auto":
            mode = registry.DEFAULT_PARTITION
    elif args.hostfile is not None:
        raise InputError("--hostfile goes with --ranks (under your own mpiexec, pass it to mpiexec)")
    if mode == "auto":
        mode = registry.DEFAULT_PARTITION if world is not None and world > 1 else "none"
    grid = getattr(args, "grid", None)           # callers may build args without the 2D option
    if grid is not None and mode != "2d":
        raise InputError("--grid applies to --partition 2d")
    if mode == "none":
        if world is not None and world > 1:
            raise InputError(f"--partition none runs on one process, but mpiexec started {world}; "
                             f"use --partition {registry.DEFAULT_PARTITION}")
        if args.exchange is not None:
            raise InputError(f"--exchange applies to distributed runs: add --partition {registry.DEFAULT_PARTITION} "
                             f"or --ranks P")
        if args.fanout != DEFAULT_FANOUT:
            raise InputError(f"--fanout applies to distributed runs: add --partition {registry.DEFAULT_PARTITION} "
                             f"or --ranks P")
        return mode
    registry.get(mode, args.exchange)              # the pair exists (its names are the flags' values)
    if args.fanout < 1:
        raise InputError(f"--fanout must be >= 1, got {args.fanout}")
    if args.fanout != DEFAULT_FANOUT and (args.exchange or registry.default_exchange(mode)) != "butterfly":
        raise InputError("--fanout applies to --exchange butterfly")
    return mode


def engine_options(args) -> dict:
    """``DistEngine`` keyword arguments from the parsed options (its errors name API parameters;
    ``messages.translate`` turns them into these flags)."""
    out = {"partition": partition_mode(args), "exchange": args.exchange, "fanout": args.fanout,
           "algorithm": args.algorithm, "alpha": args.alpha, "beta": args.beta, "threads": args.threads,
           "device": getattr(args, "device", "cpu")}
    if getattr(args, "grid", None) is not None:
        out["params"] = {"grid": args.grid}
    return out


def comm_summary(searches: list[dict], construction: dict | None = None) -> dict:
    """Communication of a set of searches (their summaries), means per search and totals."""
    comms = [s["communication"] for s in searches if "communication" in s]
    if not comms:
        return {}
    k = len(comms)
    first = comms[0]
    keys = ("messages", "bytes", "exchange_messages", "exchange_bytes", "control_messages", "control_bytes")
    out = {"exchange": first["exchange"], "fanout": first["fanout"], "ranks": first["ranks"], "searches": k,
           "levels_per_search": sum(len(c["levels"]) for c in comms) / k}
    for key in keys:
        out[f"{key}_per_search"] = sum(c[key] for c in comms) / k
        out[f"total_{key}"] = sum(c[key] for c in comms)
    out["comm_seconds_per_search"] = sum(c["comm_seconds"] for c in comms) / k
    if construction is not None:
        out["construction"] = construction
    return out


def format_comm(summary: dict) -> str:
    """The communication block printed after the Graph500 report."""
    if not summary:
        return ""
    how = summary["exchange"] + (f", fanout {summary['fanout']}" if summary["fanout"] else "")
    lines = [f"{'communication:':<32}{how}, {summary['ranks']} ranks; per search = mean over "
             f"{summary['searches']} searches"]
    rows = [("comm_messages_per_search:", summary["messages_per_search"]),
            ("comm_bytes_per_search:", summary["bytes_per_search"]),
            ("comm_seconds_per_search:", summary["comm_seconds_per_search"]),
            ("exchange_messages_per_search:", summary["exchange_messages_per_search"]),
            ("exchange_bytes_per_search:", summary["exchange_bytes_per_search"]),
            ("control_messages_per_search:", summary["control_messages_per_search"]),
            ("control_bytes_per_search:", summary["control_bytes_per_search"]),
            ("levels_per_search:", summary["levels_per_search"]),
            ("comm_total_messages:", summary["total_messages"]),
            ("comm_total_bytes:", summary["total_bytes"])]
    cons = summary.get("construction")
    if cons:
        rows += [("construction_messages:", sum(c["messages"] for c in cons.values())),
                 ("construction_bytes:", sum(c["bytes"] for c in cons.values()))]
    lines += [f"{key:<32}{value:g}" for key, value in rows]
    return "\n".join(lines)
