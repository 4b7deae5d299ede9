"""breadth's module-level imports form no cycle.

The import graph is read from the source with ``ast`` (nothing is imported): an edge
A -> B for every module-level ``import``/``from ... import`` in A naming breadth module B
(statements inside functions are deferred imports and do not count; a ``from P import x``
where x is a submodule of P is an edge to P.x, otherwise to P).
"""
import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "breadth")


def modules() -> dict[str, str]:
    """Module name -> file path for every breadth module."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(PACKAGE):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, name), ROOT)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                found[".".join(rel)] = os.path.join(dirpath, name)
    return found


def _top_level(body):
    """Statements executed at import: the module body, descending into if/try/with blocks."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers"):
            inner = getattr(node, field, None)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                break
            if isinstance(inner, list):
                yield from _top_level(inner)


def import_graph() -> dict[str, set[str]]:
    mods = modules()
    graph = {name: set() for name in mods}
    for name, path in mods.items():
        is_pkg = path.endswith("__init__.py")
        package = name if is_pkg else name.rpartition(".")[0]
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in _top_level(tree.body):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    src = ".".join(base + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                for alias in node.names:
                    sub = f"{src}.{alias.name}"
                    targets.append(sub if sub in mods else src)
            for target in targets:
                if target in mods and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_is_read():
    graph = import_graph()
    assert "breadth.distributed.engine" in graph
    assert "breadth.distributed.layout" in graph["breadth.distributed.one_d.layout"]
    assert "breadth.distributed.owned.build" in graph["breadth.distributed.two_d.build"]
    assert "breadth.kernels.top_down" in graph["breadth.multisource.ibfs"]


def test_no_import_cycles():
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" -> ".join(c) for c in found)


def test_a_cycle_is_detected():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]

