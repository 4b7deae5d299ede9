"""Helpers shared by CLI subcommands."""
from __future__ import annotations

import json
import logging
import sys

from ..errors import InputError
from ..files import atomic_output, json_default
from ..kernels.policy import ALGORITHM_HELP, ALGORITHMS, ALPHA, BETA, DIRECTION_OPTIMIZING

NOTE_COMPILE_SECONDS = 0.5     # compiling/loading at least this long gets a note after the command's work
DEFAULT_ALGORITHM = next(name for name, mode in ALGORITHMS.items() if mode == DIRECTION_OPTIMIZING)

_SWITCH_HELP = {
    False: ("switch top-down -> bottom-up when frontier edges > unexplored edges / alpha",
            "switch back to top-down when the frontier has < n / beta vertices"),
    True: ("a group goes bottom-up when its joint frontier's out-edges exceed the in-edges of vertices not "
           "yet reached by all its sources / alpha",
           "and back top-down when its joint frontier shrinks below n / beta vertices"),
}


def write_json(path: str, payload) -> None:
    """Write JSON to ``path`` atomically, or to stdout when path is '-'."""
    text = json.dumps(payload, indent=2, default=json_default)
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


def set_threads(n):
    """Apply --threads (numba's thread count for this process)."""
    if n is None:
        return
    import numba

    if n < 1 or n > numba.config.NUMBA_NUM_THREADS:
        raise InputError(f"--threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {n}")
    numba.set_num_threads(n)


def add_graph_argument(p, text_options: bool = True):
    p.add_argument("graph", metavar="GRAPH", help="graph file (.npz native, or another supported format)")
    if text_options:
        add_text_options(p)


def add_text_options(p):
    """--header/--no-header and --allow-empty: how a text edge list is read (``open_graph`` applies them)."""
    h = p.add_mutually_exclusive_group()
    h.add_argument("--header", dest="header", action="store_const", const=True, default=None,
                   help="edge lists: the first data line names the columns; skip it (default: skipped when it "
                        "differs in kind from the other lines, e.g. 'source,target' above numeric ids; in a "
                        "file of vertex names a header cannot be told, so say it)")
    h.add_argument("--no-header", dest="header", action="store_const", const=False,
                   help="edge lists: the first data line is an edge, even when it differs from the others")
    p.add_argument("--allow-empty", action="store_true",
                   help="accept a graph file without edges or vertices (default: an error)")


def add_max_depth_option(p, meaning: str):
    p.add_argument("--max-depth", type=int, default=None, metavar="D", help=meaning)


def add_threads_option(p):
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="numba threads to use (default: all cores; NUMBA_NUM_THREADS caps it)")


def add_json_option(p, what: str = "the result"):
    p.add_argument("--json", metavar="FILE", nargs="?", const="-", default=None,
                   help=f"write {what} as JSON to FILE, or to stdout when FILE is left out or '-' "
                        "(then nothing else is printed)")


def add_quiet_option(p, what: str = "no progress bars or notes on stderr (errors still show)"):
    p.add_argument("-q", "--quiet", action="store_true", help=what)


def add_device_option(p):
    """--device: where the searches run (the library's ``device=``)."""
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="cpu: numba kernels; cuda: the GPU kernels (needs the 'cuda' extra and an NVIDIA "
                        "GPU, or NUMBA_ENABLE_CUDASIM=1 for numba-cuda's simulator)")


def add_search_options(p, per_group: bool = False):
    """--algorithm, --alpha, --beta: the direction policy's choices and defaults (``kernels.policy``).

    ``per_group``: the wording of the many-source commands, where each group decides alone.
    (The help formatter, ``helpformat.HelpFormatter``, shows the defaults.)
    """
    names = [f"{name}: {ALGORITHM_HELP[name]}" + (" per group" if per_group and name == DEFAULT_ALGORITHM else "")
             for name in ALGORITHMS]
    alpha_help, beta_help = _SWITCH_HELP[per_group]
    p.add_argument("--algorithm", choices=tuple(ALGORITHMS), default=DEFAULT_ALGORITHM, help="; ".join(names))
    p.add_argument("--alpha", type=float, default=ALPHA, help=alpha_help)
    p.add_argument("--beta", type=float, default=BETA, help=beta_help)


def run_on_ranks(parser, args, command: str, body) -> int:
    """Run ``body(comm)`` on every MPI rank of this job under the distributed failure guard
    (``distributed.runtime.guarded``); with ``--ranks P``, start ``mpiexec -n P`` with this same
    command line instead (``parser`` rebuilds it) and return its exit status."""
    if args.ranks is not None:
        from ..distributed.launch import relaunch

        return relaunch(parser, args, command)
    from ..distributed.comm import Comm
    from ..distributed.runtime import guarded
    from .messages import translate

    comm = Comm()
    return guarded(comm, lambda: body(comm), command, translate)


def note_compile(seconds: float) -> None:
    """Note (INFO: a terminal, not --quiet) the seconds numba spent compiling or loading kernels, left out of
    every time the command reports."""
    if seconds >= NOTE_COMPILE_SECONDS:
        logging.getLogger("breadth.cli").info("note: %.1f s went to compiling and loading kernels, not counted "
                                              "in the reported seconds", seconds)


def eprint(*args):
    print(*args, file=sys.stderr)


def open_graph(path: str, directed=None, args=None):
    """Open a graph file in any format breadth reads (see ``breadth.read``), with the text options of
    ``args`` (``add_text_options``) when given."""
    from ..graph.io import read

    kw = {} if directed is None else {"directed": directed}
    if args is not None and hasattr(args, "allow_empty"):
        kw.update(header=args.header, allow_empty=args.allow_empty)
    return read(path, **kw)


def wrote_plot(args) -> None:
    """Say where the plot went (stderr when stdout carries the JSON)."""
    import os
    import sys

    print(f"plot written to {os.path.abspath(args.plot)}", file=sys.stderr if args.json == "-" else sys.stdout,
          flush=True)
