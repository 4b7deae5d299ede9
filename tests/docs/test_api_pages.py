"""Every public name has an entry in the API reference (docs/api/*.md).

A public name is one listed in ``__all__`` of ``breadth`` or of a subpackage users import.
It is documented when some API page has a ``::: dotted.path`` entry (mkdocstrings renders it
from the docstring) whose object is that name's object: a name exported by two modules
(``breadth.Graph`` is ``breadth.graph.Graph``) needs one entry. A new public name without
an entry fails here, and an entry that names nothing fails the strict site build.
"""
import importlib
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))    # api_objects.py
from api_objects import NEEDS_CUDA, PUBLIC, entries, resolve  # noqa: E402


def test_every_entry_resolves():
    for path in entries():
        if path in NEEDS_CUDA.values():
            continue
        resolve(path)


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_name_has_an_entry(module):
    mod = importlib.import_module(module)
    documented = {}
    for path in entries():
        if path not in NEEDS_CUDA.values():
            documented.setdefault(id(resolve(path)), path)
    missing = []
    for name in mod.__all__:
        if (module, name) in NEEDS_CUDA:
            if NEEDS_CUDA[module, name] not in entries():
                missing.append(name)
            continue
        if id(getattr(mod, name)) not in documented:
            missing.append(name)
    assert not missing, f"{module}: public names without an entry in docs/api/*.md: {missing}"


def test_the_check_catches_a_missing_name(monkeypatch):
    import breadth

    monkeypatch.setattr(breadth, "__all__", breadth.__all__ + ["omp_env"], raising=True)
    with pytest.raises(AssertionError, match="omp_env"):
        test_every_public_name_has_an_entry("breadth")
