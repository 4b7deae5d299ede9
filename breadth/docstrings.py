"""Docstrings composed from shared parts, as pandas composes its ``_shared_docs``.

Functions of one family (the networkx backend's, the many-source reducers, the converters)
take parameters of the same meaning; each meaning is written once, in a table, and
``shared_args`` completes every docstring from it: its Args section lists the signature's
parameters in order, each with the function's own description when its docstring has one,
else the table's. A parameter with neither is an error when the module is imported, so no
rendered docstring lacks one. The API reference shows the composed text
(``docs_tools/griffe_composed.py`` hands it to mkdocstrings) and the doctests run it.
"""
from __future__ import annotations

import inspect
import re
import textwrap

WIDTH = 100        # a composed entry's lines are wrapped to this width
_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Yields|Raises|Examples|Notes|Attributes):\s*$")
_ENTRY = re.compile(r"^    (\*{0,2}\w+)( \([^)]*\))?:(.*)$")


def _sections(doc: str) -> tuple[list[str], dict[str, list[str]], list[str]]:
    """(lines before the first section, {section title: its lines}, section titles in order)."""
    head, sections, order, current = [], {}, [], None
    for line in doc.splitlines():
        m = _SECTION.match(line)
        if m:
            current = m.group(1)
            order.append(current)
            sections[current] = []
        elif current is None:
            head.append(line)
        else:
            sections[current].append(line)
    return head, sections, order


def _entries(lines: list[str]) -> dict[str, list[str]]:
    """{parameter name without stars: its entry's lines} of an Args section."""
    out, name = {}, None
    for line in lines:
        m = _ENTRY.match(line)
        if m:
            name = m.group(1).lstrip("*")
            out[name] = [line]
        elif name is not None and line.strip():
            out[name].append(line)
    return out


def _stars(param: inspect.Parameter) -> str:
    return {param.VAR_POSITIONAL: "*", param.VAR_KEYWORD: "**"}.get(param.kind, "")


def compose(func, table: dict[str, str], preamble: str | None = None, sections: dict[str, str] | None = None) -> str:
    """``func``'s docstring with every parameter described (its own words first, then ``table``'s).

    Args:
        func: a function with a Google-style docstring.
        table: parameter name -> description, for the parameters its docstring leaves out.
        preamble: a paragraph put after the summary line (None: none).
        sections: section title -> its text, for the sections the docstring lacks (a family's
            Raises, say), put before its Examples.

    Returns:
        The composed docstring (dedented).

    Raises:
        TypeError: a parameter is described neither by the docstring nor by ``table``.

    Examples:
        >>> from breadth.docstrings import compose
        >>> def f(graph, k):
        ...     '''Count.
        ...
        ...     Args:
        ...         k: how many.
        ...     '''
        >>> print(compose(f, {"graph": "a breadth.Graph."}))
        Count.
        <BLANKLINE>
        Args:
            graph: a breadth.Graph.
            k: how many.
    """
    head, body_of, order = _sections(inspect.cleandoc(func.__doc__ or ""))
    own = _entries(body_of.get("Args", []))
    args = []
    for i, (name, param) in enumerate(inspect.signature(func).parameters.items()):
        if i == 0 and name in ("self", "cls"):
            continue
        if name in own:
            args += own[name]
        elif name in table:
            args += textwrap.wrap(f"{_stars(param)}{name}: {table[name]}", WIDTH, initial_indent="    ",
                                  subsequent_indent="        ")
        elif not name.startswith("_"):
            raise TypeError(f"{func.__qualname__}: no description of parameter {name!r}")
    while head and not head[-1].strip():
        head.pop()
    if preamble:
        cut = head.index("") if "" in head else len(head)
        head[cut:cut] = ["", *inspect.cleandoc(preamble).splitlines()]
    if "Args" not in order:
        order.insert(0, "Args")
    for title, text in (sections or {}).items():
        if title not in order:
            order.insert(order.index("Examples") if "Examples" in order else len(order), title)
            sections_text = ["    " + line for line in inspect.cleandoc(text).splitlines()]
            body_of[title] = sections_text
    parts = ["\n".join(head)]
    for title in order:
        body = args if title == "Args" else body_of[title]
        while body and not body[-1].strip():
            body = body[:-1]
        if body:
            parts.append("\n".join([f"{title}:", *body]))
    return "\n\n".join(parts) + "\n"


def shared_args(table: dict[str, str], preamble: str | None = None, sections: dict[str, str] | None = None):
    """A decorator that completes a function's docstring by ``compose`` (see the module header).

    Args:
        table: parameter name -> description, shared by the family.
        preamble: a paragraph after each summary line (None: none).
        sections: section title -> text, for the sections a docstring lacks.

    Returns:
        The decorator; it returns the function itself, its ``__doc__`` composed.

    Examples:
        >>> from breadth.docstrings import shared_args
        >>> @shared_args({"graph": "a breadth.Graph."})
        ... def order(graph):
        ...     '''Its vertex count.
        ...
        ...     Returns:
        ...         An int.
        ...     '''
        >>> print(order.__doc__)
        Its vertex count.
        <BLANKLINE>
        Args:
            graph: a breadth.Graph.
        <BLANKLINE>
        Returns:
            An int.
    """
    def decorate(func):
        func.__doc__ = compose(func, table, preamble, sections)
        return func

    return decorate
