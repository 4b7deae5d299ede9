"""Errors breadth raises for bad input; the CLI turns them into one line and an exit code.

Each class carries the exit code the command line (and every MPI rank) returns for
it (``exit_code``): 2 for input that cannot be used, 3 for a BFS tree that failed
validation. The full table of exit codes is ``breadth.cli.EXIT_CODES``.
"""


class BreadthError(Exception):
    """Base class of every error caused by the user's input or environment."""

    exit_code = 2


class InputError(BreadthError, ValueError):
    """Malformed or out-of-range input (a bad root, a corrupt file, a bad argument)."""


class MemoryEstimateError(BreadthError, MemoryError):
    """The requested work would not fit in memory; raised before allocating."""


class ValidationError(BreadthError):
    """A BFS tree broke a Graph500 validation rule.

    ``rule`` names the rule, ``vertex`` the first vertex found breaking it.
    """

    exit_code = 3

    def __init__(self, rule: str, vertex: int, message: str):
        super().__init__(f"validation failed [{rule}] at vertex {vertex}: {message}")
        self.rule = rule
        self.vertex = int(vertex)
