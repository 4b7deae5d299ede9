"""Shared by the reader tests: a file that ``breadth.read`` refuses, with the message expected."""
import pytest

from breadth import InputError
from breadth.graph.io import read


def read_fails(path, pattern, **options):
    """Assert that ``read(path, **options)`` raises InputError matching ``pattern``; returns the message."""
    with pytest.raises(InputError, match=pattern) as info:
        read(path, **options)
    return str(info.value)
