"""The Graph500 phase of bench/gpu_check.py: ``breadth graph500 --device cuda`` on one GPU.

At scales 22 and 24 (the simulator: scale 7), each a separate ``breadth graph500`` process
with ``--json``: kernel 2 is timed until the parent array is complete in device memory, and
every tree is validated on the device, untimed (docs/guide/graph500.md says what is timed).
One record per scale: harmonic-mean TEPS as the specification reports it, the median search
time, whether every tree validated, and the levels by direction over all searches (seconds,
edges examined, and their rate), which says whether bottom-up levels beat top-down ones, and
the level-by-level profile of the median search (what bounds a search: its levels' times
against their edges).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

SCALES = {True: [7], False: [22, 24]}
ROOTS = {True: 2, False: 16}


def by_direction(searches: list) -> dict:
    """{direction: {"levels", "seconds", "edges", "edges_per_s"}} summed over every search's levels."""
    out = {}
    for s in searches:
        for lv in s.get("levels", []):
            d = out.setdefault(lv["direction"], {"levels": 0, "seconds": 0.0, "edges": 0})
            d["levels"] += 1
            d["seconds"] += float(lv["seconds"])
            d["edges"] += int(lv["edges_examined"])
    for d in out.values():
        d["seconds"] = round(d["seconds"], 6)
        d["edges_per_s"] = round(d["edges"] / d["seconds"], 1) if d["seconds"] > 0 else None
    return out


def median_profile(searches: list) -> list:
    """The levels of the search of median time: [level, direction, frontier, edges examined, ms, edges/s]."""
    timed = sorted((s for s in searches if s.get("levels")), key=lambda s: float(s.get("time", s.get("seconds", 0))))
    if not timed:
        return []
    rows = []
    for lv in timed[len(timed) // 2]["levels"]:
        secs = float(lv["seconds"])
        rows.append([lv["level"], lv["direction"], lv["frontier"], lv["edges_examined"], round(1e3 * secs, 4),
                     round(lv["edges_examined"] / secs, 1) if secs > 0 else None])
    return rows


def phase_graph500(rec, sim: bool, scratch: str) -> int:
    took = None
    for scale in SCALES[sim]:
        # each 2 scales cost about 4x: skip a scale the deadline would cut short
        if took is not None and time.time() + 4.5 * took > rec.deadline:
            rec.emit(kind="skipped", graph=f"graph500 scale {scale}",
                     reason=f"the previous scale took {took:.0f} s; not enough time left")
            continue
        rec.emit(start=f"graph500 scale {scale}")
        path = os.path.join(scratch, f"graph500_{scale}.json")
        cmd = [sys.executable, "-m", "breadth", "graph500", "--scale", str(scale), "--roots", str(ROOTS[sim]),
               "--device", "cuda", "--json", path, "--quiet"]
        t0 = time.time()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=max(5.0, rec.hard_left()),
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            rec.emit(kind="graph500", scale=scale, ok=False, error="timed out at the phase's limit")
            return 1
        took = time.time() - t0
        if proc.returncode != 0 or not os.path.exists(path):
            rec.emit(kind="graph500", scale=scale, ok=False, error=f"exit {proc.returncode}",
                     stderr=proc.stderr[-1500:])
            continue
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        rec.emit(kind="graph500", scale=scale, ok=bool(d.get("validated")), validated=d.get("validated"),
                 roots=d.get("NBFS"), device=d.get("engine", {}).get("device"),
                 harmonic_mean_teps=d["bfs_TEPS"]["harmonic_mean"], median_s=d["bfs_time"]["median"],
                 median_validate_s=d["bfs_validate"]["median"], generation_s=d.get("graph_generation"),
                 construction_s=d.get("construction_time"), wall_s=round(took, 1),
                 directions=by_direction(d.get("searches", [])), median_levels=median_profile(d.get("searches", [])))
    return 0
