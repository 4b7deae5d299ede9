"""``breadth warmup``: compile breadth's kernels ahead, so no later call waits for the compiler."""
from __future__ import annotations

from .common import add_json_option, add_quiet_option, add_threads_option, set_threads, write_json
from .helpformat import examples


def register(sub):
    from ..warmup import STEPS

    p = sub.add_parser(
        "warmup",
        help="compile the kernels of the common paths now (first run after an install)",
        description="numba compiles breadth's kernels for this machine on their first use and keeps them in "
                    "a per-user disk cache (NUMBA_CACHE_DIR, when set, chooses another folder), so the first "
                    "call of a fresh installation waits for the compiler. This command pays that cost now, "
                    "with a progress bar, by running each common path on a tiny graph: "
                    + ", ".join(STEPS) + ". With two cores a second process runs multi_bfs beside the others; the "
                    "planner step, which times this machine, runs last and alone. With a warm cache it only loads "
                    "the kernels from the cache, which is quick. ./setup.sh runs it.",
        epilog=examples("breadth warmup",
                        "breadth warmup --only bfs graph500",
                        "breadth warmup --quiet --json w.json     # NUMBA_CACHE_DIR set: fills that cache"),
    )
    p.add_argument("--only", nargs="+", choices=list(STEPS), default=None, metavar="STEP",
                   help=f"run these steps only (default: all of {', '.join(STEPS)})")
    add_json_option(p, "seconds and compile seconds per step, and the cache folder")
    add_quiet_option(p)
    add_threads_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..cache import cache_dir
    from ..warmup import warmup

    set_threads(args.threads)
    steps = warmup(progress=None, steps=args.only)
    if args.json:
        write_json(args.json, {"cache_dir": cache_dir(), "steps": steps})
    if args.json != "-" and not args.quiet:
        for name, t in steps.items():
            print(f"warmup {name} seconds={t['seconds']:.2f} compile_seconds={t['compile_seconds']:.2f}")
        print(f"cache {cache_dir()}")
    return 0
