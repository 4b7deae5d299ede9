"""breadth.plot: a PNG of the median search, written atomically, without touching matplotlib's global state."""
import os
import subprocess
import sys

import pytest

import breadth
from breadth import InputError

pytest.importorskip("matplotlib")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_png_without_pyplot_or_backend_change(tmp_path):
    png = tmp_path / "levels.png"
    code = (
        "import sys, matplotlib\n"
        "before = matplotlib.rcParams._get_backend_or_none()\n"
        "import breadth\n"
        "from breadth.plot import plot_levels\n"
        "g = breadth.kronecker(8)\n"
        "runs = [breadth.bfs(g, r).summary() for r in (1, 2, 3)]\n"
        f"plot_levels(runs, {str(png)!r}, title='t')\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
        "assert matplotlib.rcParams._get_backend_or_none() == before, 'backend changed'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000
    assert os.listdir(tmp_path) == ["levels.png"]


def test_errors_leave_nothing(tmp_path):
    from breadth.plot import plot_levels

    with pytest.raises(InputError, match="nothing to plot"):
        plot_levels([], str(tmp_path / "x.png"))
    runs = [breadth.bfs(breadth.kronecker(6), 1).summary()]
    with pytest.raises(InputError, match="does not exist"):
        plot_levels(runs, str(tmp_path / "no" / "x.png"))
    assert os.listdir(tmp_path) == []


def test_plan_plot_and_its_errors(tmp_path):
    from breadth.plot import plot_plan

    sweep = [{"ranks": p, "layouts": [{"layout": "1d alltoall", "seconds": 1.0 / p, "comm_seconds": 0.1},
                                      {"layout": "2d fold", "seconds": 2.0 / p, "comm_seconds": 0.0}]}
             for p in (2, 4, 8)]
    plot_plan(sweep, 8, str(tmp_path / "plan.svg"))
    assert (tmp_path / "plan.svg").read_text().lstrip().startswith("<?xml")
    with pytest.raises(InputError, match="no candidate fits"):
        plot_plan([{"ranks": 2, "layouts": []}], 2, str(tmp_path / "none.png"))
    assert sorted(os.listdir(tmp_path)) == ["plan.svg"]
