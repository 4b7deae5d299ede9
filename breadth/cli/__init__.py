"""The ``breadth`` command line.

Each subcommand lives in its own module of this package, exposing
``register(subparsers)`` (adds its parser, with ``set_defaults(run=...)``).
A BreadthError anywhere becomes one line on stderr and exit code 2, its API
parameter names translated to flags (``messages.translate``); the library's
log records reach stderr through ``messages.library_logging``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import BreadthError
from .messages import library_logging, translate

# module name in breadth.cli -> registered in this order
COMMANDS = ["graph500", "bfs", "generate", "convert", "info", "msbfs", "closeness"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="breadth",
        description="Breadth-first search at every scale: direction-optimizing BFS, the Graph500 "
                    "benchmark, distributed and concurrent BFS.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with library_logging():
            return int(args.run(args) or 0)
    except BreadthError as exc:
        print(f"breadth {args.command}: error: {translate(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"breadth {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
