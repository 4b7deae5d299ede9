"""2D-partitioned BFS (Beamer, Buluç et al., expand/fold): measured words vs the paper's Table I model.

For every P given (and every grid R x C given), runs the Graph500 benchmark under ``mpiexec -n P``
with the 1D layouts (``--partition 1d --exchange alltoall`` / ``butterfly``) and the 2D layouts
(``--partition 2d --grid RxC --exchange fold`` / ``scan``; by default the most square grid of P),
each three times -- pure
top-down (``--algorithm td``), pure bottom-up (``bu``) and direction-optimizing (``do``) -- and
prints per search (means over the roots): levels (top-down / bottom-up), the exchange's words (bytes / 8, i.e. 64-bit words, as
the paper counts them; our ids travel as int32 when they fit, so a word here may carry two),
each operation's words (fold: transpose, expand, fold, rotate; scan: scan, broadcast and the
parents step after the search), harmonic-mean TEPS, and the model
of B2D Table I for this graph (n vertices, m undirected edges, p_r = R: the expand runs along
a processor column of R ranks; p_c = C: the completed bitmaps rotate along a row of C ranks):

    w_t = 4m + n(p_r + 1)                         (a search run top-down throughout)
    w_b = n(s_b (p_r + p_c + 1) / 64 + 2)         (s_b bottom-up steps; here s_b = the bu levels)

with the ratio measured / model, and for ``do`` the model of its mix (the bottom-up model for
its s_b bottom-up levels plus the top-down model scaled by the share of arcs its top-down levels
examined). Top-down words are what a rank sends, so the fold's words drop below 4m as ranks
stop offering vertices they already sent (each rank offers a vertex at most once per search).

The 1D rows are set against the model of a 1 x P grid (p_r = 1, p_c = P). The scan rows are set
against the same model although MapGraph sends bitmaps at every level (no pairs: its words are
~ levels * n * (ceil(log2 C) + p_r) / 64 plus the O(n P) parents step).

    .venv/bin/python bench/dist_2d.py --scale 18 --ranks 4 6 9 16 --grids 1x4 4x1 3x2 --roots 8

Ranks beyond the cores are oversubscribed (Open MPI ``--oversubscribe``). Timings taken while other
work loads the machine are not performance figures.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

OPERATIONS = ("transpose", "expand", "fold", "rotate", "scan", "broadcast", "parents")


def graph500(args, layout, P, algorithm):
    from breadth.distributed.launch import find_mpiexec, mpi_flavour, mpiexec_command, mpiexec_env

    partition, what = layout
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        argv = ["graph500", "--scale", str(args.scale), "--roots", str(args.roots), "--quiet", "--json", out,
                "--partition", partition, "--algorithm", algorithm]
        if partition.startswith("2d"):
            argv[argv.index(partition)] = "2d"
            argv += ["--grid", what, "--exchange", "scan" if partition == "2d scan" else "fold"]
        else:
            argv += ["--exchange", what]
        if not args.validate:
            argv.append("--no-validate")
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        exe = find_mpiexec()
        flavour = mpi_flavour(exe)
        env.update({k: v for k, v in mpiexec_env(flavour).items() if k.startswith("OMPI_ALLOW")})
        proc = subprocess.run(mpiexec_command(P, argv, exe, flavour), capture_output=True, text=True, env=env,
                              cwd=ROOT)
        if proc.returncode != 0:
            raise SystemExit(f"failed ({proc.returncode}) on {partition} {what}, {algorithm}:\n{proc.stderr[-3000:]}")
        with open(out) as f:
            return json.load(f)


def measured(d):
    """Means per search: levels by direction, exchange words, words per operation, examined-arc share top-down."""
    searches = d["searches"]
    k = len(searches)
    out = {"td": 0.0, "bu": 0.0, "words": 0.0, "td_share": 0.0, **{op: 0.0 for op in OPERATIONS}}
    for s in searches:
        c = s["communication"]
        out["words"] += c["exchange_bytes"] / 8 / k
        for op, t in c.get("operations", {}).items():
            out[op] += t["bytes"] / 8 / k
        levels = s["levels"]
        td = [lv for lv in levels if lv["direction"] == "top-down"]
        out["td"] += len(td) / k
        out["bu"] += (len(levels) - len(td)) / k
        examined = sum(lv["edges_examined"] for lv in levels)
        out["td_share"] += (sum(lv["edges_examined"] for lv in td) / examined if examined else 0.0) / k
    return out


def model(n, m, R, C, algorithm, meas, td_full):
    from breadth.distributed.planner.words import b2d_bottomup_words, b2d_topdown_words

    w_t = b2d_topdown_words(n, m, R)
    w_b = b2d_bottomup_words(n, R, C, meas["bu"])
    if algorithm == "td":
        return w_t
    if algorithm == "bu":
        return w_b
    return w_b * (meas["bu"] > 0) + td_full * meas["td_share"]


def main(argv=None):
    from breadth.distributed.planner.words import b2d_ratio, b2d_topdown_words
    from breadth.distributed.two_d.grid import default_grid

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=14)
    p.add_argument("--roots", type=int, default=4)
    p.add_argument("--ranks", type=int, nargs="+", default=[4, 6, 9], metavar="P")
    p.add_argument("--grids", nargs="*", default=[], metavar="RxC", help="more 2D grids (R*C among --ranks)")
    p.add_argument("--no-1d", dest="one_d", action="store_false", help="leave out the 1D rows")
    p.add_argument("--validate", action="store_true", help="validate every search (slower)")
    args = p.parse_args(argv)
    print(f"B2D Table I, scale {args.scale}, {args.roots} roots; words per search (mean), 64-bit words = bytes / 8")
    print(f"{'P':>3} {'layout':>14} {'alg':>3} {'TD':>4} {'BU':>4} {'measured':>12} {'model':>12} {'ratio':>6} "
          + " ".join(f"{op:>10}" for op in OPERATIONS) + f" {'TEPS':>10}")
    for P in args.ranks:
        layouts = [("1d", "alltoall"), ("1d", "butterfly")] if args.one_d else []
        grids = ["x".join(map(str, default_grid(P)))] + [g for g in args.grids if _size(g) == P]
        layouts += [("2d", g) for g in dict.fromkeys(grids)] + [("2d scan", g) for g in dict.fromkeys(grids)]
        for layout in layouts:
            R, C = _dims(layout[1]) if layout[0].startswith("2d") else (1, P)
            rows = {}
            for algorithm in ("td", "bu", "do"):
                d = graph500(args, layout, P, algorithm)
                n, m = d["graph"]["vertices"], d["graph"]["edges"]
                rows[algorithm] = meas = measured(d)
                w = model(n, m, R, C, algorithm, meas, b2d_topdown_words(n, m, R))
                name = f"{layout[0]} {layout[1]}"
                print(f"{P:>3} {name:>14} {algorithm:>3} {meas['td']:4.1f} {meas['bu']:4.1f} {meas['words']:12.0f} "
                      f"{w:12.0f} {meas['words'] / w if w else float('nan'):6.2f} "
                      + " ".join(f"{meas[op]:10.0f}" for op in OPERATIONS) + f" {d['bfs_TEPS']['harmonic_mean']:10.3g}")
            td, bu, s_b = rows["td"]["words"], rows["bu"]["words"], rows["bu"]["bu"]
            eq2 = b2d_ratio(m / n, C, s_b) if R == C else None
            print(f"{P:>3} {layout[0] + ' ' + layout[1]:>14} w_t/w_b measured {td / bu if bu else float('nan'):.2f}"
                  + (f", eq. 2 (square grid, k = m/n, s_b = {s_b:.1f}): {eq2:.2f}" if eq2 else ""))


def _dims(grid):
    R, C = (int(x) for x in grid.lower().split("x"))
    return R, C


def _size(grid):
    R, C = _dims(grid)
    return R * C


if __name__ == "__main__":
    main()
