"""The one progress bar of breadth: tqdm on stderr, on a terminal only.

Every long piece of work (reading and building a graph, writing one, the
Graph500 searches and validations, the groups of a many-source run, generating)
asks ``bar(total, desc, progress)`` for its bar. ``progress`` is the caller's
wish:

* ``None`` (the default of the library functions): a bar when stderr is a
  terminal and bars are not switched off (``quiet``), shown only once the work
  has taken ``DELAY`` seconds, so quick work stays silent;
* ``True``: a bar now, unless switched off (tests and scripts that want one);
* ``False``: no bar.

``quiet()`` switches every bar off for the duration of a ``with`` block: the
command line wraps a command in it for ``--quiet`` and ``--json -``. A disabled
bar is a real tqdm object that draws nothing, so callers never test for it.
Without tqdm installed (a bare GPU image, say) ``bar`` returns a ``NoBar`` with the
same calls, and a wanted bar is reported once on the ``breadth.progress`` logger.
"""
from __future__ import annotations

import contextlib
import logging
import sys

DELAY = 1.0      # seconds of work before a bar appears (progress=None)
SCALED = 100_000  # totals from here up are shown scaled (1.5M); below, counts are plain integers
_QUIET = [0]     # depth of nested quiet() blocks
_WARNED = [False]
log = logging.getLogger(__name__)


class NoBar:
    """A bar that draws nothing, for when tqdm is missing: counts ``update``s, accepts tqdm's other calls."""

    disable = True

    def __init__(self, total=None, initial: int = 0):
        self.total, self.n = total, initial

    def update(self, n=1):
        self.n += n

    def __getattr__(self, name):          # set_description_str, set_postfix, refresh, close, ...
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def quiet(enabled: bool = True):
    """No progress bars inside this block (when ``enabled``); blocks nest.

    The command line wraps a command in it for ``--quiet`` and ``--json -``.

    Args:
        enabled: switch the bars off (False: a block that changes nothing).

    Examples:
        >>> from breadth.progress import quiet, wanted
        >>> with quiet():
        ...     wanted(True)
        False
        >>> wanted(True)
        True
    """
    _QUIET[0] += bool(enabled)
    try:
        yield
    finally:
        _QUIET[0] -= bool(enabled)


def is_quiet() -> bool:
    return _QUIET[0] > 0


def wanted(progress=None) -> bool:
    """Whether a bar would be drawn for this wish (see the module docstring).

    Args:
        progress: None (a bar when stderr is a terminal), True (a bar) or False (none).

    Returns:
        False inside ``quiet()`` or for ``progress=False``; else True for ``progress=True``
            and, for None, whether stderr is a terminal.

    Examples:
        >>> from breadth.progress import wanted
        >>> wanted(True), wanted(False)
        (True, False)
    """
    if progress is False or is_quiet():
        return False
    return bool(progress) or _isatty(sys.stderr)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def bar(total=None, desc: str = "", progress=None, *, unit: str = "it", initial: int = 0, leave: bool = False):
    """A tqdm bar on stderr counting ``total`` units (None: a counter without an end).

    Bytes are shown scaled by 1024 (KiB, MiB); other counts as integers (``50/128``), scaled by
    1000 (``1.5M``) only from ``SCALED`` up. A bar that is not wanted (see ``wanted``) is a real
    tqdm object that draws nothing, so callers never test for it; without tqdm installed it is a
    ``NoBar`` with the same calls.

    Args:
        total: the units of the whole work, or None.
        desc: the text before the bar.
        progress: the caller's wish: None a bar on a terminal after ``DELAY`` seconds of work,
            True a bar now, False none (and none inside ``quiet()``).
        unit: the unit shown ("B" for bytes).
        initial: units already done (a resumed run).
        leave: keep the finished bar on the screen.

    Returns:
        The bar (a context manager with ``update(n)``).

    Examples:
        >>> from breadth.progress import bar
        >>> with bar(3, "steps", progress=False) as b:
        ...     for _ in range(3):
        ...         _ = b.update()
        >>> b.total, b.disable
        (3, True)
    """
    show = wanted(progress)
    try:
        from tqdm import tqdm
    except ImportError:
        if show and not _WARNED[0]:
            _WARNED[0] = True
            log.warning("no progress bars: tqdm is not installed (pip install tqdm)")
        return NoBar(total, initial)
    extra = {"bar_format": "{desc} ({elapsed})"} if total is None else {}
    scaled = unit == "B" or (total is not None and total >= SCALED)
    return tqdm(total=total, desc=desc, unit=unit, initial=initial, unit_scale=scaled,
                unit_divisor=1024 if unit == "B" else 1000, disable=not show, file=sys.stderr,
                delay=DELAY if progress is None else 0.0, leave=leave, dynamic_ncols=True, **extra)
