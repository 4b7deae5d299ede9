"""The ``breadth`` command line.

Each subcommand lives in its own module of this package, exposing
``register(subparsers)`` (adds its parser, with ``set_defaults(run=...)``).
A BreadthError anywhere becomes one line on stderr and its exit code
(``EXIT_CODES``), its API parameter names translated to flags
(``messages.translate``); the library's log records reach stderr through
``messages.library_logging``; ``--quiet`` and ``--json -`` switch progress bars
off (``breadth.progress.quiet``). ``breadth`` alone prints the command list and
exits 0.
"""
from __future__ import annotations

import importlib
import os
import sys

from .. import __version__
from ..errors import BreadthError
from ..progress import quiet
from .helpformat import Parser, examples
from .messages import library_logging, translate

# module name in breadth.cli -> registered in this order
COMMANDS = ["graph500", "bfs", "generate", "convert", "info", "msbfs", "closeness", "doctor", "cluster", "plan",
            "warmup"]

# the exit status of every command, documented in -h and docs/guide/cli.md
EXIT_CODES = {
    0: "success",
    1: "internal error (a bug, or one MPI rank failed): please report it",
    2: "bad input: usage, a missing/corrupt file, an unknown vertex, no memory",
    3: "validation failed: a BFS tree broke a Graph500 rule",
    130: "interrupted (Ctrl-C)",
    141: "the output pipe was closed (e.g. by '| head')",
}


def _epilog() -> str:
    codes = "\n".join(f"  {code:>3}  {meaning}" for code, meaning in EXIT_CODES.items())
    return (examples("breadth generate kronecker --scale 16 -o k16.npz",
                     "breadth bfs k16.npz --root 0 --validate",
                     "breadth graph500 --scale 18",
                     "breadth doctor")
            + "\n\nexit codes:\n" + codes + "\n\nEach command explains itself: breadth COMMAND -h")


def build_parser() -> Parser:
    parser = Parser(
        prog="breadth",
        description="Breadth-first search at every scale: direction-optimizing BFS, the Graph500 "
                    "benchmark, distributed and concurrent BFS.",
        epilog=_epilog(),
    )
    parser.add_argument("--version", action="version", version=f"breadth {__version__}",
                        help="print breadth's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def _quiet(args) -> bool:
    """--quiet, or JSON on stdout: no progress bars, no notes."""
    return bool(getattr(args, "quiet", False)) or getattr(args, "json", None) == "-"


def _interrupted(exc: BaseException) -> bool:
    """Ctrl-C inside Python code that a numba kernel calls reaches us as a SystemError caused by it."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def main(argv=None) -> int:
    code = _main(argv)
    if os.environ.get("BREADTH_STATUS_DIR"):        # a rank of a --ranks job: tell the launcher it is done
        from ..distributed.faults.watchdog import record_exit

        for stream in (sys.stdout, sys.stderr):       # the launcher may end the job from here on
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        record_exit(code)
    return code


def _main(argv=None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    try:
        with quiet(_quiet(args)), library_logging(quiet=_quiet(args)):
            return int(args.run(args) or 0)
    except BreadthError as exc:
        print(f"breadth {args.command}: error: {translate(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"breadth {args.command}: interrupted", file=sys.stderr)
        return 130
    except SystemError as exc:
        if not _interrupted(exc):
            raise
        print(f"breadth {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of stdout went away: stop quietly (and keep Python from complaining at exit)
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
