"""breadth.docstrings: a family's shared parameter descriptions complete each docstring."""
import pytest

from breadth.docstrings import compose, shared_args


def test_own_entries_win_and_the_table_fills_in_signature_order():
    def f(graph, k, *rest, **options):
        """Count.

        Args:
            k: how many.

        Examples:
            >>> 1
            1
        """

    doc = compose(f, {"graph": "a graph.", "k": "never used.", "rest": "more.", "options": "see there."},
                  preamble="Shared words.")
    assert doc == ("Count.\n\nShared words.\n\nArgs:\n    graph: a graph.\n    k: how many.\n    *rest: more.\n"
                   "    **options: see there.\n\nExamples:\n    >>> 1\n    1\n")


def test_a_parameter_described_nowhere_is_an_error_at_import():
    with pytest.raises(TypeError, match="no description of parameter 'k'"):
        @shared_args({"graph": "a graph."})
        def f(graph, k):
            """Count."""


def test_shared_sections_fill_only_what_is_missing():
    @shared_args({}, sections={"Raises": "InputError: bad.", "Returns": "never used."})
    def f():
        """Nothing.

        Returns:
            Its own.

        Examples:
            >>> f()
        """

    assert f.__doc__ == ("Nothing.\n\nReturns:\n    Its own.\n\nRaises:\n    InputError: bad.\n\n"
                         "Examples:\n    >>> f()\n")
