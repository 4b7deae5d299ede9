"""Plots of BFS runs (matplotlib, optional): frontier size and time per level.

The figure is drawn on its own Agg canvas (``matplotlib.figure.Figure`` +
``FigureCanvasAgg``), never through ``pyplot``: no backend is selected and no
global matplotlib state changes, so importing or calling this module leaves an
application's own plotting alone. The PNG is written atomically
(``breadth.files.atomic_output``).
"""
from __future__ import annotations

from .errors import InputError
from .files import atomic_output


def plot_levels(searches: list[dict], path: str, title: str = "") -> None:
    """Frontier vertices (log) and seconds per level, for the median-time search of ``searches``.

    ``searches`` are BFSResult.summary() dicts (optionally with a "time" key). The file is a
    PNG whatever its extension.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("plotting needs matplotlib: pip install 'breadth[plot]'") from None
    if not searches:
        raise InputError("nothing to plot")
    ordered = sorted(searches, key=lambda s: s.get("time", s.get("seconds", 0.0)))
    s = ordered[len(ordered) // 2]
    levels = s["levels"]
    xs = [lv["level"] for lv in levels]
    colors = ["tab:blue" if lv["direction"] == "top-down" else "tab:orange" for lv in levels]
    fig = Figure(figsize=(7, 6))
    FigureCanvasAgg(fig)
    a1, a2 = fig.subplots(2, 1, sharex=True)
    a1.bar(xs, [max(lv["frontier"], 1) for lv in levels], color=colors)
    a1.set_yscale("log")
    a1.set_ylabel("frontier vertices")
    a2.bar(xs, [lv["seconds"] * 1e3 for lv in levels], color=colors)
    a2.set_ylabel("ms")
    a2.set_xlabel("level (blue: top-down, orange: bottom-up)")
    fig.suptitle(title or f"BFS from {s['roots'][0]}")
    fig.tight_layout()
    with atomic_output(path) as f:
        fig.savefig(f, format="png", dpi=100)
