"""bench/plan_calibrate.py: the report and the figure of an earlier run's rows (measured against predicted)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _rows():
    layouts = [{"layout": name, "measured": m, "predicted": p, "ratio": m / p, "expected": p, "expected_ratio": m / p,
                "profile_ratio": 1.0, "mean_ratio": m / p}
               for name, m, p in (("1d alltoall", 1.0e-3, 0.9e-3), ("2d fold 1x2", 3.0e-3, 1.5e-3))]
    return [{"setting": "shm:2", "kind": kind, "scale": 14, "load_before": 1.0, "load_after": 1.1, "steady": 4,
             "roots": 4, "alpha_min": 1e-6, "alpha_max": 2e-6, "late_min": 1e-5, "late_max": 2e-5,
             "cpu_share_min": 1.0, "layouts": layouts, "fastest": "1d alltoall", "pick": "1d alltoall",
             "pick_over_fastest": 1.0} for kind in ("kronecker", "uniform")]


def test_report_and_plot_of_a_run(tmp_path):
    pytest.importorskip("matplotlib")
    src = tmp_path / "cal.json"
    src.write_text(json.dumps(_rows()))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "plan_calibrate.py"), "--report", str(src),
                          "--plot", str(tmp_path / "cal.svg")], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 0, out.stderr
    # the 2D row is 2x its prediction: outside the 1.5x band, and the verdict counts it so
    assert "within 1.5x of the prediction: 2 of 4" in out.stdout
    assert "| 2d fold 1x2 | 3.00 | 1.50 | 2.00 |" in out.stdout
    assert (tmp_path / "cal.svg").read_text().lstrip().startswith("<?xml")


def test_a_bad_plot_file_is_refused_before_reading(tmp_path):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "plan_calibrate.py"), "--report",
                          str(tmp_path / "missing.json"), "--plot", str(tmp_path / "cal.txt")],
                         capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and ".png, .svg or .pdf" in out.stderr
    assert list(tmp_path.iterdir()) == []
