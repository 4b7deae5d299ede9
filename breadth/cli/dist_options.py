"""Distributed (MPI) options shared by ``breadth graph500`` and ``breadth bfs``, and their report."""
from __future__ import annotations

from ..errors import InputError
from .messages import translate

def add_dist_options(p):
    """The distributed options; the layouts' own flags come from their descriptions (``registry``)."""
    from ..distributed import registry

    try:
        parts = registry.partitions()
    except InputError as exc:                       # a layout named in BREADTH_LAYOUTS that is not one
        p.exit(2, f"breadth: error: {exc}\n")
    g = p.add_argument_group(
        "distributed search (MPI)",
        "Run under 'mpiexec -n P breadth ...' (or let --ranks start mpiexec). Rank 0 prints; every rank "
        "holds only its share of the graph.")
    about = "; ".join(f"{q}: {_about(q)}" for q in parts)
    g.add_argument("--partition", choices=("auto", "none") + parts, default="auto",
                   help=f"none: one process, no MPI; {about}; auto (default): under mpiexec with more than one "
                        f"rank, measure the network and the ranks' kernels at job start, estimate the graph's "
                        f"level profile, predict every layout (with its best parameters: "
                        f"{', '.join(q.flag for q in registry.params())}) and run the fastest, printing why and, "
                        f"after the run, predicted vs measured (a layout flag such as --exchange fixes the partition "
                        f"instead); else none")
    g.add_argument("--exchange", choices=registry.exchanges(), default=None,
                   help="how each level's discoveries are exchanged (default: the partition's own, "
                        + ", ".join(f"{q}: {registry.default_exchange(q)}" for q in parts) + "): "
                        + "; ".join(f"{lay.exchange} (--partition {lay.partition}) {lay.summary}"
                                    for lay in registry.layouts() if lay.summary))
    for q in registry.params():
        g.add_argument(q.flag, default=q.default, metavar=q.metavar, choices=q.choices, type=q.type,
                       help=f"with {_where(q)}: {q.help}")
    g.add_argument("--ranks", type=int, default=None, metavar="P",
                   help=f"start 'mpiexec -n P' with this same command yourself (implies --partition "
                        f"{registry.DEFAULT_PARTITION} unless another is given; adds --oversubscribe when P "
                        f"exceeds the cores)")
    g.add_argument("--hostfile", default=None, metavar="FILE",
                   help="with --ranks: the mpiexec hostfile naming the hosts to spread the ranks over")
    g.add_argument("--stall-timeout", type=float, default=None, metavar="SECONDS",
                   help="end the whole job (exit code 1, one line naming the host, rank, level and the MPI "
                        "operation) when a rank has waited this long in one MPI operation: a peer is stopped, "
                        "unreachable or far too slow (default: 20 x the slowest level of the 3 searches after the "
                        "first, at least "
                        "30 s, 120 s during construction; 0: never)")


def _about(partition) -> str:
    """The --partition help of ``partition``: its default layout's ``about``."""
    from ..distributed import registry

    return registry.get(partition).about or partition


def _owners(param) -> list:
    """The layouts that take ``param``'s flag."""
    from ..distributed import registry

    return [lay for lay in registry.layouts() if any(q.flag == param.flag for q in lay.params)]


def _where(param) -> str:
    """Where ``param``'s flag applies, as flags: "--partition 2d", "--exchange butterfly"."""
    from ..distributed import registry

    owners, out = _owners(param), []
    for part in dict.fromkeys(lay.partition for lay in owners):
        mine = [lay for lay in owners if lay.partition == part]
        if len(mine) == len(registry.exchanges(part)):
            out.append(f"--partition {part}")
            continue
        for lay in mine:
            shared = sum(lay.exchange in registry.exchanges(q) for q in registry.partitions()) > 1
            out.append(f"--partition {part} --exchange {lay.exchange}" if shared else f"--exchange {lay.exchange}")
    return " or ".join(out)


def _given(args, param) -> bool:
    """Whether the command line sets ``param`` (callers may build args without some layout options)."""
    return getattr(args, param.dest, param.default) != param.default


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
        if mode == "auto" and args.ranks == 1:
            mode = registry.DEFAULT_PARTITION
    elif args.hostfile is not None:
        raise InputError("--hostfile goes with --ranks (under your own mpiexec, pass it to mpiexec)")
    if mode == "auto" and (args.ranks is not None or (world is not None and world > 1)):
        implied = _implied_partition(args)
        if implied is None:
            return "auto"
        mode = implied
    if mode == "auto":
        mode = "none"
    given = [q for q in registry.params() if _given(args, q)]
    if mode == "none":
        if world is not None and world > 1:
            raise InputError(f"--partition none runs on one process, but mpiexec started {world}; "
                             f"use --partition {registry.DEFAULT_PARTITION}")
        if args.exchange is not None:
            raise InputError(f"--exchange applies to distributed runs: add --partition {registry.DEFAULT_PARTITION} "
                             f"or --ranks P")
        if getattr(args, "stall_timeout", None) is not None:
            raise InputError(f"--stall-timeout applies to distributed runs: add --partition "
                             f"{registry.DEFAULT_PARTITION} or --ranks P")
        for q in given:
            raise InputError(f"{q.flag} applies to {_where(q)}")
        return mode
    layout = registry.get(mode, args.exchange)     # the pair exists (its names are the flags' values)
    for q in given:
        if layout.param(q.name) is None:
            raise InputError(f"{q.flag} applies to {_where(q)}")
        if q.check is not None:
            try:
                q.check(getattr(args, q.dest))
            except InputError as exc:               # the library's words, as flags
                raise InputError(translate(str(exc))) from None
    return mode


def _implied_partition(args):
    """The partition the layout flags name when --partition is auto (None: no layout flag given)."""
    from ..distributed import registry

    device = getattr(args, "device", "cpu")
    if device != "cpu":
        return next((lay.partition for lay in registry.layouts() if device in lay.devices), registry.DEFAULT_PARTITION)
    for q in registry.params():
        if _given(args, q):
            return _owners(q)[0].partition
    if args.exchange is not None:
        return next(p for p in registry.partitions() if args.exchange in registry.exchanges(p))
    return None


def choose_layout(args, comm, make_profile, fits=None):
    """Under ``--partition auto``: the planner's ``Choice`` for this job (collective); else None.
    ``fits``: the (partition, exchange) pairs whose memory estimate fits (None: any)."""
    if partition_mode(args) != "auto":
        return None
    from ..distributed.planner.auto import choose_layout as plan
    from ..distributed.runtime import auto_threads

    threads = args.threads if args.threads is not None else auto_threads(comm)
    return plan(comm, make_profile, threads, fits)


def fitting_layouts(comm, num_vertices, num_tuples, streaming=None):
    """The (partition, exchange) pairs whose per-host peak for a generated graph fits every host's
    available memory (streamed where the layout can and ``streaming`` allows), agreed by all ranks;
    None when none fits (the engine's memory check then explains the refusal). Collective."""
    import logging

    import numpy as np

    from ..distributed import registry
    from ..distributed.search_base import SearchOptions
    from ..graph.memory import available_bytes

    pairs = [(p, x) for p in registry.partitions() for x in registry.exchanges(p)]
    avail = available_bytes() / comm.local_size
    ok = np.zeros(len(pairs), dtype=np.int64)
    for i, (p, x) in enumerate(pairs):
        lay = registry.get(p, x)
        stream = lay.estimate_stream is not None and streaming is not False
        est = (lay.estimate_stream if stream else lay.estimate_bytes)(num_vertices, num_tuples, comm.size,
                                                                     SearchOptions(), False)
        ok[i] = est <= avail
    ok = comm.allreduce(ok, op="min")
    keep = [pair for pair, good in zip(pairs, ok) if good]
    if len(keep) < len(pairs):
        logging.getLogger("breadth.planner").info(
            "--partition auto: layouts whose memory estimate does not fit left out: %s",
            ", ".join(f"{p}/{x}" for (p, x), good in zip(pairs, ok) if not good))
    return keep or None


def format_choice(choice, measured_seconds=None) -> str:
    """The layout-choice block: the candidates' predictions and, after the run, predicted vs measured."""
    text = choice.text()
    if measured_seconds is not None:
        text += (f"\n{'auto_predicted_s_per_search:':<32}{choice.best.seconds:g}"
                 f"\n{'auto_measured_s_per_search:':<32}{measured_seconds:g}"
                 f"\n{'auto_measured_over_predicted:':<32}{measured_seconds / choice.best.seconds:.3g}")
    return text


def engine_options(args, choice=None) -> dict:
    """``DistEngine`` keyword arguments from the parsed options (its errors name API parameters;
    ``messages.translate`` turns them into these flags); under --partition auto, ``choice``'s layout."""
    from ..distributed import registry

    mode = partition_mode(args)
    common = {"algorithm": args.algorithm, "alpha": args.alpha, "beta": args.beta, "threads": args.threads,
              "device": getattr(args, "device", "cpu"), "stall_timeout": getattr(args, "stall_timeout", None)}
    if mode == "auto":
        if choice is None:
            raise InputError("--partition auto needs the planner's choice (dist_options.choose_layout)")
        return {**choice.engine_kwargs(), **common}
    layout = registry.get(mode, args.exchange)
    kw = layout.engine_kwargs({q.name: getattr(args, q.dest) for q in layout.params if _given(args, q)})
    return {**kw, "exchange": args.exchange, **common}


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
    dels = [s["delegates"] for s in searches if "delegates" in s]
    if dels:
        for key in ("mask_bytes", "normal_bytes", "delegate_parent_bytes", "nn_parent_bytes", "mask_levels"):
            out[f"delegate_{key}_per_search" if key == "mask_levels" else f"{key}_per_search"] = \
                sum(d[key] for d in dels) / len(dels)
        out["delegate_mask"] = dels[0]["mask_mode"]
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
    if "mask_bytes_per_search" in summary:
        rows += [("mask_bytes_per_search:", summary["mask_bytes_per_search"]),
                 ("normal_bytes_per_search:", summary["normal_bytes_per_search"]),
                 ("delegate_parent_bytes_per_search:", summary["delegate_parent_bytes_per_search"]),
                 ("nn_parent_bytes_per_search:", summary["nn_parent_bytes_per_search"]),
                 ("mask_levels_per_search:", summary["delegate_mask_levels_per_search"])]
    cons = summary.get("construction")
    if cons:
        rows += [("construction_messages:", sum(c["messages"] for c in cons.values())),
                 ("construction_bytes:", sum(c["bytes"] for c in cons.values()))]
    lines += [f"{key:<32}{value:g}" for key, value in rows]
    if "delegate_mask" in summary:
        lines.append(f"{'delegate_mask:':<32}{summary['delegate_mask']}")
    return "\n".join(lines)


def format_partition(partition: dict) -> str:
    """The degree-separation block (threshold, delegates, subgraph shares, graph memory per rank);
    empty for partitions without one."""
    if partition.get("partition") != "delegates":
        return ""
    mem = partition["memory_per_rank"]
    rows = [("delegate_threshold:", f"{partition['threshold']} ({partition['threshold_rule']})"),
            ("delegates:", f"{partition['delegates']} ({partition['delegate_percent']:g}% of vertices)"),
            ("arcs nn/nd/dn/dd:", " / ".join(f"{partition[f'{s}_arcs']} ({partition[f'{s}_percent']:g}%)"
                                             for s in ("nn", "nd", "dn", "dd"))),
            ("cut_nn_arcs:", partition["cut_nn_arcs"])]
    for k in range(len(mem["subgraphs_bytes"])):
        sub, csr, el = (mem[key][k] for key in ("subgraphs_bytes", "csr_1d_bytes", "edge_list_16B_bytes"))
        rows.append((f"graph_bytes_rank_{k}:", f"subgraphs {sub} = {sub / csr if csr else 0:.2f} x 1D CSR ({csr}), "
                                               f"{sub / el if el else 0:.2f} x 16-byte edge list ({el})"))
    return "\n".join(f"{key:<32}{value}" for key, value in rows)
