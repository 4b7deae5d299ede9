"""What the command line shows of the library's messages.

Library errors and notes speak of API parameters (``relabel=True``,
``num_vertices=N``, ``max_depth``); on the command line ``translate`` names the
flags instead (``--relabel``, ``--vertices N``, ``--max-depth``). The library
does not print: it logs on the ``breadth`` loggers, and ``library_logging``
installs, for the duration of one command, the handler that decides what
reaches stderr: records of level INFO and above when stderr is a terminal (the
read summary of a graph file, its notes), WARNING and above otherwise, ERROR and
above with ``quiet`` (``--quiet``, ``--json -``), each as its translated message
on one line.
"""
from __future__ import annotations

import contextlib
import logging
import re
import sys

# (API wording, CLI wording), applied in order: specific forms before general ones; the distributed
# layouts' parameters add their own (``Param.translations``) once the layouts are loaded
TRANSLATIONS = [
    (r"\bformat='([\w-]+)'", r"--from \1"),
    (r"\bpass format=", "pass --from/--to"),
    (r"\boriginal_ids=True", "--original-ids"),
    (r"\boriginal_ids applies", "--original-ids applies"),
    (r"\bnum_vertices=(\d+)", r"--vertices \1"),
    (r"\bnum_vertices\b", "--vertices"),
    (r"\brelabel=True", "--relabel"),
    (r"\bdirected=True", "--directed"),
    (r"\bdirected=False", "--undirected"),
    (r"\bmax_depth\b", "--max-depth"),
    (r"\bdevice='cuda'", "--device cuda"),
    (r"\balpha and beta\b", "--alpha and --beta"),
    (r"\balpha=", "--alpha="),
    (r"\bbeta=", "--beta="),
    (r"^group size must", "--group-size must"),
    (r"^words must", "--words must"),
    (r"^nroots must", "--roots must"),
    (r"^stall_timeout must", "--stall-timeout must"),
    (r"^threads must", "--threads must"),
]
_COMPILED = [(re.compile(api), cli) for api, cli in TRANSLATIONS]


def translate(message: str) -> str:
    """A library message with its API parameter names replaced by the CLI's flags."""
    for pattern, cli in _COMPILED + _layout_translations():
        message = pattern.sub(cli, message)
    return message


def _layout_translations() -> list:
    """The registered layouts' (pattern, CLI wording) pairs, without loading any layout."""
    registry = sys.modules.get("breadth.distributed.registry")
    if registry is None:
        return []
    return [(re.compile(api), cli) for api, cli in registry.translations()]


class StderrHandler(logging.Handler):
    """Writes each record's translated message as one line to the current ``sys.stderr``."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(translate(record.getMessage()) + "\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - logging's contract: report, never raise
            self.handleError(record)


@contextlib.contextmanager
def library_logging(quiet: bool = False):
    """Show the library's log records on stderr while a command runs (see the module docstring)."""
    logger = logging.getLogger("breadth")
    level = logging.ERROR if quiet else logging.INFO if sys.stderr.isatty() else logging.WARNING
    handler = StderrHandler(level)
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(handler.level)
    logger.propagate = False
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
