"""The benchmark phase of bench/gpu_check.py: breadth's GPU search against its CPU search, in one process.

For each graph (``kind:scale``; Kronecker and uniform random, edge factor 16), budget
permitting: build it, upload it (``DeviceGraph``; the upload time), pick roots with
out-edges, and time from each root the CPU direction-optimizing search on all of this
machine's cores (``breadth.bfs``) and the GPU top-down (LRB), bottom-up and
direction-optimizing searches (``breadth.bfs(..., device="cuda")``, host results, and
``to_host=False``, device results: row "gpu do device-results"; each root's device-results
search also with every kernel launched through numba-cuda, interleaved: row "gpu do
device-results, numba-cuda launches", whose ``launcher_speedup`` is what breadth's launcher
saves) on the uploaded graph; for the root of median time, the levels of its
direction-optimizing search beside its top-down-only and bottom-up-only ones and the CPU's. A GPU search's
time is split into the traversal (the sum of its levels: the kernels and the one
counter copy each level costs) and the rest of the call (seeds up, parent and depth
down, the host's bookkeeping). Then one iBFS group of 64 sources
(``gpu.ibfs.traverse``, W = 1) against the same 64 sources searched one by one on the
GPU, and ``multi_bfs(..., device="cuda")`` against the CPU's ``multi_bfs`` on them.

First the fixed costs every level pays, whatever the graph (record "launch"): the host's
time to launch a kernel through numba-cuda with 1 and with 14 array arguments (launches
queued back to back, then one synchronisation), and a synchronised copy of one counter
row's head to the host (what each level reads).

TEPS follow bench/gpu_bfs.py: the undirected edges of the searched component over the
time; per graph and algorithm the harmonic mean over roots (as Graph500 reports) and
the median time. Before each graph the phase predicts its time from the last graph of
the same kind (4x per two scales) and skips it when the deadline would pass.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

from gpu_bfs import component_edges
from gpu_check_graphs import error_text, make_graph, pick_roots

GRAPHS = {
    True: ["kronecker:5", "uniform:5"],
    False: ["kronecker:20", "kronecker:22", "kronecker:24", "uniform:20", "uniform:22", "uniform:24"],
}
ROOTS = {True: 1, False: 8}
GROUP = {True: 4, False: 64}
ALGORITHMS = ("td", "bu", "do")


def sig(x: float, digits: int = 4) -> float:
    """``x`` to ``digits`` significant digits (simulator rates are tiny, a GPU's large)."""
    return float(f"{x:.{digits}g}")


def summary(times, edges) -> dict:
    """Median ms and harmonic-mean GTEPS of per-root times and component edges."""
    times, edges = np.asarray(times, dtype=float), np.asarray(edges, dtype=float)
    keep = (times > 0) & (edges > 0)
    hm = keep.sum() / np.sum(times[keep] / edges[keep]) if keep.any() else 0.0
    return {"median_ms": sig(1e3 * statistics.median(times)), "gteps": sig(hm / 1e9)}


def level_rows(gpu, td, bu, cpu) -> list:
    """Level by level, a GPU search (device results) beside the GPU's top-down-only and
    bottom-up-only searches and the CPU search from the same root: [level, frontier, edges
    examined (GPU), GPU direction, GPU ms, top-down ms, bottom-up ms, CPU direction, CPU ms]."""
    def ms(levels, i):
        return sig(1e3 * levels[i].seconds) if i < len(levels) else ""

    return [[lv.level, lv.frontier, lv.edges_examined, lv.direction, ms(gpu, i), ms(td, i), ms(bu, i),
             cpu[i].direction if i < len(cpu) else "", ms(cpu, i)] for i, lv in enumerate(gpu)]


def bench_graph(rec, sim: bool, spec: str, compiled: set) -> float:
    """Measure one graph; returns the seconds it took, less the estimated first compilation of kernels."""
    import breadth
    from breadth.checks import check_algorithm
    from breadth.gpu import DeviceGraph, device, launcher
    from breadth.gpu.ibfs import traverse
    from breadth.kernels.policy import ALPHA, BETA

    cuda = device.require_cuda()
    start = time.perf_counter()
    g = make_graph(spec)
    gen_s = time.perf_counter() - start
    t0 = time.perf_counter()
    dg = DeviceGraph(g)
    cuda.synchronize()
    upload_s = time.perf_counter() - t0
    info = {"graph": spec, "vertices": g.num_vertices, "arcs": g.num_arcs, "generate_s": round(gen_s, 3),
            "upload_s": sig(upload_s), "graph_gib": round(dg.nbytes / 2**30, 3),
            "upload_gib_per_s": round(dg.nbytes / 2**30 / upload_s, 2) if upload_s > 0 else None,
            "threads": __import__("numba").get_num_threads()}
    roots = pick_roots(g, ROOTS[sim], 11)
    cpu_t, edges, refs, cpu_levels = [], [], {}, {}
    breadth.bfs(g, roots[0], "do")                     # compile (or load) the CPU kernels before timing
    for r in roots:
        t0 = time.perf_counter()
        res = breadth.bfs(g, r, "do")
        cpu_t.append(time.perf_counter() - t0)
        refs[r] = res.depth
        cpu_levels[r] = list(res.levels)
        edges.append(component_edges(g, res.depth))
    rows = {"cpu do": summary(cpu_t, edges)}
    alg_levels = {}
    for algorithm in ALGORITHMS:
        t0 = time.perf_counter()
        breadth.bfs(dg, roots[0], algorithm, device="cuda")      # the first call compiles this algorithm's kernels
        first = time.perf_counter() - t0
        wall, trav, mismatched = [], [], 0
        for r in roots:
            t0 = time.perf_counter()
            res = breadth.bfs(dg, r, algorithm, device="cuda")
            wall.append(time.perf_counter() - t0)
            alg_levels[algorithm, r] = list(res.levels)
            trav.append(sum(lv.seconds for lv in res.levels))
            mismatched += not np.array_equal(res.depth, refs[r])
        row = summary(wall, edges)
        kernels = summary(trav, edges)
        row.update(traversal_median_ms=kernels["median_ms"], traversal_gteps=kernels["gteps"],
                   transfers_median_ms=sig(row["median_ms"] - kernels["median_ms"]),
                   first_call_s=round(first, 3), depth_mismatches=mismatched,
                   speedup_vs_cpu=sig(row["gteps"] / rows["cpu do"]["gteps"], 3) if rows["cpu do"]["gteps"] else None)
        if algorithm not in compiled:
            row["compile_s_estimate"] = round(first - row["median_ms"] / 1e3, 3)
            compiled.add(algorithm)
        rows[f"gpu {algorithm}"] = row
    # the whole call with parent/depth left on the device; each root also with every kernel
    # launched through numba-cuda (launcher.through_numba), interleaved
    wall, mismatched, gpu_levels, numba_wall, numba_mismatched = [], 0, [], [], 0
    for r in roots:
        t0 = time.perf_counter()
        res = breadth.bfs(dg, r, "do", device="cuda", to_host=False)
        wall.append(time.perf_counter() - t0)
        gpu_levels.append(list(res.levels))
        mismatched += not np.array_equal(res.to_host().depth, refs[r])
        del res
        with launcher.through_numba():
            t0 = time.perf_counter()
            res = breadth.bfs(dg, r, "do", device="cuda", to_host=False)
            numba_wall.append(time.perf_counter() - t0)
        numba_mismatched += not np.array_equal(res.to_host().depth, refs[r])
    row = summary(wall, edges)
    row.update(depth_mismatches=mismatched, speedup_vs_host_results=sig(rows["gpu do"]["median_ms"] / row["median_ms"], 3)
               if row["median_ms"] else None,
               speedup_vs_cpu=sig(row["gteps"] / rows["cpu do"]["gteps"], 3) if rows["cpu do"]["gteps"] else None)
    rows["gpu do device-results"] = row
    slow = summary(numba_wall, edges)
    slow.update(depth_mismatches=numba_mismatched,
                launcher_speedup=sig(slow["median_ms"] / row["median_ms"], 3) if row["median_ms"] else None,
                speedup_vs_cpu=sig(slow["gteps"] / rows["cpu do"]["gteps"], 3) if rows["cpu do"]["gteps"] else None)
    rows["gpu do device-results, numba-cuda launches"] = slow
    from breadth.gpu.validate import validate_device

    t0 = time.perf_counter()                  # the last device result's tree: on the device, and copied back
    validate_device(dg, res.roots, res.parent, res.depth)
    row["validate_device_s"] = sig(time.perf_counter() - t0)
    t0 = time.perf_counter()
    host = res.to_host()
    breadth.validate(g, host.roots, host.parent, host.depth)
    row["validate_host_s"] = sig(time.perf_counter() - t0)
    compile_s = sum(row.get("compile_s_estimate", 0.0) for row in rows.values())
    ok = all(row.get("depth_mismatches", 0) == 0 for row in rows.values())
    mid = int(np.argsort(wall)[len(wall) // 2])
    rec.emit(kind="graph", ok=ok, **info, roots=len(roots), edges_median=int(statistics.median(edges)), rows=rows,
             levels=level_rows(gpu_levels[mid], alg_levels["td", roots[mid]], alg_levels["bu", roots[mid]],
                               cpu_levels[roots[mid]]), levels_root=int(roots[mid]))

    # iBFS: one group of 64 sources against the same sources one by one on the GPU
    cand = np.flatnonzero(np.diff(g.indptr) > 0)
    sources = np.random.default_rng(5).choice(cand, size=min(GROUP[sim], cand.size), replace=False)
    mode = check_algorithm("do")
    traverse(dg, sources, 1, mode, ALPHA, BETA)
    t0 = time.perf_counter()
    traverse(dg, sources, 1, mode, ALPHA, BETA)
    ibfs_s = time.perf_counter() - t0
    one_wall, one_trav, one_edges = 0.0, 0.0, 0
    for s in sources:
        t0 = time.perf_counter()
        res = breadth.bfs(dg, int(s), "do", device="cuda")
        one_wall += time.perf_counter() - t0
        one_trav += sum(lv.seconds for lv in res.levels)
        one_edges += component_edges(g, res.depth)
    ibfs = {"sources": int(sources.size), "ibfs_ms": round(1e3 * ibfs_s, 3),
            "ibfs_gteps": sig(one_edges / ibfs_s / 1e9) if ibfs_s else None,
            "one_by_one_ms": round(1e3 * one_wall, 3), "one_by_one_traversal_ms": round(1e3 * one_trav, 3),
            "speedup_vs_one_by_one": round(one_wall / ibfs_s, 3) if ibfs_s else None,
            "speedup_vs_one_by_one_traversal": round(one_trav / ibfs_s, 3) if ibfs_s else None}
    if time.time() < rec.deadline:
        breadth.multi_bfs(g, sources[:2], device="cuda")        # compile the group kernels' other variants
        t0 = time.perf_counter()
        got = breadth.multi_bfs(g, sources, device="cuda")
        ibfs["multi_bfs_gpu_ms"] = round(1e3 * (time.perf_counter() - t0), 3)
        t0 = time.perf_counter()
        want = breadth.multi_bfs(g, sources)
        ibfs["multi_bfs_cpu_ms"] = round(1e3 * (time.perf_counter() - t0), 3)
        ibfs["multi_bfs_equal"] = bool(got.dtype == want.dtype and np.array_equal(got, want))
        ibfs["multi_bfs_speedup_vs_cpu"] = round(ibfs["multi_bfs_cpu_ms"] / ibfs["multi_bfs_gpu_ms"], 3)
    rec.emit(kind="ibfs", graph=spec, ok=ibfs.get("multi_bfs_equal", True), **ibfs)
    del dg
    return time.perf_counter() - start - compile_s


def launch_costs(rec, sim: bool) -> None:
    """Record the microseconds of one kernel launch (1 and 14 array arguments; 14 through
    ``launcher.fast`` too) and of one synchronised head copy (sliced and into new memory; a view
    sliced once into a pinned buffer; that through ``launcher.HeadCopy``, as the searches do):
    the floor under a level's time on any graph."""
    from numba import cuda as nc

    from breadth.gpu import device, launcher
    from breadth.gpu.primitives import HEAD

    @nc.jit
    def one(a):                    # does nothing (a is never empty): the launch alone is timed
        if a.size == 0:
            a[0] = 0

    @nc.jit
    def many(a, b, c, d, e, f, g, h, i, j, k, m, o, q):
        if a.size == 0:
            a[0] = 0

    a = device.empty(8, np.int64)
    row = device.empty(2 * HEAD, np.int64)
    head, pinned = row[HEAD:2 * HEAD], device.pinned(HEAD, np.int64)
    copy = launcher.HeadCopy(head, pinned)
    reps = 20 if sim else 2000
    out = {"launch_path": launcher.path()}
    for name, call in (("launch_1_array_us", lambda: one[1, 32](a)),
                       ("launch_14_arrays_us", lambda: many[1, 32](*([a] * 14))),
                       ("launch_14_arrays_fast_us", lambda: launcher.fast(many)[1, 32](*([a] * 14))),
                       ("head_copy_us", lambda: device.to_host(row[HEAD:2 * HEAD])),
                       ("head_copy_pinned_us", lambda: device.to_host(head, pinned).copy()),
                       ("head_copy_kept_us", lambda: copy().copy())):
        call()
        nc.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            call()
        nc.synchronize()
        out[name] = sig(1e6 * (time.perf_counter() - t0) / reps, 3)
    rec.emit(kind="launch", reps=reps, **out)


def phase_bench(rec, sim: bool, specs: list[str] | None) -> int:
    specs = specs or GRAPHS[sim]
    launch_costs(rec, sim)
    last: dict[str, tuple[int, float]] = {}       # kind -> (scale, seconds) of its last measured graph
    compiled: set = set()
    bad = 0
    for spec in specs:
        kind, scale = spec.split(":")[0], int(spec.split(":")[1])
        if kind in last:
            prev_scale, prev_s = last[kind]
            predicted = prev_s * 2.0 ** max(0, scale - prev_scale) * 1.2
        else:
            predicted = 0.0
        if rec.left() <= predicted or rec.left() <= 0:
            rec.emit(kind="skipped", graph=spec, reason=f"predicted {predicted:.0f} s, {max(0, rec.left()):.0f} s "
                     "left in the phase's budget")
            continue
        rec.emit(start=f"bench {spec}")
        try:
            last[kind] = (scale, bench_graph(rec, sim, spec, compiled))
        except Exception as exc:  # noqa: BLE001 - a graph that fails is reported; the next one still runs
            import traceback

            bad += 1
            rec.emit(kind="error", graph=spec, error=error_text(exc), traceback=traceback.format_exc()[-3000:])
            if "MemoryEstimateError" in error_text(exc):
                last[kind] = (scale, float("inf"))        # larger graphs of this kind will not fit either
    from breadth.gpu import launcher

    rec.emit(kind="launcher", path=launcher.path(), numba_launched=launcher.numba_launched())
    return 1 if bad else 0
