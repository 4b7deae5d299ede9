"""``breadth graph500``: the Graph500 BFS benchmark."""
from __future__ import annotations

from .common import (add_device_option, add_quiet_option, add_search_options, add_threads_option, run_on_ranks,
                     set_threads, write_json)
from .dist_options import add_dist_options
from .helpformat import examples

_PARSER = None   # this subcommand's parser (``--ranks`` rebuilds the command line from it)


def register(sub):
    p = sub.add_parser(
        "graph500",
        help="run the Graph500 BFS benchmark",
        description="Generate a Graph500 Kronecker graph (kernel 0), build it (kernel 1, timed), run "
                    "BFS from --roots distinct non-isolated search keys (kernel 2, each timed), "
                    "validate every tree by the Graph500 rules and print the statistics in the "
                    "reference output format. A failed validation exits with code 3.",
        epilog=examples("breadth graph500 --scale 20",
                        "breadth graph500 --scale 18 --roots 16 --json run.json --plot levels.png",
                        "breadth graph500 --scale 22 --ranks 4 --exchange alltoall",
                        "breadth graph500 --scale 20 --device cuda",
                        "mpiexec -n 8 breadth graph500 --scale 24"),
    )
    p.add_argument("--scale", type=int, required=True, help="log2 of the number of vertices")
    p.add_argument("--edgefactor", type=int, default=16, help="edge tuples per vertex")
    p.add_argument("--roots", type=int, default=64, help="number of search keys (NBFS)")
    p.add_argument("--seed", type=int, default=1, help="seed of the generator and of the search keys")
    add_search_options(p)
    add_device_option(p)
    p.add_argument("--no-validate", action="store_true", help="skip validating the BFS trees")
    p.add_argument("--validate-tuples", action="store_true",
                   help="also check every tree against the input tuples, regenerated chunk by chunk "
                        "(the reference's reading of the level and span rules; one generation per search)")
    p.add_argument("--tuple-list", action="store_true",
                   help="generate the whole tuple list and build from it, as the reference code does "
                        "(about 40 bytes per tuple at the peak); by default the tuples are streamed into "
                        "the build chunk by chunk and never held (about 9 bytes per tuple)")
    p.add_argument("--json", metavar="FILE", default=None,
                   help="also write every statistic, search and per-level record as JSON to FILE ('-': stdout, "
                        "after the report)")
    p.add_argument("--plot", metavar="PNG", default=None,
                   help="plot frontier size and time per level of the median search to a PNG")
    add_quiet_option(p, "no progress bars")
    add_threads_option(p)
    add_dist_options(p)
    p.set_defaults(run=run)
    global _PARSER
    _PARSER = p


def run(args) -> int:
    from ..graph500 import Graph500Config, LocalEngine, format_report, run_benchmark
    from .dist_options import partition_mode

    if partition_mode(args) != "none":
        return run_distributed(args)
    set_threads(args.threads)
    config = Graph500Config(scale=args.scale, edgefactor=args.edgefactor, nroots=args.roots,
                            seed=args.seed, validate=not args.no_validate)
    if args.device == "cuda":
        from ..graph500.engine_cuda import CudaEngine

        engine = CudaEngine(args.algorithm, args.alpha, args.beta)
        engine.streaming = not args.tuple_list
        engine.validate_tuples = args.validate_tuples
    else:
        engine = LocalEngine(args.algorithm, args.alpha, args.beta, streaming=not args.tuple_list,
                             validate_tuples=args.validate_tuples)
    result = run_benchmark(config, engine, progress=not args.quiet)
    if engine.is_root:
        print(format_report(result), flush=True)
        if args.json:
            write_json(args.json, result.as_dict())
        if args.plot:
            from ..plot import plot_levels

            plot_levels(result.searches, args.plot, title=f"Graph500 scale {args.scale}")
    return 0


def run_distributed(args) -> int:
    """The benchmark on the MPI engine (under mpiexec; ``--ranks`` starts mpiexec first)."""
    from ..distributed.comm import collective_error
    from ..distributed.engine import DistEngine
    from ..errors import BreadthError
    from ..graph500 import Graph500Config, format_report, run_benchmark
    from .dist_options import comm_summary, engine_options, format_comm, format_partition

    def body(comm):
        if args.roots < 1:
            raise collective_error(BreadthError(f"--roots must be >= 1, got {args.roots}"))
        config = Graph500Config(scale=args.scale, edgefactor=args.edgefactor, nroots=args.roots,
                                seed=args.seed, validate=not args.no_validate)
        engine = DistEngine(comm=comm, **engine_options(args))
        result = run_benchmark(config, engine, progress=not args.quiet)
        construction = comm.reduced_phase_totals("construct")
        if engine.is_root:
            summary = comm_summary(result.searches, construction)
            print(format_report(result), flush=True)
            print(format_comm(summary), flush=True)
            if format_partition(result.graph.get("partition", {})):
                print(format_partition(result.graph["partition"]), flush=True)
            if args.json:
                payload = result.as_dict()
                payload["communication"] = summary
                write_json(args.json, payload)
            if args.plot:
                from ..plot import plot_levels

                plot_levels(result.searches, args.plot, title=f"Graph500 scale {args.scale}, {comm.size} ranks")
        return 0

    return run_on_ranks(_PARSER, args, "graph500", body)
