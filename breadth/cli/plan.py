"""``breadth plan``: each distributed layout's predicted search time, TEPS, communication and memory
per rank for a graph and a cluster, and the recommendation (projections from the planner's
alpha-beta models, ``breadth.distributed.planner``)."""
from __future__ import annotations

from .common import write_json


def register(sub):
    from ..distributed.planner.network import PRESETS
    from .helpformat import examples

    p = sub.add_parser("plan", help="predict every distributed layout's time on a cluster (projections)",
                       description=__doc__,
                       epilog=examples("breadth plan --scale 30 --ranks 1024 --hosts 64 --network infiniband",
                                       "breadth plan --scale 20 --ranks 16 --hosts 4 --network 1gbe --json -",
                                       "breadth plan --graph g.npz --ranks 8 --hosts 2 --latency 5e-5 "
                                       "--bandwidth 1e9"))
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
    p.add_argument("--rate-td", type=float, default=None, help="top-down edges/s of one core (left out: this "
                   "machine's cached calibration, else 1e8)")
    p.add_argument("--rate-bu", type=float, default=None, help="bottom-up edges/s of one core (likewise)")
    p.add_argument("--json", metavar="FILE", default=None, help="write the predictions as JSON ('-': stdout)")
    p.set_defaults(run=run)


def run(args) -> int:
    from ..distributed import registry
    from ..distributed.planner import choose, graph, network
    from ..distributed.search_base import SearchOptions
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
    machine = network.assumed(args.ranks, hosts, args.cores, lat, bw, rates["rate_td"], rates["rate_bu"])
    preds = choose.best_per_layout(choose.predict_all(prof, machine))
    rows = []
    for p in preds:
        lay = registry.get(p.partition, p.exchange)
        kw = lay.engine_kwargs(p.params)
        opts = SearchOptions(fanout=kw.get("fanout", 1), params=kw["params"])
        # a generated graph streams into the layouts that can (the peak they run in where memory is short)
        estimate = lay.estimate_stream if not args.graph and lay.estimate_stream is not None else lay.estimate_bytes
        mem = estimate(int(prof.n), tuples, args.ranks, opts, False)
        rows.append({**p.as_dict(), "memory_per_rank": mem})
    out = {"projection": True, "graph": {"n": prof.n, "m": prof.m, "profile": prof.source,
                                         "levels": len(prof.levels)},
           "ranks": args.ranks, "hosts": hosts, "cores_per_host": args.cores, "latency": lat, "bandwidth": bw,
           "rate_td": rates["rate_td"], "rate_bu": rates["rate_bu"], "layouts": rows,
           "recommendation": preds[0].label, "why": choose.why(preds)}
    if args.json == "-":
        write_json("-", out)
        return 0
    print(f"projection: {prof.n:.4g} vertices, {prof.m:.4g} edges ({prof.source}), {args.ranks} ranks on {hosts} "
          f"hosts of {args.cores} cores, {lat * 1e6:g} us and {bw / 1e6:g} MB/s per host link, "
          f"{rates['rate_td']:.3g}/{rates['rate_bu']:.3g} edges/s per core (TD/BU)")
    print(f"{'layout':<22}{'search s':>11}{'comm s':>10}{'TEPS':>10}{'messages':>11}{'bytes':>11}{'GiB/rank':>10}")
    for r in rows:
        print(f"{r['label']:<22}{r['seconds']:>11.4g}{r['comm_seconds']:>10.4g}{r['teps']:>10.3g}"
              f"{r['messages']:>11.4g}{r['bytes']:>11.4g}{r['memory_per_rank'] / 2 ** 30:>10.3g}")
    print(f"recommendation: {out['why']}")
    if args.json:
        write_json(args.json, out)
    return 0


def _rates(args) -> dict:
    import json
    import os

    from ..distributed.planner.probe import cache_path

    rates = {"rate_td": 1e8, "rate_bu": 1e8}
    if os.path.exists(cache_path()):
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
