"""The device check's shared pieces: its test graphs, its search keys and how it words an error
(used by ``gpu_check_work`` and its ``gpu_check_bench`` / ``gpu_check_mpi`` phases)."""
from __future__ import annotations

import numpy as np


def error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".strip()[:2000]


# ---------------------------------------------------------------- graphs
def path_graph(n: int):
    import breadth

    v = np.arange(n, dtype=np.int64)
    return breadth.Graph.from_edges(v[:-1], v[1:], n)


def grid_graph(rows: int, cols: int):
    import breadth

    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return breadth.Graph.from_edges(src, dst, rows * cols)


def make_graph(spec: str):
    """A graph from ``kind:size[:directed]``: kronecker:S, uniform:S (edge factor 16), path:N, grid:R."""
    import breadth

    parts = spec.split(":")
    kind, size = parts[0], int(parts[1])
    directed = len(parts) > 2 and parts[2] == "directed"
    if kind == "kronecker":
        return breadth.kronecker(size, 16, seed=size + 7 * directed, directed=directed)
    if kind == "uniform":
        return breadth.uniform_random(size, 16, seed=size + 7 * directed, directed=directed)
    if kind == "path":
        return path_graph(size)
    if kind == "grid":
        return grid_graph(size, size)
    raise ValueError(f"unknown graph kind in {spec!r}")


def pick_roots(g, count: int, seed: int) -> list[int]:
    """The vertex of most out-edges, then random ones with out-edges (distinct)."""
    deg = np.diff(g.indptr)
    first = int(np.argmax(deg))
    cand = np.flatnonzero(deg > 0)
    cand = cand[cand != first]
    rng = np.random.default_rng(seed)
    more = rng.choice(cand, size=min(count - 1, cand.size), replace=False) if count > 1 and cand.size else []
    return [first] + [int(x) for x in more]
