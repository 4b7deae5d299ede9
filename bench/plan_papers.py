"""``breadth plan`` against the papers: published distributed runs of B2D, Pan et al., MapGraph and
ButterFly priced with machine parameters from each paper's hardware description, prediction beside
the published time, and whether the paper's qualitative conclusion comes out of the model.

Every machine number below is the paper's (quoted in ``SOURCE``) or, where the paper names a part
but not the figure, the part's datasheet figure (marked "datasheet"); a few are assumptions
(marked "assumed"). None is fitted to a published time. Edge rates come from memory bandwidth by
one rule for every row (``network.MemoryRule``): an edge examined reads the neighbour's 4-byte id
and makes one random access -- a 64-byte cache line on a CPU, a 32-byte sector on a GPU -- unless
the rank's last-level cache holds the neighbour's state (the hottest vertices' share of edge
endpoints, from the degree model). MapGraph's rows take the device rate its paper measured for its
own code on one GPU (Table 2) instead.

    .venv/bin/python bench/plan_papers.py                 # the table (markdown) on stdout
    .venv/bin/python bench/plan_papers.py --json rows.json

The docs page ``docs/design/plan-vs-papers.md`` shows this table; ``tests/distributed/planner/
test_plan_papers.py`` checks every row stays within its stated bound.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
from dataclasses import dataclass, field

ACCESS_BYTES = {"cpu": 64.0, "gpu": 32.0}    # a random access: a CPU cache line, a GPU memory sector
# MapGraph Table 2, 1 GPU: "21 ... 67,108,864 [directed edges] ... 0.0254 [s]" -- its own code on one
# K20 (no communication), every edge traversed top-down
MAPGRAPH_ONE_GPU = 67108864 / 0.0254
# Pan et al. Table II, "our hw." 1x1x1 Tesla P100 at scale 24: 22.9 GTEPS -- their own code on one
# GPU (no communication): 16 x 2^24 Graph500 edges in 11.7 ms, the seconds over which the model's
# count of the edges that code examines in such a search are spread (``pan_one_gpu``)
PAN_ONE_GPU_SCALE, PAN_ONE_GPU_GTEPS = 24, 22.9


def pan_one_gpu(threshold=64) -> float:
    """Edges/s of one P100 running Pan's code: the edges the delegates layout's model examines in a
    scale-24 search on one rank (its levels, ``choose.level_edges``; the mean over the roots a
    Graph500 draw gives, ``Profile.root_draws``) over the search's published time on one GPU
    (Table II)."""
    from breadth.distributed import registry
    from breadth.distributed.planner import choose, graph

    prof = graph.generated("kronecker", PAN_ONE_GPU_SCALE, 16)
    cost = registry.get("delegates", "alltoall").cost
    params = {"threshold": threshold, "code": "paper"}
    edges = sum(w * sum(sum(choose.level_edges(cost, p, lv, 1, params)) for lv in p.levels)
                for w, p in prof.root_draws() or [(1.0, prof)])
    return edges / (16 * 2 ** PAN_ONE_GPU_SCALE / (PAN_ONE_GPU_GTEPS * 1e9))


@dataclass
class Row:
    paper: str
    config: str
    kind: str                # graph kind: kronecker / uniform
    scale: int
    edgefactor: int
    ranks: int
    hosts: int
    cores: int
    latency: float
    bandwidth: float         # bytes/s per host link
    memory_bandwidth: float  # bytes/s per rank
    device: str
    layout: tuple            # (partition, exchange)
    params: dict
    published: float         # seconds per search
    source: str              # where the published time and the machine numbers come from
    staging: float | None = None
    torus: tuple = ()        # router torus dimensions (``Machine.torus``), with ``torus_link`` bytes/s per link
    torus_link: float = 0.0
    cache: float = 0.0       # bytes of last-level cache per rank (``network.MemoryRule``)
    state: float = 4.0       # bytes of a vertex's state in the paper's code
    device_rate: float | None = None   # edges/s of one device as the paper measured its own code on
    #                                    one device (in place of the memory rule); None: the rule
    bound: float = 2.0       # the stated bound on predicted / published, either way: the target is 2;
    #                          where the model misses it the bound is what it achieves now (docs page)
    note: str = ""
    # the graph's numbers where the paper states them and the degree model differs (``Profile.overrides``:
    # "nn_share", "delegate_fraction"), with the delegates' threshold fixed at the row's in its conclusion
    graph: dict = field(default_factory=dict)


def rows() -> list:
    gemini = dict(latency=1.5e-6, bandwidth=6e9)          # Cray Gemini, datasheet (not in B2D)
    p100 = pan_one_gpu()
    return [
        Row("B2D", "Hopper, scale 35, 115,600 ranks (340x340), flat MPI", "kronecker", 35, 16, 115600, 4817, 24,
            memory_bandwidth=42.7e9 / 12, device="cpu", layout=("2d", "fold"), params={"grid": "340x340"},
            published=16 * 2 ** 35 / 243e9, bound=3.0, torus=(17, 8, 24), torus_link=4.68e9,
            cache=12e6 / 12, state=8.0,
            source="Sec. VIII: 'it reaches 243 GTEPS at scale=35' (Fig. 3: 3600 processors at scale 30, doubling "
                   "per scale; square grids only); Table II: Cray XE6, 2 sockets x 12 cores, Gemini; Opteron 6172 "
                   "4 x DDR3-1333 = 42.7 GB/s per socket (datasheet); Table II: 'L3 Cache/socket 2x6 MB' for 12 "
                   "cores; CombBLAS 64-bit ids (Sec. V: 'we use 64-bit identifiers'); Hopper's Gemini torus "
                   "17x8x24 routers, 2 nodes each, links 4.68 GB/s each way (assumed: Cray's figures, not in the "
                   "paper)", **gemini,
            note="no term for the blocking sub-steps' load imbalance (Sec. VIII names it, gives no figure)"),
        Row("B2D", "Jaguar, Twitter-sized graph, 1,444 ranks (38x38)", "kronecker", 26, 24, 1444, 91, 16,
            memory_bandwidth=51.2e9 / 16, device="cpu", layout=("2d", "fold"), params={"grid": "38x38"},
            published=0.08, bound=25.0, cache=16e6 / 16, state=8.0,
            source="Sec. VIII: 'the direction-optimizing approach already takes only 0.08 seconds to do a full "
                   "BFS on this graph with 1440 cores'; Table II: Cray XK6, 1 x 16 cores, Gemini; Opteron 6274 "
                   "4 x DDR3-1600 = 51.2 GB/s (datasheet); Table II: 'L3 Cache/socket 2x8 MB' for 16 cores; "
                   "no torus term: 91 nodes of a shared machine, placement unknown", **gemini,
            note="the Twitter graph (61.5M vertices, 1.47B edges) replaced by a Kronecker graph of its size"),
        Row("Pan", "scale 33, 124 GPUs on 31 nodes, TH=128 (1.75% delegates, 6.3% nn edges)", "kronecker", 33, 16,
            124, 31, 20,
            latency=2e-6, bandwidth=2 * 12.5e9, memory_bandwidth=732e9, device="gpu",
            layout=("delegates", "alltoall"), params={"threshold": 128}, staging=40e9, device_rate=p100,
            published=16 * 2 ** 33 / 259.8e9, bound=2.0, cache=4 * 2 ** 20, graph={"nn_share": 0.063},
            note="the graph as Sec. VI-B states it at scale 33; at TH=64 with the degree model's nn share (0.50%) "
                 "the row comes out at 0.46",
            source="Sec. VI-C: '259.8 GTEPS for RMAT scale 33 on 124 GPUs'; Sec. VI-B: 'at scale 33, the delegate "
                   "percentage is 1.75% ... The nn edge percentages increases slightly, to 6.3% at scale 33' (the "
                   "degree model puts 1.76% of the vertices above TH = 128, and 1.9% of the edges between normals); "
                   "Sec. VI-A: two P100 per CPU on NVLink '40 GB/s bandwidth in each direction', 'Each socket has a "
                   "EDR 100 Gbps InfiniBand connection', data copied GPU to CPU before MPI; Table II: their code on "
                   "one P100 at scale 24, 22.9 GTEPS (the device's edge rate, pan_one_gpu); P100 732 GB/s, 4 MB L2 "
                   "(datasheet); latency 2 us (assumed)"),
        Row("Pan", "scale 29, 8 GPUs on 2 nodes, TH=64", "kronecker", 29, 16, 8, 2, 20,
            latency=2e-6, bandwidth=2 * 12.5e9, memory_bandwidth=732e9, device="gpu",
            layout=("delegates", "alltoall"), params={"threshold": 64}, staging=40e9, device_rate=p100,
            published=16 * 2 ** 29 / 53.13e9, bound=2.0, cache=4 * 2 ** 20,
            source="Table II: 2x1x4 Tesla P100, 53.13 GTEPS at scale 29; machine as above"),
        Row("MapGraph", "scale 25, 16 GPUs (4x4)", "kronecker", 25, 16, 16, 16, 8,
            latency=2e-6, bandwidth=7e9, memory_bandwidth=208e9, device="gpu", layout=("2d", "scan"),
            params={"grid": "4x4"}, published=0.075, bound=3.0, cache=1280 * 1024, device_rate=MAPGRAPH_ONE_GPU,
            source="Table 1: 16 GPUs, 0.075 s; Sec. 4.1: K20 'peak memory bandwidth of 208 GB/sec', InfiniBand "
                   "'56Gb/s', GPUDirect 'eliminating copying of data between the GPU and the CPU', a port paired "
                   "with each GPU; device rate: Table 2's 1 GPU, 67,108,864 edges in 0.0254 s; latency 2 us "
                   "(assumed)"),
        Row("MapGraph", "scale 25, 64 GPUs (8x8)", "kronecker", 25, 16, 64, 64, 8,
            latency=2e-6, bandwidth=7e9, memory_bandwidth=208e9, device="gpu", layout=("2d", "scan"),
            params={"grid": "8x8"}, published=0.047, bound=5.0, cache=1280 * 1024, device_rate=MAPGRAPH_ONE_GPU,
            source="Table 1: 64 GPUs, 0.047 s; machine as above"),
        Row("MapGraph", "scale 27, 64 GPUs (8x8)", "kronecker", 27, 16, 64, 64, 8,
            latency=2e-6, bandwidth=7e9, memory_bandwidth=208e9, device="gpu", layout=("2d", "scan"),
            params={"grid": "8x8"}, published=0.1478, bound=4.0, cache=1280 * 1024, device_rate=MAPGRAPH_ONE_GPU,
            source="Table 2: 64 GPUs, scale 27, 0.1478 s; machine as above"),
        Row("ButterFly", "GAP_kron (scale 27), DGX-2, 16 V100, f=4", "kronecker", 27, 16, 16, 16, 3,
            latency=5e-6, bandwidth=150e9, memory_bandwidth=900e9, device="gpu", layout=("1d", "butterfly"),
            params={"fanout": 4}, published=4223.2e6 / 324.87e9, bound=2.0, cache=6 * 2 ** 20,
            source="Table 1: GAP_kron 324.87 GTEPS on 4,223.2M edges; Table 2: V100 HBM2 900 GB/s; Sec. 4: "
                   "'a GPU can send and receive 150GB/s concurrently', fanouts 1 and 4; V100 6 MB L2 "
                   "(datasheet); latency 5 us (assumed)"),
        Row("ButterFly", "GAP_urand (scale 27), DGX-2, 16 V100, f=4", "uniform", 27, 16, 16, 16, 3,
            latency=5e-6, bandwidth=150e9, memory_bandwidth=900e9, device="gpu", layout=("1d", "butterfly"),
            params={"fanout": 4}, published=4223.2e6 / 21.13e9, bound=6.0, cache=6 * 2 ** 20,
            source="Table 1: GAP_urand 21.13 GTEPS on 4,223.2M edges; machine as above"),
    ]


def machine_for(row):
    from breadth.distributed.planner import network

    rule = network.MemoryRule(ACCESS_BYTES[row.device], 4.0, row.cache, row.state)
    rate = rule.rate(row.memory_bandwidth, 0.0)
    m = network.assumed(row.ranks, row.hosts, row.cores, row.latency, row.bandwidth, rate, rate,
                        threads=1, memory_bandwidth=row.memory_bandwidth)
    m.memory_rule = rule if row.device_rate is None else None
    if row.device_rate is not None:
        m.rate_td = m.rate_bu = row.device_rate
    m.device = row.device
    m.staging_bandwidth = row.staging
    m.torus, m.torus_link = row.torus, row.torus_link
    return m


def price(row, profiles=None) -> dict:
    """The row's prediction (the paper's code: ``--paper-code``) and its qualitative check."""
    from breadth.distributed import registry
    from breadth.distributed.planner import choose, graph

    key = (row.kind, row.scale, row.edgefactor)
    profiles = {} if profiles is None else profiles
    if key not in profiles:
        profiles[key] = graph.generated(row.kind, row.scale, row.edgefactor)
    prof = profiles[key]
    if row.graph:
        prof = copy.copy(prof)
        prof.overrides = {**prof.overrides, **row.graph}
    machine = machine_for(row)
    lay = registry.get(*row.layout)
    params = {**row.params, "code": "paper"}
    pred = choose.expected(lay, prof, machine, params)
    ratio = float(pred.seconds / row.published)
    out = {"paper": row.paper, "config": row.config, "layout": pred.label, "published_s": row.published,
           "predicted_s": float(pred.seconds), "ratio": ratio, "comm_share": float(pred.comm_seconds / pred.seconds),
           "bound": row.bound, "within_bound": 1 / row.bound <= ratio <= row.bound,
           "within_2x": 0.5 <= ratio <= 2.0, "source": row.source, "note": row.note}
    out["conclusion"] = conclusion(row, prof, machine, pred)
    return out


def conclusion(row, prof, machine, pred) -> str:
    """Each paper's qualitative claim, checked on the model."""
    from breadth.distributed import registry
    from breadth.distributed.planner import choose
    from breadth.distributed.planner.graph import Profile

    if row.paper == "B2D":       # Sec. VIII: direction-optimizing 6.5-7.9x faster than top-down (same 2D code)
        td = Profile(prof.n, prof.m, prof.levels_for("top-down"), prof.skew, prof.source, prof.degrees)
        slow = choose.expected(registry.get(*row.layout), td, machine, row.params)
        r = slow.seconds / pred.seconds
        return f"DO over top-down {r:.1f}x (paper 6.5-7.9x): " + ("reproduced" if r >= 3 else "not reproduced")
    if row.paper == "Pan":       # their degree separation beats 1D and 2D layouts on the same GPUs
        # a stated graph holds at the row's threshold only, so the delegates are priced there
        fixed = {"threshold": row.params["threshold"]} if row.graph else None
        preds = choose.best_per_layout(choose.predict_all(prof, machine, fixed=fixed, paper=True))
        first = preds[0].partition
        return f"fastest layout: {preds[0].label} (" + ("reproduced" if first == "delegates" else "not reproduced") + ")"
    if row.paper == "MapGraph":  # Table 1: strong scaling, 16 -> 64 GPUs faster (0.075 -> 0.047 s)
        if row.ranks != 64 or row.scale != 25:
            return ""
        small = Row(**{**row.__dict__, "ranks": 16, "hosts": 16, "params": {"grid": "4x4"}})
        t16 = choose.expected(registry.get(*row.layout), prof, machine_for(small), {"grid": "4x4", "code": "paper"})
        r = t16.seconds / pred.seconds
        return f"16 -> 64 GPUs {r:.2f}x faster (paper 1.60x): " + ("reproduced" if r > 1 else "not reproduced")
    if row.paper == "ButterFly":  # Sec. 4: fanout 4 faster than fanout 1
        f1 = choose.expected(registry.get(*row.layout), prof, machine, {"fanout": 1, "code": "paper"})
        r = f1.seconds / pred.seconds
        return f"f=4 over f=1 {r:.2f}x (paper: f=4 faster): " + ("reproduced" if r > 1 else "not reproduced")
    return ""


def markdown(results) -> str:
    lines = ["| paper | configuration | layout (paper code) | published s | predicted s | predicted / published "
             "| within 2x | qualitative conclusion |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['paper']} | {r['config']} | {r['layout']} | {r['published_s']:.4g} | "
                     f"{r['predicted_s']:.4g} | {r['ratio']:.2f} | {'yes' if r['within_2x'] else 'no'} | "
                     f"{r['conclusion']} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", metavar="FILE", default=None, help="also write the rows as JSON")
    args = ap.parse_args(argv)
    profiles = {}
    results = [price(r, profiles) for r in rows()]
    print(markdown(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
