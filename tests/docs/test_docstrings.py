"""Every object of the API reference documents its parameters, its result and an example.

The objects are the ``::: dotted.path`` entries of docs/api/*.md (see test_api_pages.py) that
name a function or a class (a module's entry shows its header).
Their docstrings are parsed as mkdocstrings renders them (griffe's Google-style parser) and
must have:

* an Examples section with a ``>>>`` example (test_doctests.py runs them);
* an Args section naming every parameter of the signature, ``*args``/``**options`` included
  (a class: its constructor's, in Args or Attributes); keyword-only names starting with ``_``
  are internal and need none;
* for the methods a class entry renders: Args and Returns by the same rules (a property is
  described by its summary line; examples are optional), the layout authors' interface
  (``Comm``, ``Partition``, ``Ranges``, ``OneD``, ``Exchange``) included;
* a Returns (or Yields) section when a function returns a value: a return annotation other
  than None, or a ``return``/``yield`` of a value in its body; one entry, since a wrapped
  line indented like the first one renders as a second returned value.
"""
import ast
import inspect
import os
import sys
import textwrap

import pytest

griffe = pytest.importorskip("griffe")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))    # api_objects.py
from api_objects import NEEDS_CUDA, entries, rendered_members, resolve  # noqa: E402
from test_doctests import cuda_usable  # noqa: E402


def sections(doc):
    """{section kind: [section]} of a Google-style docstring, as mkdocstrings parses it."""
    parsed = griffe.Docstring(doc or "", lineno=1).parse("google", warn_unknown_params=False)
    found = {}
    for section in parsed:
        found.setdefault(section.kind.value, []).append(section)
    return found


def documented_names(found, kinds):
    names = set()
    for kind in kinds:
        for section in found.get(kind, []):
            names |= {p.name.lstrip("*") for p in section.value}
    return names


def parameters(func, skip_first):
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return []
    if skip_first and params and params[0].name in ("self", "cls"):
        params = params[1:]
    return [p.name for p in params if not p.name.startswith("_")]


def returns_value(func):
    """True when ``func`` gives its caller a value (annotation, or a return/yield of one)."""
    func = inspect.unwrap(func)
    ann = inspect.signature(func).return_annotation
    if ann not in (inspect.Signature.empty,):
        return ann not in (None, "None")
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return False
    return any(node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None)
               for node in own_nodes(tree.body[0]) if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)))


def own_nodes(func):
    """The nodes of a function's body, without those of functions or classes nested in it."""
    stack = list(func.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def problems(path):
    obj = resolve(path)
    doc = inspect.getdoc(obj)
    found = sections(doc)
    missing = []
    examples = [text for section in found.get("examples", []) for kind, text in section.value]
    if not any(">>>" in text for text in examples):
        missing.append("an Examples section with a >>> example")
    if inspect.isclass(obj):
        internal = getattr(obj, "_is_protocol", False) or issubclass(obj, BaseException) and "__init__" not in vars(obj)
        names = [] if internal else parameters(obj, skip_first=False)
        undocumented = [n for n in names if n not in documented_names(found, ("parameters", "attributes"))]
        if undocumented:
            missing.append(f"Args or Attributes for {undocumented}")
        return missing
    names = parameters(obj, skip_first=False)
    undocumented = [n for n in names if n not in documented_names(found, ("parameters", "other parameters"))]
    if undocumented:
        missing.append(f"Args for {undocumented}")
    if returns_value(obj) and not (found.get("returns") or found.get("yields")):
        missing.append("a Returns section")
    for kind in ("returns", "yields"):
        if any(len(section.value) > 1 for section in found.get(kind, [])):
            missing.append(f"one {kind} entry (indent a wrapped line of its description by 4 more spaces)")
    return missing


def paths():
    """The entries naming a function or a class, each once (a module entry shows its header)."""
    seen = []
    for path in entries():
        if path not in seen and (path in NEEDS_CUDA.values() or not inspect.ismodule(resolve(path))):
            seen.append(path)
    return seen


def method_problems(path):
    """What the rendered methods of a class entry lack, as "Class.method: what" lines."""
    cls = resolve(path)
    lines = []
    for name, member in rendered_members(path, cls):
        if isinstance(member, property):
            continue
        func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
        found = sections(inspect.getdoc(func))
        names = parameters(func, skip_first=not isinstance(member, staticmethod))
        undocumented = [n for n in names if n not in documented_names(found, ("parameters",))]
        lacks = [f"Args for {undocumented}"] if undocumented else []
        if returns_value(func) and not (found.get("returns") or found.get("yields")):
            lacks.append("a Returns section")
        if any(len(section.value) > 1 for section in found.get("returns", [])):
            lacks.append("one returns entry")
        if lacks:
            lines.append(f"{name}: " + "; ".join(lacks))
    return lines


CLASSES = [p for p in paths() if p not in NEEDS_CUDA.values() and isinstance(resolve(p), type)]


@pytest.mark.parametrize("path", CLASSES)
def test_methods_are_documented(path):
    lacking = method_problems(path)
    assert not lacking, f"{path}: " + "\n".join(lacking)


@pytest.mark.parametrize("path", paths())
def test_docstring_is_complete(path):
    if path in NEEDS_CUDA.values() and not cuda_usable():
        pytest.skip("needs numba-cuda with a GPU or NUMBA_ENABLE_CUDASIM=1")
    missing = problems(path)
    assert not missing, f"{path}: the docstring lacks " + "; ".join(missing)


def test_the_check_catches_a_thin_docstring(monkeypatch):
    def thin(graph, k, **options):
        """Only a summary line."""
        return k

    def full(graph, k, **options):
        """A summary line.

        Args:
            graph: a graph.
            k: a count.
            **options: none.

        Returns:
            k.

        Examples:
            >>> full(None, 1)
            1
        """
        return k

    def wrapped(x):
        """Two results.

        Args:
            x: a number.

        Returns:
            x, and on a wrapped line not indented further
            the same x.

        Examples:
            >>> wrapped(1)
            1
        """
        return x

    api = {"thin": thin, "full": full, "wrapped": wrapped}
    monkeypatch.setitem(globals(), "resolve", api.__getitem__)
    assert problems("full") == []
    assert problems("thin") == ["an Examples section with a >>> example", "Args for ['graph', 'k', 'options']",
                                "a Returns section"]
    assert problems("wrapped") == ["one returns entry (indent a wrapped line of its description by 4 more spaces)"]


def test_the_method_check_catches_an_undocumented_method(monkeypatch):
    class Thing:
        def grow(self, by):
            """Grow."""
            return by

    monkeypatch.setitem(globals(), "resolve", {"Thing": Thing}.__getitem__)
    assert method_problems("Thing") == ["grow: Args for ['by']; a Returns section"]
