"""Level-by-level comparison of ``breadth.bfs`` with GAP's ``bfs -l`` on the same ``.sg`` file.

GAP's ``-l`` prints each step's time: ``i`` (parent init), ``td`` / ``bu`` (one level each),
``e`` (queue -> bitmap before bottom-up), ``c`` (bitmap -> queue after it). breadth's
``levels`` give each level's seconds; what they leave out of the call's wall time (the
conversions, the final unvisited pass, allocation, Python) is the row ``rest``.

For each root (``--roots`` drawn as bench/gap_suite.py draws them: seed ``--seed``, vertices
with out-edges), GAP and breadth run alternately (``--reps`` each, median per root), then the
table gives, per level index, the median over roots of each side's time (levels of different
roots are aligned by index and split by direction; low-diameter graphs have the same shape from
every root).

    OMP_NUM_THREADS=2 .venv/bin/python bench/gap_levels.py /tmp/breadth-gap-suite/kron-22-s7.sg \
        --gap /work/gap/bfs --roots 16
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import time

import numba
import numpy as np

import breadth


def read_sg(path):
    """A breadth Graph from GAP's serialized ``.sg`` (the layout ``suite_graphs.write_sg`` writes)."""
    with open(path, "rb") as f:
        directed = bool(np.frombuffer(f.read(1), dtype=np.bool_)[0])
        m = int(np.frombuffer(f.read(8), dtype=np.int64)[0])
        n = int(np.frombuffer(f.read(8), dtype=np.int64)[0])

        def part():
            indptr = np.fromfile(f, dtype=np.int64, count=n + 1)
            indices = np.fromfile(f, dtype=np.int32, count=int(indptr[-1]))
            return indptr, indices

        indptr, indices = part()
        if directed:
            in_indptr, in_indices = part()
            return breadth.Graph(indptr, indices, directed=True, in_indptr=in_indptr, in_indices=in_indices,
                                 check=False)
        assert indptr[-1] == 2 * m or indptr[-1] == m
        return breadth.Graph(indptr, indices, check=False)


STEP = re.compile(r"^\s*(i|td|bu|e|c)\s+(?:(\d+)\s+)?([0-9.eE+-]+)\s*$")


def gap_steps(gap, sg, root, reps, threads):
    """[(steps of one trial: [(kind, seconds)]), ...] and the trial times."""
    env = {k: v for k, v in os.environ.items() if k not in breadth.omp_env.APPLIED}
    env["OMP_NUM_THREADS"] = str(threads)
    out = subprocess.run([gap, "-f", sg, "-r", str(root), "-n", str(reps), "-l"], env=env,
                         capture_output=True, text=True, check=True).stdout
    trials, cur, totals = [], [], []
    for line in out.splitlines():
        if line.startswith("Trial Time"):
            totals.append(float(line.split()[-1]))
            trials.append(cur)
            cur = []
            continue
        mt = STEP.match(line)
        if mt:
            cur.append((mt.group(1), float(mt.group(3))))
    return trials, totals


def breadth_steps(g, root, reps):
    trials, totals = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        res = breadth.bfs(g, root)
        wall = time.perf_counter() - t0
        steps = [("td" if lv.direction == "top-down" else "bu", lv.seconds, lv.frontier, lv.edges_examined)
                 for lv in res.levels]
        trials.append(steps)
        totals.append(wall)
    return trials, totals


def median_trial(trials, totals):
    """The trial with the median total."""
    k = sorted(range(len(totals)), key=totals.__getitem__)[len(totals) // 2]
    return trials[k], totals[k]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sg")
    ap.add_argument("--gap", default="/work/gap/bfs")
    ap.add_argument("--roots", type=int, default=16)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=numba.get_num_threads())
    args = ap.parse_args(argv)
    numba.set_num_threads(args.threads)
    g = read_sg(args.sg)
    cand = np.flatnonzero(g.out_degree() > 0)
    roots = np.random.default_rng(args.seed).choice(cand, size=min(args.roots, cand.size), replace=False)
    breadth.bfs(g, int(roots[0]))
    gap_levels, br_levels, gap_other, br_rest, gap_tot, br_tot = {}, {}, {}, [], [], []
    shape = {}
    for r in roots:
        gt, gtot = median_trial(*gap_steps(args.gap, args.sg, int(r), args.reps, args.threads))
        bt, btot = median_trial(*breadth_steps(g, int(r), args.reps))
        gap_tot.append(gtot)
        br_tot.append(btot)
        lv = 0
        other = {}
        for kind, s in gt:
            if kind in ("td", "bu"):
                gap_levels.setdefault((lv, kind), []).append((kind, s))
                lv += 1
            else:
                other[kind] = other.get(kind, 0.0) + s
        for kind in ("i", "e", "c"):
            gap_other.setdefault(kind, []).append(other.get(kind, 0.0))
        gap_other.setdefault("rest", []).append(gtot - sum(s for _, s in gt))
        for lv, (kind, s, front, examined) in enumerate(bt):
            br_levels.setdefault((lv, kind), []).append((kind, s))
            shape.setdefault((lv, kind), []).append((front, examined))
        br_rest.append(btot - sum(s for _, s, _, _ in bt))

    def med(xs):
        return 1e3 * statistics.median(xs) if xs else float("nan")

    def kinds(rows):
        ks = sorted({k for k, _ in rows})
        return "/".join(ks)

    print(f"{args.sg}: {g.num_vertices:,} vertices, {g.num_arcs:,} arcs; {len(roots)} roots, "
          f"{args.reps} reps, {args.threads} threads")
    print("| level | GAP step | GAP ms | breadth step | breadth ms | frontier | edges examined | speed |")
    print("|---:|---|---:|---|---:|---:|---:|---:|")
    for key in sorted(set(gap_levels) | set(br_levels)):
        lv = f"{key[0]} {key[1]}"
        gr, br = gap_levels.get(key, []), br_levels.get(key, [])
        gm, bm = med([s for _, s in gr]), med([s for _, s in br])
        fr = statistics.median([f for f, _ in shape.get(key, [(0, 0)])])
        ex = statistics.median([e for _, e in shape.get(key, [(0, 0)])])
        print(f"| {lv} | {kinds(gr)} ({len(gr)}) | {gm:.3f} | {kinds(br)} ({len(br)}) | {bm:.3f} | {fr:,.0f} | "
              f"{ex:,.0f} | {gm / bm if bm else float('nan'):.2f} |")
    for kind in ("i", "e", "c", "rest"):
        print(f"| GAP {kind} | | {med(gap_other[kind]):.3f} | | | | | |")
    print(f"| breadth rest (conversions, unvisited pass, call) | | | | {med(br_rest):.3f} | | | |")
    gm, bm = med(gap_tot), med(br_tot)
    print(f"| **total** | | {gm:.3f} | | {bm:.3f} | | | {gm / bm:.2f} |")


if __name__ == "__main__":
    main()
