"""report.md of bench/gpu_check.py: the state of a run (gpu_check.json) as short Markdown."""
from __future__ import annotations


def _table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join("" if c is None else str(c) for c in row) + " |" for row in rows]
    return lines + [""]


def _records(phase: dict, kind: str) -> list[dict]:
    return [r for r in phase.get("records", []) if r.get("kind") == kind]


def _env(p: dict) -> list[str]:
    recs = _records(p, "env")
    if not recs:
        return ["No environment record (see env.log).", ""]
    e = recs[0]
    pk = e.get("packages", {})
    found = ["- " + ", ".join(f"{k} {v}" for k, v in pk.items() if v),
             "- missing: " + (", ".join(k for k, v in pk.items() if not v) or "none")]
    if not e.get("gpu"):
        return [f"**The GPU path cannot run here: {e.get('reason')}**", "", f"- Python {e.get('python')} ({e.get('executable')}), "
                f"NUMBA_ENABLE_CUDASIM={e.get('NUMBA_ENABLE_CUDASIM')}, nvidia-smi: {e.get('nvidia_smi')}"] + found + [""]
    dev = e.get("device", {})
    lines = [f"- GPU: {dev.get('name')}" + (f", compute capability {dev.get('compute_capability')}, "
                                            f"{dev.get('multiprocessors')} SMs, {dev.get('memory_total_gib')} GiB "
                                            f"({dev.get('memory_free_gib')} free)" if "memory_total_gib" in dev else ""),
             f"- CUDA driver {dev.get('driver_version', '-')}, runtime {dev.get('runtime_version', '-')}, "
             f"NVVM {dev.get('nvvm_version', '-')}",
             f"- Python {e.get('python')}, {e.get('cores')} cores, numba threads {e.get('numba_threads')}",
             *found, f"- launch shapes: {e.get('launch')}", f"- nvidia-smi: {e.get('nvidia_smi')}"]
    for s in _records(p, "smoke"):
        lines.append(f"- smoke test (compile + one search): {'ok' if s.get('ok') else 'FAILED'} in {s.get('seconds')} s"
                     + (f": {s.get('error')}" if s.get("error") else ""))
    return lines + [""]


def _tests(p: dict) -> list[str]:
    lines = [f"pytest: {p.get('counts')} in {p.get('seconds')} s (limit {p.get('limit')} s), exit {p.get('rc')}", ""]
    bad = [t for t in p.get("tests", []) if t["outcome"] in ("failed", "error")]
    if bad:
        lines += _table(["failed test", "s", "message"], [[t["test"], t["seconds"], t["message"]] for t in bad])
    slow = sorted(p.get("tests", []), key=lambda t: -t["seconds"])[:5]
    if slow:
        lines.append("slowest: " + ", ".join(f"{t['test'].split('::')[-1]} {t['seconds']} s" for t in slow))
        lines.append("")
    skipped = [t for t in p.get("tests", []) if t["outcome"] == "skipped"]
    if skipped:
        lines.append("skipped: " + "; ".join(f"{t['test'].split('::')[-1]} ({t['message'][:80]})" for t in skipped))
        lines.append("")
    return lines


def _correctness(p: dict) -> list[str]:
    rows = []
    for r in p.get("records", []):
        if r.get("kind") == "search":
            rows.append([r["graph"], r["vertices"], r["arcs"], r["algorithm"], r["root"], r["levels"],
                         "yes" if r["depth_equal"] else f"NO ({r.get('depth_mismatches')})",
                         "yes" if r["validated"] else f"NO: {r.get('error', '')[:80]}", r["gpu_ms"]])
        elif r.get("kind") == "multi_bfs":
            rows.append([r["graph"], r["vertices"], r["arcs"], f"multi_bfs x{r['sources']}", "", "",
                         "yes" if r["ok"] else f"NO ({r.get('mismatches')})", "", r["gpu_ms"]])
    lines = _table(["graph", "n", "arcs", "algorithm", "root", "levels", "depths = CPU", "validated", "GPU ms"], rows)
    return lines + _errors(p)


def _errors(p: dict) -> list[str]:
    lines = []
    for r in p.get("records", []):
        if r.get("kind") == "error":
            lines.append(f"- **error on {r.get('graph')}**: {r.get('error')}")
        elif r.get("kind") == "skipped":
            lines.append(f"- skipped {r.get('graph', '')}: {r.get('reason')}")
    return lines + ([""] if lines else [])


def _bench(p: dict) -> list[str]:
    rows, ib, fixed, levels = [], [], [], []
    for r in p.get("records", []):
        if r.get("kind") == "launch":
            fixed.append(f"Fixed costs: a kernel launch takes {r['launch_1_array_us']} us of the host's time with 1 "
                         f"array argument and {r['launch_14_arrays_us']} us with 14 through numba-cuda, "
                         f"{r.get('launch_14_arrays_fast_us')} us through breadth's launcher (searches launch "
                         f"through: {r.get('launch_path')}); a synchronised head copy {r['head_copy_us']} us "
                         f"sliced into new memory, {r.get('head_copy_pinned_us')} us from a view sliced once into "
                         f"pinned memory, {r.get('head_copy_kept_us')} us so through breadth's kept copy call, "
                         f"as the searches copy it (means over {r['reps']}).")
        elif r.get("kind") == "launcher":
            slow = r.get("numba_launched") or {}
            fixed.append(f"After the bench, searches launched through: {r.get('path')}; kernels launched through "
                         "numba-cuda by the fast path's own choice: "
                         + (", ".join(f"{k} ({why})" for k, why in sorted(slow.items())) or "none") + ".")
        elif r.get("kind") == "graph":
            if r.get("levels") and r["graph"].startswith("kronecker:"):
                levels = [r["graph"], r["levels_root"], r["levels"]]     # the largest Kronecker graph's
            cpu = r["rows"]["cpu do"]
            rows.append([r["graph"], r["vertices"], r["arcs"], "cpu do", cpu["median_ms"], cpu["gteps"], "", "", "", ""])
            for name, x in r["rows"].items():
                if name.startswith("gpu"):
                    rows.append(["", "", "", name, x["median_ms"], x["gteps"], x.get("traversal_gteps", ""),
                                 x.get("transfers_median_ms", ""), x["speedup_vs_cpu"],
                                 r["upload_s"] if name == "gpu td" else ""])
        elif r.get("kind") == "ibfs":
            ib.append([r["graph"], r["sources"], r["ibfs_ms"], r["ibfs_gteps"], r["one_by_one_ms"],
                       r["speedup_vs_one_by_one"], r["speedup_vs_one_by_one_traversal"], r.get("multi_bfs_gpu_ms"),
                       r.get("multi_bfs_cpu_ms"), r.get("multi_bfs_equal")])
    lines = ["GTEPS: harmonic mean over roots of component edges / time; 'traversal' counts the levels only "
             "(kernels + one counter copy a level), 'transfers' is the rest of the call (seeds up, parent and "
             "depth down). GPU/CPU: GTEPS of the whole call against the CPU 'do' search on all cores.", ""]
    lines += _table(["graph", "n", "arcs", "search", "median ms", "GTEPS", "traversal GTEPS", "transfers ms",
                     "GPU/CPU", "upload s"], rows)
    lines += [line for f in fixed for line in (f, "")]
    goals = []
    for r in p.get("records", []):
        if r.get("kind") == "graph" and r["graph"].startswith("kronecker:") and int(r["graph"].split(":")[1]) >= 22:
            best = max((x for k, x in r["rows"].items() if k.startswith("gpu")), key=lambda x: x["gteps"])
            goals.append(f"{r['graph']}: best GPU search {best['speedup_vs_cpu']}x the CPU (goal 10x)")
        elif r.get("kind") == "ibfs":
            goals.append(f"{r['graph']}: iBFS {r['speedup_vs_one_by_one']}x one-by-one (goal 10x)")
    if goals:
        lines += ["Against the goals: " + "; ".join(goals) + ".", ""]
    checks = [f"{r['graph']}: {x['validate_device_s']} s on the device, {x['validate_host_s']} s copied back and "
              "validated on the CPU" for r in p.get("records", []) if r.get("kind") == "graph"
              for x in [r["rows"].get("gpu do device-results", {})] if "validate_device_s" in x]
    if checks:
        lines += ["Validating one device result (the Graph500 rules): " + "; ".join(checks) + ".", ""]
    if levels:
        lines += [f"Level by level on {levels[0]} from root {levels[1]} (the GPU search of median time, device "
                  "results; the GPU's top-down-only and bottom-up-only searches and the CPU search from the same "
                  "root on all cores):", ""]
        lines += _table(["level", "frontier", "edges examined", "GPU direction", "GPU ms", "GPU top-down ms",
                         "GPU bottom-up ms", "CPU direction", "CPU ms"], levels[2])
    if ib:
        lines += _table(["graph", "sources", "iBFS ms", "iBFS GTEPS", "one-by-one ms", "iBFS speedup",
                         "speedup (traversal)", "multi_bfs GPU ms", "multi_bfs CPU ms", "equal"], ib)
    return lines + _errors(p)


def _mpi(p: dict) -> list[str]:
    lines = []
    for r in p.get("records", []):
        k = r.get("kind")
        if k == "skipped":
            lines.append(f"- skipped: {r.get('reason')}")
        elif k == "mpi":
            lines.append(f"- {r['flavour']} ({r.get('library')}), mpiexec {r['mpiexec']}")
        elif k == "mpi_bfs":
            lines.append(f"- 2-rank bfs --device cuda on {r['graph']}: {'ok' if r['ok'] else 'FAILED'} "
                         f"(engine {r.get('engine')}, validated {r.get('validated')}, depths = CPU "
                         f"{r.get('depth_equal')}, {r['seconds']} s with start-up)" + (
                             f": {r.get('error')} {r.get('stderr', '')[-300:]}" if not r["ok"] else ""))
        elif k == "mpi_graph500":
            lines.append(f"- 2-rank graph500 --device cuda scale {r['scale']}: {'ok' if r['ok'] else 'FAILED'} "
                         f"(validated {r.get('validated')}, harmonic mean TEPS {r.get('harmonic_mean_teps')})" + (
                             f": {r.get('error')} {r.get('stderr', '')[-300:]}" if not r["ok"] else ""))
    return lines + [""]


def _graph500(p: dict) -> list[str]:
    rows, dirs, profile = [], [], []
    for r in _records(p, "graph500"):
        if not r.get("harmonic_mean_teps"):
            rows.append([r["scale"], "", "", "", "", f"FAILED: {r.get('error')} {r.get('stderr', '')[-200:]}"])
            continue
        rows.append([r["scale"], r["roots"], f"{r['harmonic_mean_teps']:.4g}", f"{r['median_s']:.4g}",
                     f"{r['median_validate_s']:.4g}", "yes" if r["validated"] else "NO"])
        for name, d in sorted(r.get("directions", {}).items()):
            rate = d.get("edges_per_s")
            dirs.append([r["scale"], name, d["levels"], f"{d['seconds']:.4g}", d["edges"],
                         f"{rate:.4g}" if rate else ""])
        profile += [[r["scale"], *row[:5], f"{row[5]:.4g}" if row[5] else ""] for row in r.get("median_levels", [])]
    lines = ["Kernel 2 timed until the parent array is complete in device memory; every tree validated on "
             "the device, untimed. Goal at scale 24: harmonic-mean TEPS >= 5e10.", ""]
    lines += _table(["scale", "roots", "harmonic-mean TEPS", "median search s", "median validation s",
                     "all validated"], rows)
    if dirs:
        lines += ["Levels by direction over all searches (edges examined per second of those levels):", ""]
        lines += _table(["scale", "direction", "levels", "seconds", "edges examined", "edges/s"], dirs)
    if profile:
        lines += ["Level by level, the search of median time (its level's kernels and one counter copy):", ""]
        lines += _table(["scale", "level", "direction", "frontier", "edges examined", "ms", "edges/s"], profile)
    return lines + _errors(p)


SECTIONS = {"env": ("Environment", _env), "tests": ("GPU tests", _tests),
            "correctness": ("Larger graphs against the CPU", _correctness), "bench": ("Benchmark", _bench),
            "graph500": ("Graph500 on the GPU", _graph500), "mpi": ("Two MPI ranks on the GPU", _mpi)}


def render(state: dict) -> str:
    lines = [f"# breadth GPU check ({state['mode']})", "",
             f"Started {state['started']}, budget {state['budget_s']:g} s, elapsed {state.get('elapsed_s')} s, "
             f"exit status {state.get('exit_status', '(running)')}.", ""]
    lines += _table(["phase", "status", "seconds", "limit"],
                    [[k, v["status"], v.get("seconds"), v.get("limit")] for k, v in state["phases"].items()])
    for phase, p in state["phases"].items():
        title, fn = SECTIONS[phase]
        lines += [f"## {title}", ""]
        if p["status"] == "skipped" and "reason" in p:
            lines += [f"Skipped: {p['reason']}", ""]
            continue
        if p.get("killed_in"):
            lines += [f"**Killed at its limit of {p['limit']} s while running {p['killed_in']}.**", ""]
        lines += fn(p)
        if p.get("log_tail") and p["status"] != "passed":
            lines += ["<details><summary>log tail</summary>", "", "```", p["log_tail"][-2500:], "```", "",
                      "</details>", ""]
    return "\n".join(lines) + "\n"
