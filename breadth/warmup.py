"""``breadth.warmup()``: compile every kernel the common paths need, ahead of the first real call.

numba compiles breadth's kernels on their first use and keeps them in its disk cache
(``breadth.cache``), so the first call of a fresh installation waits for the compiler.
``warmup`` pays that once, up front -- after an install, in an image build, before a
benchmark -- by running each common path on a tiny input: a single search (both result
widths, a directed graph, validation), the Graph500 kernels, the many-source search and
its reducers, reading and writing graph files, and the networkx backend when networkx is
installed. A path whose kernels are already cached only loads them (well under a second).
"""
from __future__ import annotations

import os
import tempfile
import time

from .jit import Stopwatch
from .progress import bar


def _single_search():
    from .graph import kronecker
    from .graph500.validate import validate
    from .search import BFSWorkspace, bfs

    g = kronecker(6, seed=1)
    for algorithm in ("do", "td", "bu"):
        r = bfs(g, 0, algorithm)
        validate(g, 0, r.parent, r.depth)          # reads the result widened to int64
    bfs(g, 0, workspace=BFSWorkspace(g.num_vertices))
    bfs(kronecker(6, seed=1, directed=True), 0)


def _graph500():
    from .graph500 import Graph500Config, LocalEngine, run_benchmark

    run_benchmark(Graph500Config(scale=6, nroots=2), LocalEngine(), progress=False)


def _many_sources():
    from .graph import kronecker
    from .multisource import closeness, multi_bfs

    g = kronecker(6, seed=1)
    multi_bfs(g, list(range(8)))
    closeness(g)


def _files():
    from .graph import kronecker
    from .graph.io import read, write

    g = kronecker(5, seed=1)
    with tempfile.TemporaryDirectory(prefix="breadth-warmup-") as tmp:
        for name in ("g.npz", "g.txt", "g.mtx"):
            path = os.path.join(tmp, name)
            write(g, path, progress=False)
            read(path, progress=False)


def _networkx():
    try:
        import networkx as nx
    except ImportError:
        return
    # a graph per call: networkx warns when a call reuses the conversion it cached on the graph
    nx.single_source_shortest_path_length(nx.path_graph(16), 0, backend="breadth")
    nx.closeness_centrality(nx.path_graph(16), backend="breadth")
    list(nx.bfs_edges(nx.path_graph(16), 0, backend="breadth"))


STEPS = {
    "bfs": _single_search,
    "graph500": _graph500,
    "multi_bfs": _many_sources,
    "files": _files,
    "networkx": _networkx,
}


def warmup(progress=None, steps=None) -> dict:
    """Compile (or load from numba's cache) the kernels of the common paths.

    Args:
        progress: the bar's wish (``breadth.progress.bar``: None shows one on a terminal).
        steps: names of ``STEPS`` to run (default: all).

    Returns:
        A dict step -> {"seconds": wall time, "compile_seconds": compiling and loading in it}.

    Raises:
        InputError: an unknown step name.

    Examples:
        >>> done = breadth.warmup(progress=False, steps=["files"])
        >>> list(done), sorted(done["files"])
        (['files'], ['compile_seconds', 'seconds'])
    """
    names = list(STEPS) if steps is None else list(steps)
    unknown = [s for s in names if s not in STEPS]
    if unknown:
        from .errors import InputError

        raise InputError(f"unknown warmup step {unknown[0]!r}: choose from {', '.join(STEPS)}")
    done = {}
    with bar(len(names), "compiling kernels", progress, unit="step") as b:
        for name in names:
            b.set_postfix_str(name)
            t0 = time.perf_counter()
            with Stopwatch() as clock:
                STEPS[name]()
            done[name] = {"seconds": time.perf_counter() - t0, "compile_seconds": clock.compile_seconds}
            b.update()
    return done
