"""``breadth plan``: each distributed layout's predicted search time, TEPS, communication and memory
per rank for a graph and a cluster, and the recommendation (projections from the planner's
alpha-beta models, ``breadth.distributed.planner``). The graph's numbers at the target scale (the
delegates and nn share at the degree threshold, the level profile) are printed and can be set;
``--grid``, ``--fanout`` and ``--threshold`` fix a layout's parameters as in a run."""
from __future__ import annotations

from .common import write_json

FIXED = ("grid", "fanout", "threshold")       # the layout parameters ``plan`` can fix, by Param name
SWEEP_POINTS = 10                             # at most this many rank counts for --plot


def register(sub):
    from ..distributed import registry
    from ..distributed.planner.network import PRESETS
    from .helpformat import examples

    p = sub.add_parser("plan", help="predict every distributed layout's time on a cluster (projections)",
                       description=__doc__,
                       epilog=examples("breadth plan --scale 30 --ranks 1024 --hosts 64 --network infiniband",
                                       "breadth plan --scale 30 --ranks 1024 --hosts 64 --network infiniband "
                                       "--plot scaling.png",
                                       "breadth plan --scale 20 --ranks 16 --hosts 4 --network 1gbe --json -",
                                       "breadth plan --scale 35 --ranks 115600 --hosts 4817 --cores 24 --grid 340x340",
                                       "breadth plan --scale 33 --ranks 124 --hosts 31 --gpus --rate-td 5e9 "
                                       "--staging-bandwidth 4e10 --threshold 128",
                                       "breadth plan --graph g.npz --ranks 8 --hosts 2 --latency 5e-5 --bandwidth 1e9"))
    p.add_argument("--scale", type=int, default=None, help="a Graph500 Kronecker graph of 2^SCALE vertices")
    p.add_argument("--kind", choices=("kronecker", "uniform"), default="kronecker",
                   help="the generated graph's kind")
    p.add_argument("--edgefactor", type=int, default=16, help="edge tuples per vertex")
    p.add_argument("--graph", default=None, metavar="FILE",
                   help="instead of --scale: a graph file, profiled by two single-node searches")
    p.add_argument("--ranks", type=int, required=True, metavar="P", help="MPI ranks")
    p.add_argument("--hosts", type=int, default=None, metavar="H", help="hosts the ranks spread over in blocks "
                   "(left out: one rank per host)")
    p.add_argument("--cores", type=int, default=16, help="cores per host")
    p.add_argument("--network", choices=sorted(PRESETS), default="10gbe",
                   help="named latency/bandwidth per host link: "
                        + ", ".join(f"{k}: {a * 1e6:g} us, {b / 1e6:g} MB/s" for k, (a, b) in PRESETS.items()))
    p.add_argument("--latency", type=float, default=None, metavar="S", help="seconds per message across hosts "
                   "(overrides --network)")
    p.add_argument("--bandwidth", type=float, default=None, metavar="B/S",
                   help="bytes per second of one host's link (overrides --network)")
    p.add_argument("--rate-td", type=float, default=None, help="top-down edges/s of one core (with --gpus: of one "
                   "GPU; left out: this machine's cached calibration, else 1e8)")
    p.add_argument("--rate-bu", type=float, default=None, help="bottom-up edges/s of one core or GPU (likewise)")
    p.add_argument("--memory-bandwidth", type=float, default=None, metavar="B/S",
                   help="bytes per second one rank clears its per-search arrays at (default 5e9; a GPU's device "
                        "memory bandwidth with --gpus)")
    p.add_argument("--rates-from-memory", action="store_true",
                   help="edge rates from --memory-bandwidth instead of --rate-td/--rate-bu: each examined edge "
                        "reads a 4-byte id and one random 64-byte cache line (32-byte sector with --gpus) unless "
                        "the rank's cache (--cache-bytes) holds the neighbour's state -- the highest-degree "
                        "vertices' share of edge endpoints, from the degree model")
    p.add_argument("--cache-bytes", type=float, default=0.0, metavar="B",
                   help="with --rates-from-memory: last-level cache bytes per rank (default 0: none)")
    p.add_argument("--gpus", action="store_true", help="every rank is a GPU: --rate-td/--rate-bu and "
                   "--memory-bandwidth are one device's, whatever the host's cores")
    p.add_argument("--staging-bandwidth", type=float, default=None, metavar="B/S",
                   help="with --gpus: transfers are staged through host memory over a host-device link of this "
                        "many bytes/s each way (Pan et al. Sec. VI-A); left out: direct transfers")
    p.add_argument("--torus", default=None, metavar="XxYxZ",
                   help="the hosts sit on a direct torus network of these router dimensions (e.g. 17x8x24): "
                        "traffic of groups spread over the machine is bounded by its bisection "
                        "(2 X Y Z / max(X, Y, Z) links); needs --torus-link")
    p.add_argument("--torus-link", type=float, default=None, metavar="B/S",
                   help="bytes per second of one torus link in each direction")
    p.add_argument("--imbalance", type=float, default=1.0, metavar="X",
                   help="the busiest rank's local work over the mean (default 1: balanced)")
    p.add_argument("--nn-share", type=float, default=None, metavar="X",
                   help="share of edges between two normal vertices for the delegates layout (default: the "
                        "degree model at the target scale)")
    p.add_argument("--delegate-fraction", type=float, default=None, metavar="X",
                   help="share of the vertices that are delegates (default: the degree model's at the threshold)")
    p.add_argument("--levels", metavar="FILE", default=None,
                   help="a JSON list of levels replacing the estimated profile, each {direction: top-down or "
                        "bottom-up, frontier, examined, discovered, unvisited} and optionally biased (the "
                        "frontier's sum(d^2)/sum(d), which sets how unevenly its arcs fall on the ranks; "
                        "default: its mean degree + 1), as plan --json writes under graph.levels")
    seen = set()
    for lay in registry.layouts():
        for prm in lay.params:
            if prm.name in FIXED and prm.name not in seen:
                seen.add(prm.name)
                p.add_argument(prm.flag, dest=f"fix_{prm.name}", type=prm.type, metavar=prm.metavar, default=None,
                               help=prm.help + " -- in plan: fixes it for the layouts that have it (left out: "
                                    "every candidate is priced)")
    p.add_argument("--memory", type=float, default=None, metavar="GIB",
                   help="memory per host in GiB: candidates that need more are marked and not recommended")
    p.add_argument("--paper-code", action="store_true",
                   help="price each layout as its paper's code runs where that differs from breadth's "
                        "(ButterFly top-down only, MapGraph without the parents step)")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="also price the job at fewer ranks (powers of two below --ranks, as many ranks per host) "
                        "and plot each layout's predicted search time and communication share against the rank "
                        "count to FILE: .png, .svg or .pdf (the suffix picks the format); --grid and --torus hold "
                        "at --ranks only. The JSON gets the points under 'sweep'")
    p.add_argument("--json", metavar="FILE", default=None,
                   help="write every priced candidate as JSON ('-': stdout): parameters, time, messages, wire "
                        "bytes and words per level (per level: the search from a root of the mean degree; the "
                        "totals: the mean over the root-degree buckets of a Graph500 draw, graph.root_draws)")
    p.set_defaults(run=run)


def _check(args):
    from ..errors import InputError

    if (args.scale is None) == (args.graph is None):
        raise InputError("give --scale or --graph")
    if args.ranks < 1:
        raise InputError(f"--ranks must be >= 1, got {args.ranks}")
    hosts = args.hosts or args.ranks
    if not 1 <= hosts <= args.ranks:
        raise InputError(f"--hosts must be between 1 and --ranks ({args.ranks}), got {hosts}")
    if args.cores < 1:
        raise InputError(f"--cores must be >= 1, got {args.cores}")
    for flag in ("memory_bandwidth", "staging_bandwidth", "memory"):
        v = getattr(args, flag)
        if v is not None and not v > 0:
            raise InputError(f"--{flag.replace('_', '-')} must be > 0, got {v}")
    if not args.imbalance >= 1:
        raise InputError(f"--imbalance must be >= 1, got {args.imbalance}")
    for flag in ("nn_share", "delegate_fraction"):
        v = getattr(args, flag)
        if v is not None and not 0 <= v <= 1:
            raise InputError(f"--{flag.replace('_', '-')} must be between 0 and 1, got {v}")
    if args.staging_bandwidth is not None and not args.gpus:
        raise InputError("--staging-bandwidth needs --gpus")
    if args.rates_from_memory:
        if args.memory_bandwidth is None:
            raise InputError("--rates-from-memory needs --memory-bandwidth")
        if args.rate_td is not None or args.rate_bu is not None:
            raise InputError("give --rates-from-memory or --rate-td/--rate-bu, not both")
    elif args.gpus and args.rate_td is None:
        raise InputError("with --gpus give the device's edge rates (--rate-td, --rate-bu) or --rates-from-memory "
                         "with --memory-bandwidth: this machine's core rates would not describe a GPU")
    if not args.cache_bytes >= 0:
        raise InputError(f"--cache-bytes must be >= 0, got {args.cache_bytes}")
    if (args.torus is None) != (args.torus_link is None):
        raise InputError("--torus and --torus-link go together")
    if args.torus is not None:
        try:
            dims = tuple(int(x) for x in args.torus.lower().split("x"))
        except ValueError:
            dims = ()
        if len(dims) < 1 or min(dims) < 1:
            raise InputError(f"--torus takes dimensions like 17x8x24, got {args.torus!r}")
        if not args.torus_link > 0:
            raise InputError(f"--torus-link must be > 0, got {args.torus_link}")
        args.torus = dims
    return hosts


def _fixed(args) -> dict:
    """The user's fixed parameters, checked by the first layout that has each (its own words)."""
    from ..distributed import registry

    out = {}
    for name in FIXED:
        value = getattr(args, f"fix_{name}", None)
        if value is None:
            continue
        lay = next(x for x in registry.layouts() if x.param(name) is not None)
        prm = lay.param(name)
        if prm.check is not None:
            value = prm.check(value)
        elif lay.check_params is not None:
            value = lay.check_params({name: value}, args.ranks)[name]
        out[name] = value
    return out


def run(args) -> int:
    from ..distributed.planner import choose, graph, network
    from ..errors import InputError

    hosts = _check(args)
    fixed = _fixed(args)
    if args.plot:
        from ..plot import check_plot_path

        check_plot_path(args.plot)
    lat, bw = network.PRESETS[args.network]
    lat = args.latency if args.latency is not None else lat
    bw = args.bandwidth if args.bandwidth is not None else bw
    if lat < 0 or bw <= 0:
        raise InputError("--latency must be >= 0 and --bandwidth > 0")
    rates = _rates(args)
    if args.graph:
        from .common import open_graph

        g = open_graph(args.graph)
        prof = graph.sample(g, graph.pick_roots(g, 2), f"{args.graph}: 2 single-node searches")
        tuples = int(prof.m)
    else:
        prof = graph.generated(args.kind, args.scale, args.edgefactor)
        tuples = args.edgefactor << args.scale
    if args.levels:
        prof.levels, prof.table = _levels(args.levels), None
        prof.source = f"levels from {args.levels}"
    if args.nn_share is not None:
        prof.overrides["nn_share"] = args.nn_share
    if args.delegate_fraction is not None:
        prof.overrides["delegate_fraction"] = args.delegate_fraction
    machine, preds, rows = _price(args, prof, tuples, args.ranks, hosts, (lat, bw), rates, fixed)
    fitting = [p for p in preds if p.fits]
    best = choose.best_per_layout(fitting or preds)
    th, d, nn = prof.delegation(args.ranks, fixed.get("threshold", "auto"))
    out = {"projection": True,
           "graph": {"n": prof.n, "m": prof.m, "profile": prof.source, "levels": [vars(x) for x in prof.levels],
                     "root_draws": [{"probability": w, "root_degree": p.root_degree} for w, p in prof.root_draws()],
                     "degrees": prof.degrees.source if prof.degrees is not None else "sampled skew",
                     "threshold": th, "delegates": d, "nn_share": nn, "overrides": dict(prof.overrides)},
           "ranks": args.ranks, "hosts": hosts, "cores_per_host": args.cores, "latency": lat, "bandwidth": bw,
           "rate_td": rates["rate_td"], "rate_bu": rates["rate_bu"], "memory_bandwidth": machine.memory_bandwidth,
           "gpus": args.gpus, "staging_bandwidth": args.staging_bandwidth, "imbalance": args.imbalance,
           "torus": list(args.torus or ()), "torus_link": args.torus_link,
           "fixed": fixed, "paper_code": args.paper_code, "candidates": rows,
           "layouts": [r for r in rows if any(r["label"] == b.label for b in best)],
           "recommendation": best[0].label if fitting else None,
           "why": choose.why(best) if fitting else "no candidate fits --memory"}
    if args.plot:
        from ..plot import plot_plan
        from .common import wrote_plot

        out["sweep"] = _sweep(args, prof, tuples, hosts, (lat, bw), rates, fixed, preds)
        plot_plan(out["sweep"], args.ranks, args.plot, title=_title(args, prof, hosts))
    if args.json == "-":
        write_json("-", out)
        if args.plot:
            wrote_plot(args)
        return 0
    _print(args, out, prof, hosts, lat, bw, rates, machine, best)
    if args.plot:
        wrote_plot(args)
    if args.json:
        write_json(args.json, out)
    return 0


def _price(args, prof, tuples, P, hosts, link, rates, fixed, torus=True):
    """Every candidate priced for P ranks on ``hosts`` hosts (``torus``: on --torus): (machine,
    predictions fastest first, each marked ``fits`` within --memory per host, their JSON rows)."""
    from ..distributed import registry
    from ..distributed.planner import choose, network
    from ..distributed.search_base import SearchOptions

    machine = network.assumed(P, hosts, args.cores, link[0], link[1], rates["rate_td"], rates["rate_bu"],
                              threads=1 if args.gpus else None,
                              memory_bandwidth=args.memory_bandwidth or 5e9)
    machine.device = "gpu" if args.gpus else "cpu"
    machine.staging_bandwidth = args.staging_bandwidth
    machine.imbalance = args.imbalance
    if args.torus and torus:
        machine.torus, machine.torus_link = args.torus, args.torus_link
    if args.rates_from_memory:
        machine.memory_rule = network.MemoryRule(32.0 if args.gpus else 64.0, 4.0, args.cache_bytes)
    preds = choose.predict_all(prof, machine, fixed=fixed, paper=args.paper_code)
    per_host = -(-P // hosts)
    rows = []
    for p in preds:
        lay = registry.get(p.partition, p.exchange)
        kw = lay.engine_kwargs(p.params)
        opts = SearchOptions(fanout=kw.get("fanout", 1), params=kw["params"])
        # a generated graph streams into the layouts that can (the peak they run in where memory is short)
        estimate = lay.estimate_stream if not args.graph and lay.estimate_stream is not None else lay.estimate_bytes
        mem = estimate(int(prof.n), tuples, P, opts, False)
        p.fits = args.memory is None or mem * per_host <= args.memory * 2 ** 30
        rows.append({**p.as_dict(), "words": p.words, "memory_per_rank": mem, "memory_per_host": mem * per_host})
    return machine, preds, rows


def sweep_ranks(ranks: int, most: int = SWEEP_POINTS) -> list:
    """The rank counts ``--plot`` prices: the powers of two below ``ranks`` (every second one, or
    sparser, where there are more than ``most``; 2 always), and ``ranks`` itself."""
    powers = [1 << j for j in range(1, ranks.bit_length()) if (1 << j) < ranks]
    step = -(-len(powers) // max(1, most - 1)) if powers else 1
    return sorted(set(powers[::step]) | {ranks})


def _sweep(args, prof, tuples, hosts, link, rates, fixed, at_ranks) -> list:
    """Each layout's fastest candidate that fits --memory at each of ``sweep_ranks``, on as many
    ranks per host as the job (``at_ranks``: the job's own predictions, not priced again).
    --grid and --torus describe the whole job, so fewer ranks are priced without them."""
    from ..distributed.planner import choose
    from ..progress import bar

    per_host = -(-args.ranks // hosts)
    anywhere = {k: v for k, v in fixed.items() if k != "grid"}      # a grid is one rank count's
    points = sweep_ranks(args.ranks)
    out = []
    with bar(len(points), "pricing rank counts", None) as progress:
        for P in points:
            if P == args.ranks:
                h, preds = hosts, at_ranks
            else:
                h = -(-P // per_host)
                preds = _price(args, prof, tuples, P, h, link, rates, anywhere, torus=False)[1]
            out.append({"ranks": P, "hosts": h,
                        "layouts": [{"layout": f"{p.partition} {p.exchange}", "label": p.label, "seconds": p.seconds,
                                     "comm_seconds": p.comm_seconds}
                                    for p in choose.best_per_layout([p for p in preds if p.fits])]})
            progress.update(1)
    return out


def _title(args, prof, hosts) -> str:
    graph = f"{args.kind} scale {args.scale}" if args.scale is not None else args.graph
    return f"breadth plan: {graph}, {-(-args.ranks // hosts)} ranks per host (projection)"


def _print(args, out, prof, hosts, lat, bw, rates, machine, best):
    unit = "GPU" if args.gpus else "core"
    print(f"projection: {prof.n:.4g} vertices, {prof.m:.4g} edges ({prof.source}), {args.ranks} ranks on {hosts} "
          f"hosts of {args.cores} cores, {lat * 1e6:g} us and {bw / 1e6:g} MB/s per host link, "
          + (f"edge rates from memory ({args.cache_bytes / 2 ** 20:g} MiB cache per rank), " if args.rates_from_memory
             else f"{rates['rate_td']:.3g}/{rates['rate_bu']:.3g} edges/s per {unit} (TD/BU), ")
          + f"{machine.memory_bandwidth / 1e9:g} GB/s memory per rank"
          + (f", staged over {args.staging_bandwidth / 1e9:g} GB/s" if args.staging_bandwidth else ""))
    g = out["graph"]
    print(f"graph: {g['degrees']}; delegates at TH={g['threshold']}: {g['delegates']:.4g} "
          f"({100 * g['delegates'] / prof.n:.3g}%), nn edge share {100 * g['nn_share']:.4g}%"
          + (f" (set: {', '.join(f'{k}={v:g}' for k, v in g['overrides'].items())})" if g["overrides"] else ""))
    draws = prof.root_draws()
    whose = (f"; from a root of the mean degree, each layout priced as the mean over {len(draws)} root-degree "
             "buckets" if draws else "")
    print("levels: " + ", ".join(f"{lv.direction[0].upper()}D {lv.frontier:.3g}/{lv.examined:.3g}"
                                 for lv in prof.levels) + f" (direction frontier/edges examined{whose})")
    print(f"{'layout':<24}{'search s':>11}{'comm s':>10}{'TEPS':>10}{'messages':>11}{'wire B':>11}{'words':>11}"
          f"{'GiB/rank':>10}")
    shown = {b.label for b in best}
    for r in out["candidates"]:
        if r["label"] in shown:
            mark = "" if r["fits"] else "  (does not fit --memory)"
            print(f"{r['label']:<24}{r['seconds']:>11.4g}{r['comm_seconds']:>10.4g}{r['teps']:>10.3g}"
                  f"{r['messages']:>11.4g}{r['bytes']:>11.4g}{r['words']:>11.4g}"
                  f"{r['memory_per_rank'] / 2 ** 30:>10.3g}{mark}")
    skipped = sum(1 for r in out["candidates"] if not r["fits"])
    if skipped:
        print(f"{skipped} of {len(out['candidates'])} candidates need more than {args.memory:g} GiB per host")
    print(f"recommendation: {out['why']}  ({len(out['candidates'])} candidates priced; --json lists them all)")


def _levels(path) -> list:
    """The levels of ``--levels FILE`` (one clear error for a file that is not such a list)."""
    import json

    from ..distributed.planner.graph import Level
    from ..errors import InputError

    keys = ("direction", "frontier", "examined", "discovered", "unvisited")
    try:
        with open(path) as f:
            got = json.load(f)
        out = [Level(str(x["direction"]), *(float(x[k]) for k in keys[1:]),
                     float(x["biased"]) if x.get("biased") is not None else None) for x in got]
    except OSError as exc:
        raise InputError(f"--levels: cannot read {path}: {exc.strerror}") from None
    except (ValueError, TypeError, KeyError) as exc:
        raise InputError(f"--levels: {path} is not a JSON list of levels with {', '.join(keys)} ({exc})") from None
    if not out or any(x.direction not in ("top-down", "bottom-up") for x in out):
        raise InputError(f"--levels: {path} needs at least one level, each top-down or bottom-up")
    if any(min(x.frontier, x.examined, x.discovered, x.unvisited, x.biased or 0.0) < 0 for x in out):
        raise InputError(f"--levels: {path} has a negative count")
    return out


def _rates(args) -> dict:
    import json
    import os

    from ..distributed.planner.calibration import cache_path

    rates = {"rate_td": 1e8, "rate_bu": 1e8}
    if os.path.exists(cache_path()) and not args.gpus:
        try:
            with open(cache_path()) as f:
                rates.update({k: v for k, v in json.load(f).items() if k in rates})
        except (OSError, ValueError):
            pass
    if args.rate_td is not None:
        rates["rate_td"] = args.rate_td
    if args.rate_bu is not None:
        rates["rate_bu"] = args.rate_bu
    return rates
