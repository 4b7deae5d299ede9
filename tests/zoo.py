"""A zoo of small graphs covering the shapes BFS gets wrong: shared by the test modules.

Each entry: (name, src, dst, num_vertices, directed, root).
"""
import numpy as np

import breadth


def _path(n):
    v = np.arange(n - 1)
    return v, v + 1


def _star(n):
    return np.zeros(n - 1, dtype=np.int64), np.arange(1, n)


def _complete(n):
    s, d = np.triu_indices(n, 1)
    return s, d


def _cycle(n):
    v = np.arange(n)
    return v, (v + 1) % n


def _grid(w, h):
    idx = np.arange(w * h).reshape(h, w)
    s = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    d = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return s, d


def _binary_tree(n):
    v = np.arange(1, n)
    return (v - 1) // 2, v


def _random(n, m, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m)


def _two_components():
    s1, d1 = _cycle(50)
    s2, d2 = _complete(20)
    return np.concatenate([s1, s2 + 50]), np.concatenate([d1, d2 + 50])


def graphs():
    """Yield (name, src, dst, n, directed, root)."""
    e = np.array([], dtype=np.int64)
    yield "empty-1", e, e, 1, False, 0
    yield "isolated-root", np.array([1, 2]), np.array([2, 3]), 5, False, 0
    yield "isolated-root-last", np.array([0, 1]), np.array([1, 2]), 6, False, 5
    yield "single-edge", np.array([0]), np.array([1]), 2, False, 1
    yield "self-loops-only", np.array([0, 1, 2]), np.array([0, 1, 2]), 3, False, 1
    yield "duplicates", np.array([0, 0, 1, 1, 0, 2]), np.array([1, 1, 0, 2, 1, 3]), 4, False, 0
    yield "self-loops-mixed", np.array([0, 0, 1, 2, 2]), np.array([0, 1, 1, 2, 3]), 4, False, 3
    s, d = _path(1000)
    yield "path-1000", s, d, 1000, False, 0
    yield "path-1000-mid", s, d, 1000, False, 500
    yield "path-1000-directed", s, d, 1000, True, 0
    yield "path-1000-directed-rev", d, s, 1000, True, 0
    s, d = _star(500)
    yield "star-center", s, d, 500, False, 0
    yield "star-leaf", s, d, 500, False, 77
    yield "star-directed-out", s, d, 500, True, 0
    yield "star-directed-in", d, s, 500, True, 0
    s, d = _complete(40)
    yield "complete-40", s, d, 40, False, 3
    s, d = _cycle(301)
    yield "cycle-301", s, d, 301, False, 0
    yield "cycle-301-directed", s, d, 301, True, 7
    s, d = _grid(30, 20)
    yield "grid-30x20", s, d, 600, False, 0
    s, d = _binary_tree(1023)
    yield "binary-tree", s, d, 1023, False, 0
    yield "binary-tree-leaf", s, d, 1023, False, 1000
    s, d = _two_components()
    yield "two-components-a", s, d, 70, False, 10
    yield "two-components-b", s, d, 70, False, 60
    yield "two-components-isolated-tail", s, d, 100, False, 60
    for seed in range(4):
        s, d = _random(300, 400, seed)
        yield f"sparse-random-{seed}", s, d, 300, False, seed
        yield f"sparse-random-directed-{seed}", s, d, 300, True, seed
    s, d = _random(200, 8000, 9)
    yield "dense-random", s, d, 200, False, 5
    yield "dense-random-directed", s, d, 200, True, 5
    s, d = breadth.kronecker_edges(10, 16, 3)
    yield "kronecker-10", s, d, 1024, False, int(s[0])
    yield "kronecker-10-directed", s, d, 1024, True, int(s[0])
    s, d = breadth.kronecker_edges(12, 8, 4)
    yield "kronecker-12-ef8", s, d, 4096, False, int(d[0])
    s, d = breadth.uniform_random_edges(11, 4, 5)
    yield "urand-11", s, d, 2048, False, int(s[1])


def reference_depth(src, dst, n, directed, roots):
    """Independent reference: a plain queue BFS on adjacency sets built in Python."""
    from collections import deque

    adj = [[] for _ in range(n)]
    for a, b in zip(np.asarray(src).tolist(), np.asarray(dst).tolist()):
        if a == b:
            continue
        adj[a].append(b)
        if not directed:
            adj[b].append(a)
    depth = np.full(n, -1, dtype=np.int64)
    q = deque()
    for r in np.atleast_1d(roots).tolist():
        if depth[r] < 0:
            depth[r] = 0
            q.append(r)
    while q:
        u = q.popleft()
        for v in adj[u]:
            if depth[v] < 0:
                depth[v] = depth[u] + 1
                q.append(v)
    return depth


def scipy_depth(graph, roots):
    """Second reference: scipy.sparse.csgraph unweighted shortest paths (min over seeds)."""
    import scipy.sparse.csgraph as csg

    roots = np.atleast_1d(roots)
    if graph.num_vertices == 0:
        return np.empty(0, dtype=np.int64)
    d = csg.shortest_path(graph.to_scipy(), directed=graph.directed, unweighted=True, indices=roots)
    d = np.atleast_2d(d).min(axis=0)
    return np.where(np.isinf(d), -1, d).astype(np.int64)
