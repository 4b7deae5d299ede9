"""How every ``breadth`` help page and usage error looks.

* ``HelpFormatter``: each option's default is shown once, as ``(default: X)``,
  and only when it says something: not for unset options (``None``), flags
  (``False``/``True``) or help texts that already speak of their default;
  required options end in ``(required)``. Descriptions are wrapped to the
  terminal; an epilog that starts with ``examples:`` keeps its lines as written.
* ``Parser``: an ArgumentParser whose usage errors end with a hint to the
  command's ``-h`` page (exit code 2, as argparse's).
* ``examples(...)``: the epilog of a command, one example command per line.
"""
from __future__ import annotations

import argparse
import re
import sys

EXAMPLES = "examples:"
_SAYS_DEFAULT = re.compile(r"\bdefault\b|\bunset\b", re.IGNORECASE)


def show_default(action: argparse.Action) -> bool:
    """Whether ``action``'s help should end with its default."""
    default = action.default
    if action.help is None or action.help is argparse.SUPPRESS or action.required:
        return False
    if default is None or default is argparse.SUPPRESS or isinstance(default, bool):
        return False
    if not action.option_strings and action.nargs not in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
        return False     # a positional argument the user must give
    if isinstance(action, (argparse._StoreConstAction, argparse._CountAction, argparse._HelpAction,
                           argparse._VersionAction)):
        return False
    return not _SAYS_DEFAULT.search(action.help)


def format_default(value) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (list, tuple)):
        value = " ".join(map(str, value))
    return str(value).replace("%", "%%")


class HelpFormatter(argparse.HelpFormatter):
    """See the module docstring."""

    def __init__(self, prog, indent_increment=2, max_help_position=28, width=None):
        super().__init__(prog, indent_increment, max_help_position, width)

    def add_argument(self, action):
        super().add_argument(action)
        # argparse measures a command list's entries without their indent: long names then wrap
        if action.help is not argparse.SUPPRESS and hasattr(action, "_get_subactions"):
            indent = self._current_indent + self._indent_increment
            for sub in action._get_subactions():
                length = len(self._format_action_invocation(sub)) + indent
                self._action_max_length = max(self._action_max_length, length)

    def _get_help_string(self, action):
        text = action.help or ""
        if action.required and action.option_strings:
            return f"{text} (required)"
        if show_default(action):
            return f"{text} (default: {format_default(action.default)})"
        return text

    def _fill_text(self, text, width, indent):
        if text.startswith(EXAMPLES):
            return "\n".join(indent + line if line else line for line in text.splitlines())
        return super()._fill_text(text, width, indent)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser with breadth's help formatter whose usage errors point at ``-h``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} -h')\n")


def examples(*lines: str) -> str:
    """An epilog listing example command lines (kept as written by ``HelpFormatter``)."""
    return EXAMPLES + "\n" + "\n".join(f"  {line}" for line in lines)
