"""Plots (matplotlib, optional): a BFS run's frontier size and time per level, and ``breadth plan``'s
layouts against the rank count.

The figure is drawn on its own Agg canvas (``matplotlib.figure.Figure`` +
``FigureCanvasAgg``), never through ``pyplot``: no backend is selected and no
global matplotlib state changes, so importing or calling this module leaves an
application's own plotting alone. The file's suffix picks the format (``.png``,
``.svg`` or ``.pdf``; ``check_plot_path`` refuses any other before a command's
work); it is written atomically (``breadth.files.atomic_output``).
"""
from __future__ import annotations

import os

from .errors import InputError
from .files import atomic_output, check_writable

PLOT_FORMATS = ("png", "svg", "pdf")


def check_plot_path(path: str, option: str = "--plot") -> str:
    """The format of a plot file named ``path`` (its suffix), or InputError for another suffix or a
    place where no file can be written."""
    fmt = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if fmt not in PLOT_FORMATS:
        raise InputError(f"{option} {path}: a plot is written as .png, .svg or .pdf (the suffix picks the format)")
    check_writable(path)
    return fmt


def plot_levels(searches: list[dict], path: str, title: str = "") -> None:
    """Frontier vertices (log) and seconds per level, for the median-time search of ``searches``.

    ``searches`` are BFSResult.summary() dicts (optionally with a "time" key). The file is a
    PNG, SVG or PDF, as its suffix says (``check_plot_path``).
    """
    fmt = check_plot_path(path, "plot")
    fig = new_figure()
    if not searches:
        raise InputError("nothing to plot")
    ordered = sorted(searches, key=lambda s: s.get("time", s.get("seconds", 0.0)))
    s = ordered[len(ordered) // 2]
    levels = s["levels"]
    xs = [lv["level"] for lv in levels]
    colors = ["tab:blue" if lv["direction"] == "top-down" else "tab:orange" for lv in levels]
    a1, a2 = fig.subplots(2, 1, sharex=True)
    a1.bar(xs, [max(lv["frontier"], 1) for lv in levels], color=colors)
    a1.set_yscale("log")
    a1.set_ylabel("frontier vertices")
    a2.bar(xs, [lv["seconds"] * 1e3 for lv in levels], color=colors)
    a2.set_ylabel("ms")
    a2.set_xlabel("level (blue: top-down, orange: bottom-up)")
    fig.suptitle(title or f"BFS from {s['roots'][0]}")
    save_figure(fig, path, fmt)


def plot_plan(sweep: list[dict], ranks: int, path: str, title: str = "") -> None:
    """Each layout's predicted search seconds (log) and the share of it in communication against the
    rank count (log), a dashed line at ``ranks``, the job asked about.

    ``sweep`` is ``breadth plan --plot``'s list of points, each {"ranks", "layouts": [{"layout",
    "seconds", "comm_seconds"}]}: a layout's fastest candidate at that rank count. The file is a
    PNG, SVG or PDF, as its suffix says (``check_plot_path``).
    """
    fmt = check_plot_path(path, "plot")
    if not sweep or not any(pt["layouts"] for pt in sweep):
        raise InputError("nothing to plot: no candidate fits at any rank count")
    fig = new_figure()
    a1, a2 = fig.subplots(2, 1, sharex=True)
    names = sorted({x["layout"] for pt in sweep for x in pt["layouts"]})
    for name in names:
        pts = [(pt["ranks"], x) for pt in sweep for x in pt["layouts"] if x["layout"] == name]
        xs = [p for p, _ in pts]
        a1.plot(xs, [x["seconds"] for _, x in pts], marker="o", label=name)
        a2.plot(xs, [x["comm_seconds"] / x["seconds"] if x["seconds"] else 0.0 for _, x in pts], marker="o")
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.axvline(ranks, color="grey", linestyle="--", linewidth=1)
    a1.set_yscale("log")
    a1.set_ylabel("predicted search s")
    a1.legend(fontsize="small")
    a2.set_ylim(0, 1)
    a2.set_ylabel("communication share")
    a2.set_xlabel(f"ranks (dashed: {ranks}; each layout's fastest candidate)")
    fig.suptitle(title or "breadth plan")
    save_figure(fig, path, fmt)


def new_figure(size=(7, 6)):
    """A matplotlib Figure on its own Agg canvas (no pyplot, no backend chosen); InputError without matplotlib."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("plotting needs matplotlib: pip install 'breadth[plot]'") from None
    fig = Figure(figsize=(7, 6))
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, path, fmt) -> None:
    fig.tight_layout()
    with atomic_output(path) as f:
        fig.savefig(f, format=fmt, dpi=100)
