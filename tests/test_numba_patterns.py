"""Source rules for numba kernels that the interpreter running CI cannot catch by itself.

numba on Python >= 3.12 fails to compile a prange loop whose scalar reduction sits around an inner
loop with branches ("unexpected cycle in lookup()", numba issue 10132); CI's Python compiles such a
loop fine, so the rule is checked on the source: such a block belongs in a function of its own.
"""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _prange_loops(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and \
                getattr(node.iter.func, "id", "") == "prange":
            yield node


def _names_bound_in(loop):
    bound = set()
    for node in ast.walk(loop):
        targets = [node.target] if isinstance(node, ast.For) else node.targets if isinstance(node, ast.Assign) else []
        for t in targets:
            bound |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return bound


def _branchy_inner_loop(loop):
    """An inner loop that updates something under a branch (an if, or a while's own test)."""
    for inner in ast.walk(loop):
        if inner is loop or not isinstance(inner, (ast.For, ast.While)):
            continue
        for node in ast.walk(inner):
            if isinstance(node, (ast.If, ast.While, ast.IfExp)) and any(
                    isinstance(m, ast.AugAssign) for m in ast.walk(node)):
                return True
    return False


def offending_loops(source: str):
    tree = ast.parse(source)
    out = []
    for loop in _prange_loops(tree):
        bound = _names_bound_in(loop)
        reductions = [n for n in ast.walk(loop) if isinstance(n, ast.AugAssign)
                      and isinstance(n.target, ast.Name) and n.target.id not in bound]
        if reductions and _branchy_inner_loop(loop):
            out.append(loop.lineno)
    return out


def test_the_rule_catches_the_known_failing_shape():
    bad = ("def f(a):\n    s = 0\n    for j in prange(a.size):\n        c = 0\n"
           "        for i in range(4):\n            if a[j] > i:\n                c += 1\n        s += c\n    return s\n")
    good = ("def f(a):\n    s = 0\n    for j in prange(a.size):\n        s += g(a, j)\n    return s\n")
    assert offending_loops(bad) == [3] and offending_loops(good) == []


def test_no_prange_reduction_around_a_branchy_inner_loop():
    found = [f"{p.relative_to(ROOT)}:{line}" for folder in ("breadth", "bench")
             for p in sorted((ROOT / folder).rglob("*.py")) for line in offending_loops(p.read_text())]
    assert not found, "prange reductions around an inner loop with branches (move the block into an @njit function): " \
        + ", ".join(found)
