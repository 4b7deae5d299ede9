"""bench/scale.py: the per-scale memory table, its JSON and the budget extrapolation."""
import importlib.util
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_scale", ROOT / "bench" / "scale.py")
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)


def test_scales_parse_lists_and_ranges():
    assert scale.parse_scales("20-22,25") == [20, 21, 22, 25]


def test_budget_extrapolates_the_largest_scale():
    row = {"scale": 20, "tuples": 16 << 20, "base": 1 << 28,
           **{p: {"peak": (1 << 28) + 12 * (16 << 20)} for p in scale.PHASES}}
    # 12 bytes per tuple above 256 MiB: scale 26 needs 12.25 GiB, scale 27 24.25 GiB
    assert scale.largest_fitting([row], 24 * scale.GiB, 16) == 26
    assert scale.largest_fitting([row], 0.1 * scale.GiB, 16) is None


def test_runs_end_to_end(tmp_path):
    out = tmp_path / "s.json"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "scale.py"), "--scales", "8-9", "--budget", "4",
                           "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "B/tuple" in done.stdout and "largest scale expected to fit 4 GiB" in done.stdout
    rep = json.loads(out.read_text())
    assert [r["scale"] for r in rep["rows"]] == [8, 9]
    for r in rep["rows"]:
        assert r["arcs"] > 0 and all(r[p]["peak"] >= r["base"] > 0 for p in scale.PHASES)
    assert rep["largest_scale"] >= 9
