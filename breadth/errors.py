"""Errors breadth raises for bad input; the CLI turns them into one line and an exit code.

Each class carries the exit code the command line (and every MPI rank) returns for
it (``exit_code``): 2 for input that cannot be used, 3 for a BFS tree that failed
validation. The full table of exit codes is ``breadth.cli.EXIT_CODES``.
"""


class BreadthError(Exception):
    """Base class of every error caused by the user's input or environment.

    ``exit_code`` is the command line's exit status for it (2; 3 for a failed validation).

    Examples:
        >>> try:
        ...     breadth.bfs(breadth.Graph.from_edges([0], [1]), 5)
        ... except breadth.BreadthError as e:
        ...     print(type(e).__name__, e.exit_code)
        InputError 2
    """

    exit_code = 2


class InputError(BreadthError, ValueError):
    """Malformed or out-of-range input (a bad root, a corrupt file, a bad argument).

    Also a ``ValueError``, so code catching that keeps working.

    Examples:
        >>> breadth.bfs(breadth.Graph.from_edges([0, 1], [1, 2]), 7)
        Traceback (most recent call last):
        ...
        breadth.errors.InputError: root 7 does not exist (graph has 3 vertices: 0..2)
    """


class MemoryEstimateError(BreadthError, MemoryError):
    """The requested work would not fit in memory; raised before allocating.

    Also a ``MemoryError``.

    Examples:
        >>> breadth.kronecker(40)
        Traceback (most recent call last):
        ...
        breadth.errors.MemoryEstimateError: ...
    """


class ValidationError(BreadthError):
    """A BFS tree broke a Graph500 validation rule (``exit_code`` 3).

    Args:
        rule: the rule broken ("edge", "depth", "cycle", ...).
        vertex: the first vertex found breaking it.
        message: what is wrong.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1], [1, 2])
        >>> parent = np.array([0, 0, 0])
        >>> try:
        ...     breadth.validate(g, 0, parent)
        ... except breadth.ValidationError as e:
        ...     print(e.rule, e.vertex)
        edge 2
    """

    exit_code = 3

    def __init__(self, rule: str, vertex: int, message: str):
        super().__init__(f"validation failed [{rule}] at vertex {vertex}: {message}")
        self.rule = rule
        self.vertex = int(vertex)
