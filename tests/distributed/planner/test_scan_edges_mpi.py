"""The 2D bitmap scan's bottom-up edges against real searches: on a 1 x 2 grid both ranks of the row
scan every unreached vertex against their own block, each to its own first frontier neighbour, so
the two examine more than one rank does alone, by about what ``scan_cost.level_edges`` predicts."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
from mpi_helpers import kronecker_share_script, run_mpi  # noqa: E402

SCRIPT = kronecker_share_script(15) + """from mpi4py import MPI
eng = DistEngine(comm=comm, partition="2d", exchange="scan", params={"grid": "1x2"}, threads=1)
eng.build_from_edges(src, dst, n, directed=False)
cand = np.random.default_rng(5).integers(0, n, 200)
roots = [int(x) for x in cand[eng.nonisolated(cand)][:8]]
two = 0
for r in roots:
    res = eng.search(r)
    for lv, per in zip(res.levels, res.extra["communication"]["levels"]):
        if lv.direction == "bottom-up":
            two += sum(per["edges_examined"])
if comm.rank == 0:
    src, dst = kronecker_edges(scale, 16, 1, 0, m)
    alone = DistEngine(comm=MPI.COMM_SELF, partition="2d", exchange="scan", params={"grid": "1x1"}, threads=1)
    alone.build_from_edges(src, dst, n, directed=False)
    one = 0
    for r in roots:
        res = alone.search(r)
        one += sum(lv.edges_examined for lv in res.levels if lv.direction == "bottom-up")
    print(json.dumps({"measured": two / one}))
"""


def test_a_row_of_two_examines_what_the_split_scans_predict(tmp_path, warm_kernels):
    from breadth.distributed.planner import graph
    from breadth.distributed.two_d import scan_cost

    script = tmp_path / "scan_edges.py"
    script.write_text(SCRIPT)
    proc, _ = run_mpi(2, [str(script)], timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    measured = json.loads(proc.stdout.strip().splitlines()[-1])["measured"]
    prof = graph.generated("kronecker", 15)
    bu = [lv for lv in prof.levels if lv.direction == "bottom-up"]
    model = sum(scan_cost.level_edges(prof, lv, 2, {"grid": "1x2"})[1] for lv in bu) / sum(lv.examined for lv in bu)
    # both well above one rank's edges: measured 1.62 at scale 15, the model 1.83 (Kronecker hubs are
    # correlated beyond their degree classes: the model's frontier reaches more of a hub's pieces)
    assert measured > 1.4 and model > 1.4
    assert abs(model / measured - 1) < 0.2, (model, measured)
