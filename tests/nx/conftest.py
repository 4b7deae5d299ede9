import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))   # shapes.py

nx = pytest.importorskip("networkx")


@pytest.fixture(autouse=True)
def quiet_cache_note():
    """networkx warns on every use of a cached conversion; the tests use it on purpose."""
    added = "cache" not in nx.config.warnings_to_ignore
    nx.config.warnings_to_ignore.add("cache")
    yield
    if added:
        nx.config.warnings_to_ignore.discard("cache")
