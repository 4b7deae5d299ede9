"""``breadth graph500``: the Graph500 BFS benchmark."""
from __future__ import annotations

from ..errors import InputError
from .common import (add_device_option, add_quiet_option, add_search_options, add_threads_option,
                     note_compile, run_on_ranks, set_threads, write_json, wrote_plot)
from .dist_options import add_dist_options
from .helpformat import examples


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
                        "breadth graph500 --scale 26 --ranks 64 --hostfile hosts --checkpoint ckpt",
                        "breadth graph500 --scale 26 --ranks 64 --hostfile hosts --checkpoint ckpt --resume",
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
    build = p.add_mutually_exclusive_group()
    build.add_argument("--stream", dest="streaming", action="store_const", const=True, default=None,
                       help="stream the generated tuples into the CSR build chunk by chunk, never holding the "
                            "tuple list (about 10-15 bytes per tuple at the peak instead of about 36-40). "
                            "With --ranks (every partition) each rank streams its tuple share into routing. "
                            "Default: streamed only when the tuple-list build would not fit in available memory")
    build.add_argument("--tuple-list", dest="streaming", action="store_const", const=False,
                       help="generate the whole tuple list (kernel 0) and build from it (kernel 1), as the "
                            "reference code does (faster where it fits)")
    p.add_argument("--json", metavar="FILE", default=None,
                   help="also write every statistic, search and per-level record as JSON to FILE ('-': stdout, "
                        "after the report)")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="plot frontier size and time per level of the median search to FILE: .png, .svg or .pdf "
                        "(the suffix picks the format); the path written is printed")
    p.add_argument("--checkpoint", metavar="DIR", default=None,
                   help="record each completed search (root, time, nedge, validation) in DIR/"
                        "graph500-checkpoint.json, with the run's parameters and a fingerprint of the graph, "
                        "so that a failed run can be resumed (rank 0 writes)")
    p.add_argument("--resume", action="store_true",
                   help="with --checkpoint: regenerate the graph, take the searches the checkpoint holds "
                        "instead of running them again, run the rest; the report says how many were resumed and "
                        "its time statistics cover the searches run now. Refused (exit 2) if the parameters or "
                        "the graph differ")
    add_quiet_option(p, "no progress bars")
    add_threads_option(p)
    add_dist_options(p)
    p.set_defaults(run=run, parser=p)      # ``--ranks`` rebuilds the command line from the parser


def checkpoint(args, writer: bool):
    """The run's ``Checkpoint`` (None without --checkpoint); ``writer``: this process writes it (rank 0)."""
    if not args.checkpoint:
        return None
    from ..graph500.checkpoint import Checkpoint

    params = {"scale": args.scale, "edgefactor": args.edgefactor, "roots": args.roots, "seed": args.seed,
              "validate": not args.no_validate, "algorithm": args.algorithm, "alpha": args.alpha, "beta": args.beta}
    return Checkpoint(args.checkpoint, params, resume=args.resume, writer=writer)


def run(args) -> int:
    from ..graph500 import Graph500Config, LocalEngine, format_report, run_benchmark
    from .dist_options import partition_mode

    if args.resume and not args.checkpoint:
        raise InputError("--resume continues the run recorded by --checkpoint DIR: give --checkpoint")
    if args.plot:
        from ..plot import check_plot_path

        check_plot_path(args.plot)
    if partition_mode(args) != "none":
        return run_distributed(args)
    set_threads(args.threads)
    config = Graph500Config(scale=args.scale, edgefactor=args.edgefactor, nroots=args.roots,
                            seed=args.seed, validate=not args.no_validate)
    if args.device == "cuda":
        from ..graph500.engine_cuda import CudaEngine

        engine = CudaEngine(args.algorithm, args.alpha, args.beta, streaming=args.streaming)
        engine.validate_tuples = args.validate_tuples
    else:
        engine = LocalEngine(args.algorithm, args.alpha, args.beta, streaming=args.streaming,
                             validate_tuples=args.validate_tuples)
    result = run_benchmark(config, engine, progress=not args.quiet, checkpoint=checkpoint(args, True))
    if engine.is_root:
        note_compile(result.compile_seconds)
        print(format_report(result), flush=True)
        if args.json:
            write_json(args.json, result.as_dict())
        if args.plot:
            from ..plot import plot_levels

            plot_levels(result.searches, args.plot, title=f"Graph500 scale {args.scale}")
            wrote_plot(args)
    return 0


def run_distributed(args) -> int:
    """The benchmark on the MPI engine (under mpiexec; ``--ranks`` starts mpiexec first)."""
    from ..distributed.comm import collective_error
    from ..distributed.engine import DistEngine
    from ..errors import BreadthError
    from ..graph500 import Graph500Config, format_report, run_benchmark
    from .dist_options import (choose_layout, comm_summary, engine_options, fitting_layouts, format_choice, format_comm,
                               format_partition, partition_mode)

    def estimate():
        from ..distributed.planner.graph import generated

        return generated("kronecker", args.scale, args.edgefactor, args.seed)

    def body(comm):
        if args.roots < 1:
            raise collective_error(BreadthError(f"--roots must be >= 1, got {args.roots}"))
        config = Graph500Config(scale=args.scale, edgefactor=args.edgefactor, nroots=args.roots,
                                seed=args.seed, validate=not args.no_validate)
        fits = fitting_layouts(comm, 1 << args.scale, args.edgefactor << args.scale, args.streaming) \
            if partition_mode(args) == "auto" else None
        choice = choose_layout(args, comm, estimate, fits)
        engine = DistEngine(comm=comm, streaming=args.streaming, **engine_options(args, choice))
        result = run_benchmark(config, engine, progress=not args.quiet, checkpoint=checkpoint(args, engine.is_root))
        construction = comm.reduced_phase_totals("construct")
        if engine.is_root:
            note_compile(result.compile_seconds)
            summary = comm_summary(result.searches, construction)
            print(format_report(result), flush=True)
            print(format_comm(summary), flush=True)
            if format_partition(result.graph.get("partition", {})):
                print(format_partition(result.graph["partition"]), flush=True)
            measured = sum(result.times) / len(result.times) if result.times else None
            if choice is not None:
                print(format_choice(choice, measured), flush=True)
            if args.json:
                payload = result.as_dict()
                payload["communication"] = summary
                if choice is not None:
                    payload["planner"] = choice.report(measured)
                write_json(args.json, payload)
            if args.plot:
                from ..plot import plot_levels

                plot_levels(result.searches, args.plot, title=f"Graph500 scale {args.scale}, {comm.size} ranks")
                wrote_plot(args)
        return 0

    return run_on_ranks(args.parser, args, "graph500", body)
