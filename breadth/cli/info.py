"""``breadth info GRAPH``: size, degrees, components, estimated diameter and memory of a graph file.

Components (weakly connected on a directed graph) and the double-sweep lower
bound on the diameter of the largest one come from ``breadth.analysis``
(``connected_components``, ``estimate_diameter``); this module adds the degree
statistics and the memory footprint, and renders the report.
"""
from __future__ import annotations

import os

import numpy as np

from .common import add_json_option, add_quiet_option, add_threads_option, set_threads, write_json
from .convert import add_read_options
from .helpformat import examples
from .ids import VertexIds, add_ids_option
from .messages import translate


def register(sub):
    p = sub.add_parser(
        "info",
        help="describe a graph file (degrees, components, diameter, memory)",
        description="Read GRAPH (any format 'breadth convert' reads) and report vertices, edges, "
                    "directedness, degree statistics with a log2-binned histogram, the number and size "
                    "of (weakly) connected components, a double-sweep diameter estimate and the "
                    "memory footprint. The diameter's endpoints are named by the graph's labels when it "
                    "has them (original ids of a relabelled file), else by internal ids (--dense-ids).",
        epilog=examples("breadth info web.npz",
                        "breadth info web.txt --relabel --samples 8 --json",
                        "breadth info huge.npz --no-components"),
    )
    p.add_argument("graph", metavar="GRAPH", help="graph file")
    add_read_options(p)
    p.add_argument("--samples", type=int, default=4, metavar="K",
                   help="double sweeps (2 BFS each) for the diameter estimate; 0 skips it")
    p.add_argument("--seed", type=int, default=1, help="seed choosing the sweep start vertices")
    p.add_argument("--no-components", action="store_true",
                   help="skip the component count (and the diameter estimate, which starts in the largest)")
    add_ids_option(p)
    add_json_option(p, "the report")
    add_quiet_option(p)
    add_threads_option(p)
    p.set_defaults(run=run)


# ---------------------------------------------------------------- statistics
def log2_histogram(deg: np.ndarray) -> list[dict]:
    """Counts of degrees in the bins [0], [1], [2, 3], [4, 7], ... (empty bins included)."""
    if deg.size == 0:
        return []
    deg = np.asarray(deg, dtype=np.int64)
    bins = np.zeros(deg.size, dtype=np.int64)
    pos = deg > 0
    bins[pos] = np.floor(np.log2(deg[pos])).astype(np.int64) + 1
    counts = np.bincount(bins)
    out = []
    for b, c in enumerate(counts):
        lo, hi = (0, 0) if b == 0 else (1 << (b - 1), (1 << b) - 1)
        out.append({"lo": lo, "hi": hi, "count": int(c)})
    return out


def degree_stats(deg: np.ndarray) -> dict:
    if deg.size == 0:
        return {"min": 0, "mean": 0.0, "max": 0, "zero": 0, "histogram": []}
    return {"min": int(deg.min()), "mean": float(deg.mean()), "max": int(deg.max()),
            "zero": int(np.count_nonzero(deg == 0)), "histogram": log2_histogram(deg)}


def memory_report(graph, file_bytes: int) -> dict:
    from ..graph.memory import bfs_bytes

    edges = max(graph.num_edges, 1)
    return {"csr_bytes": int(graph.nbytes), "bytes_per_edge": graph.nbytes / edges,
            "file_bytes": int(file_bytes), "bfs_working_bytes": int(bfs_bytes(graph.num_vertices)),
            "neighbour_id_bytes": int(graph.indices.dtype.itemsize)}


# ---------------------------------------------------------------- output
def _mb(b) -> str:
    return f"{b / 1e6:,.1f} MB"


def _hist_lines(hist) -> list[str]:
    if not hist:
        return []
    top = max(h["count"] for h in hist) or 1
    lines = []
    for h in hist:
        label = str(h["lo"]) if h["lo"] == h["hi"] else f"{h['lo']}-{h['hi']}"
        bar = "#" * (int(round(40 * h["count"] / top)) if h["count"] else 0)
        lines.append(f"    {label:>17} {h['count']:>13,} {bar}")
    return lines


def _deg_line(name, d) -> str:
    return (f"{name:<13}min {d['min']:,}, mean {d['mean']:.2f}, max {d['max']:,}; "
            f"{d['zero']:,} vertices with degree 0")


def labels_report(graph) -> dict:
    """What the vertices are called: none (ids 0..n-1), integer original ids, or string labels."""
    ids = graph.vertex_ids
    if ids is None:
        return {"kind": "none"}
    if ids.dtype == object:
        return {"kind": "string", "first": ids[:3].tolist()}
    return {"kind": "integer", "min": int(ids.min()), "max": int(ids.max())} if ids.size else {"kind": "integer"}


def _labels_line(lab: dict) -> str:
    if lab["kind"] == "none":
        return "none (vertices are 0..n-1)"
    if lab["kind"] == "string":
        return "strings (" + ", ".join(map(repr, lab["first"])) + ", ...); commands take and write them"
    span = f", {lab['min']} to {lab['max']}" if "min" in lab else ""
    return f"original ids{span}; commands take and write them (--dense-ids: 0..n-1)"


def render(report: dict) -> str:
    g, r = report["graph"], report["read"]
    kind = "directed" if g["directed"] else "undirected"
    lines = [f"{'graph':<13}{r['path']} [{r['format']}, {_mb(r['file_bytes'])}]",
             f"{'vertices':<13}{g['vertices']:,}" + ("  (ids relabelled densely)" if r["relabelled"] else ""),
             f"{'labels':<13}{_labels_line(g['labels'])}",
             f"{'edges':<13}{g['edges']:,} ({kind}; {g['arcs']:,} stored arcs)",
             f"{'read':<13}" + (f"{r['seconds']:.2f} s, memory-mapped (no parsing)" if r["memory_mapped"] else
                                f"{r['seconds']:.2f} s, {r['mb_per_s']:.1f} MB/s; {r['self_loops']:,} self-loops "
                                f"and {r['duplicates']:,} duplicates removed")]
    for key, name in (("degree", "degree"), ("out_degree", "out-degree"), ("in_degree", "in-degree")):
        if key in report:
            lines.append(_deg_line(name, report[key]))
            lines.append(f"  {name} histogram (log2 bins):")
            lines += _hist_lines(report[key]["histogram"])
    c = report.get("components")
    if c is not None:
        weak = " weakly connected" if g["directed"] else ""
        lines.append(f"{'components':<13}{c['count']:,}{weak}; largest {c['largest']:,} vertices "
                     f"({100 * c['largest_fraction']:.1f}%); {c['singletons']:,} isolated")
    dia = report.get("diameter")
    if dia is not None and dia["lower_bound"] is not None:
        follow = ", following out-edges" if g["directed"] else ""
        u, v = (repr(x) if isinstance(x, str) else str(x) for x in dia["endpoints"])
        lines.append(f"{'diameter':<13}>= {dia['lower_bound']}, from {u} to {v} (double sweep, {dia['bfs_runs']} "
                     f"BFS in the largest component{follow})")
    m = report["memory"]
    lines.append(f"{'memory':<13}CSR {_mb(m['csr_bytes'])} ({m['bytes_per_edge']:.1f} bytes/edge, "
                 f"{m['neighbour_id_bytes']}-byte ids); BFS working set {_mb(m['bfs_working_bytes'])}")
    for note in report["notes"]:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def run(args) -> int:
    from ..analysis import connected_components, estimate_diameter
    from ..errors import InputError
    from ..graph.io import read_with_stats

    set_threads(args.threads)
    if args.samples < 0:
        raise InputError(f"--samples must be >= 0, got {args.samples}")
    graph, stats = read_with_stats(args.graph, format=args.informat, directed=args.directed,
                                   relabel=args.relabel, num_vertices=args.vertices,
                                   header=args.header, allow_empty=args.allow_empty)
    read = dict(stats.as_dict(), notes=[translate(note) for note in stats.notes])
    read["path"] = os.fspath(args.graph)
    ids = VertexIds(graph, args.dense_ids, args.graph)
    report = {"graph": {"vertices": graph.num_vertices, "edges": graph.num_edges, "arcs": graph.num_arcs,
                        "directed": graph.directed, "labels": labels_report(graph),
                        "ids": "labels" if ids.labelled else "dense"},
              "read": read, "notes": [translate(note) for note in stats.notes]}
    if graph.directed:
        report["out_degree"] = degree_stats(graph.out_degree())
        report["in_degree"] = degree_stats(graph.in_degree())
    else:
        report["degree"] = degree_stats(graph.degree())
    if not args.no_components:
        comps = connected_components(graph)
        report["components"] = comps.summary()
        report["diameter"] = estimate_diameter(graph, args.samples, args.seed, comps).summary()
        if report["diameter"].get("endpoints"):
            report["diameter"]["endpoints"] = ids.json(report["diameter"]["endpoints"])
    report["memory"] = memory_report(graph, stats.file_bytes)
    if args.json:
        write_json(args.json, report)
    if args.json != "-":
        print(render(report))
    return 0
