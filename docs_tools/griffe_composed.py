"""A griffe extension: the API reference shows the docstrings ``breadth.docstrings`` composes.

griffe reads the source, where a function of a family (``breadth.nx``'s, the reducers, the
converters) writes only its own part of its docstring; the shared parts are added when the
module is imported. For a function decorated by one of ``decorators`` (by name), and for a
method with no docstring of its own that overrides a documented one (``inspect.getdoc``
inherits it, griffe does not), this extension imports its module and gives mkdocstrings
the docstring Python sees.
"""
from __future__ import annotations

import importlib
import inspect

import griffe


class ComposedDocstrings(griffe.Extension):
    """Replace the source docstring of functions with composing decorators by the runtime one."""

    def __init__(self, decorators: list[str], inherit_in: list[str]) -> None:
        super().__init__()
        self.decorators = set(decorators)
        self.inherit_in = tuple(inherit_in)        # packages whose methods may inherit a docstring

    def on_function_instance(self, *, node, func: griffe.Function, agent, **kwargs) -> None:
        names = {str(d.callable_path).rsplit(".", 1)[-1] for d in func.decorators}
        inherits = (func.docstring is None and isinstance(func.parent, griffe.Class) and bool(func.parent.bases)
                    and func.module.path.startswith(self.inherit_in))
        if not (names & self.decorators or inherits):
            return
        obj = importlib.import_module(func.module.path)
        for part in func.path[len(func.module.path) + 1:].split("."):
            obj = getattr(obj, part)
        doc = inspect.getdoc(obj.fget if isinstance(obj, property) else obj)
        if doc:
            func.docstring = griffe.Docstring(doc, lineno=func.lineno, parent=func,
                                              parser=agent.docstring_parser, parser_options=agent.docstring_options)
