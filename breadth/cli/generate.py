"""``breadth generate``: write a synthetic graph to a native .npz file."""
from __future__ import annotations

import time

from .common import add_quiet_option, add_threads_option, set_threads
from .helpformat import examples


def register(sub):
    p = sub.add_parser(
        "generate",
        help="generate a synthetic graph and save it",
        description="Generate a Graph500 Kronecker graph or a GAP-style uniform random graph, build its "
                    "CSR (self-loops and duplicates removed) and save it as a native .npz file that "
                    "opens memory-mapped.",
        epilog=examples("breadth generate kronecker --scale 20 -o k20.npz",
                        "breadth generate urand --scale 20 --degree 16 --seed 7 -o u20.npz",
                        "breadth generate kronecker --scale 16 --directed -o k16d.npz"),
    )
    p.add_argument("kind", choices=("kronecker", "urand"),
                   help="kronecker: Graph500 R-MAT (A,B,C = 0.57,0.19,0.19); urand: uniform endpoints")
    p.add_argument("--scale", type=int, required=True, help="log2 of the number of vertices")
    p.add_argument("--edgefactor", "--degree", dest="edgefactor", type=int, default=16,
                   help="edge tuples per vertex")
    p.add_argument("--seed", type=int, default=1, help="generator seed")
    p.add_argument("--directed", action="store_true", help="keep edges directed (default: symmetrise)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="output .npz file")
    add_quiet_option(p, "no progress bar")
    add_threads_option(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from ..graph.generators import check_scale, kronecker, uniform_random
    from ..graph.native import save
    from ..progress import bar as progress_bar

    set_threads(args.threads)
    t0 = time.perf_counter()
    check_scale(args.scale, args.edgefactor, "edgefactor")
    make = kronecker if args.kind == "kronecker" else uniform_random
    with progress_bar(2, f"generate {args.kind}: CSR / save", unit="step") as bar:
        # the tuple list where it fits, else streamed into the build (checked before allocating)
        g = make(args.scale, args.edgefactor, args.seed, directed=args.directed)
        bar.update()
        save(g, args.output)
        bar.update()
    info = g.build_info
    print(f"{args.kind} scale={args.scale}: {g.num_vertices} vertices, {g.num_edges} edges "
          f"({info.self_loops} self-loops and {info.duplicates} duplicates removed) -> {args.output} "
          f"in {time.perf_counter() - t0:.2f} s")
    return 0
