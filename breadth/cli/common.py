"""Helpers shared by CLI subcommands."""
from __future__ import annotations

import json
import sys

from ..errors import InputError
from ..graph.io._common import atomic_output


def write_json(path: str, payload) -> None:
    """Write JSON to ``path`` atomically, or to stdout when path is '-'."""
    text = json.dumps(payload, indent=2, default=_default)
    if path == "-":
        print(text)
        return
    with atomic_output(path, "w") as f:
        f.write(text + "\n")


def save_npy(path: str, array) -> None:
    """Write one array as .npy atomically (no partial file is ever left behind)."""
    import numpy as np

    with atomic_output(path) as f:
        np.save(f, array)


def _default(o):
    import numpy as np

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def set_threads(n):
    """Apply --threads (numba's thread count for this process)."""
    if n is None:
        return
    import numba

    if n < 1 or n > numba.config.NUMBA_NUM_THREADS:
        raise InputError(f"--threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {n}")
    numba.set_num_threads(n)


def add_threads_option(p):
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="numba threads to use (default: all cores; NUMBA_NUM_THREADS caps it)")


def add_search_options(p):
    p.add_argument("--algorithm", choices=("do", "td", "bu"), default="do",
                   help="do: direction-optimizing (default); td: top-down only; bu: bottom-up only")
    p.add_argument("--alpha", type=float, default=15.0,
                   help="switch top-down -> bottom-up when frontier edges > unexplored edges / alpha "
                        "(default 15)")
    p.add_argument("--beta", type=float, default=18.0,
                   help="switch back to top-down when the frontier has < n / beta vertices (default 18)")


def eprint(*args):
    print(*args, file=sys.stderr)


def open_graph(path: str, directed=None):
    """Open a graph file in any format breadth reads (see ``breadth.read``)."""
    from ..graph.io import read

    return read(path) if directed is None else read(path, directed=directed)
