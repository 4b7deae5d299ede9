"""Plots of BFS runs (matplotlib, optional): frontier size and time per level."""
from __future__ import annotations

import os

from .errors import InputError


def plot_levels(searches: list[dict], path: str, title: str = "") -> None:
    """Frontier vertices (log) and seconds per level, for the median-time search of ``searches``.

    ``searches`` are BFSResult.summary() dicts (optionally with a "time" key).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plotting needs matplotlib: pip install 'breadth[plot]'") from None
    if not searches:
        raise InputError("nothing to plot")
    ordered = sorted(searches, key=lambda s: s.get("time", s.get("seconds", 0.0)))
    s = ordered[len(ordered) // 2]
    levels = s["levels"]
    xs = [lv["level"] for lv in levels]
    colors = ["tab:blue" if lv["direction"] == "top-down" else "tab:orange" for lv in levels]
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    a1.bar(xs, [max(lv["frontier"], 1) for lv in levels], color=colors)
    a1.set_yscale("log")
    a1.set_ylabel("frontier vertices")
    a2.bar(xs, [lv["seconds"] * 1e3 for lv in levels], color=colors)
    a2.set_ylabel("ms")
    a2.set_xlabel("level (blue: top-down, orange: bottom-up)")
    fig.suptitle(title or f"BFS from {s['roots'][0]}")
    fig.tight_layout()
    tmp = f"{path}.tmp{os.getpid()}.png"
    try:
        fig.savefig(tmp, dpi=100)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)
