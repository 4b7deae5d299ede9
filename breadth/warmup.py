"""``breadth.warmup()``: compile every kernel the common paths need, ahead of the first real call.

numba compiles breadth's kernels on their first use and keeps them in its disk cache
(``breadth.cache``), so the first call of a fresh installation waits for the compiler.
``warmup`` pays that once, up front -- after an install, in an image build, before a
benchmark -- by running each common path on tiny inputs.

numba compiles one machine-code version per combination of argument types, and a read-only
array (a memory-mapped ``.npz`` file) is another type than a writable one (a graph built in
memory), so each step runs on every kind of graph the README and the user guide reach:
built in memory and read from files, undirected and directed, with and without vertex
labels (``SHAPES``). ``tests/cli/test_warmup.py`` runs the README's and the guide's
commands after a warmup into an empty cache and fails if any of them compiles.
A path whose kernels are already cached only loads them.

With two cores, a second Python process runs the largest step (``ASIDE_STEPS``) while this one
runs the others; both fill the same disk cache. The planner's step measures this machine's speed,
so it runs last, with nothing beside it (``ALONE_STEPS``).
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from .cache import prune
from .jit import ChildPython, Stopwatch
from .omp_env import host_cores
from .progress import bar


def _edge_list(path: str, directed: bool) -> None:
    """A small SNAP-like edge list with sparse original ids (read with relabel=True: a labelled graph)."""
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 40, 160) * 10, rng.integers(0, 40, 160) * 10
    kind = "Directed" if directed else "Undirected"
    with open(path, "w") as f:
        f.write(f"# {kind} graph\n# FromNodeId\tToNodeId\n")
        f.writelines(f"{a}\t{b}\n" for a, b in zip(src, dst))


def shapes(tmp: str) -> dict:
    """name -> a tiny graph of each kind a user's call reaches (see the module docstring)."""
    from .graph import kronecker
    from .graph.io import read, write

    out = {"memory": kronecker(6, seed=1), "memory-directed": kronecker(6, seed=1, directed=True)}
    for name in ("memory", "memory-directed"):
        path = os.path.join(tmp, f"{name}.npz")
        write(out[name], path, progress=False)
        out[name.replace("memory", "file")] = read(path, progress=False)
    for directed, name in ((False, "labels"), (True, "labels-directed")):
        text = os.path.join(tmp, f"{name}.txt")
        _edge_list(text, directed)
        g = read(text, relabel=True, directed=directed, progress=False)
        out[name + "-memory"] = g
        path = os.path.join(tmp, f"{name}.npz")
        write(g, path, progress=False)
        out[name + "-file"] = read(path, progress=False)
        mtx = os.path.join(tmp, f"{name}.mtx")
        write(g, mtx, progress=False)
        out[name + "-mtx"] = read(mtx, progress=False)
    return out


def _single_search(graphs):
    from .graph500.validate import validate
    from .search import BFSWorkspace, bfs

    for g in graphs.values():
        for algorithm in ("do", "td", "bu"):
            r = bfs(g, 0, algorithm)
            validate(g, 0, r.parent, r.depth)          # reads the result widened to int64
        bfs(g, [0, 1, 2], max_depth=2)
        bfs(g, 0, workspace=BFSWorkspace(g.num_vertices))


def _graph500(graphs):
    from .graph500 import Graph500Config, LocalEngine, run_benchmark

    run_benchmark(Graph500Config(scale=6, nroots=2), LocalEngine(), progress=False)


def _many_sources(graphs):
    from .multisource import closeness, harmonic_centrality, msbfs, multi_bfs

    for g in graphs.values():
        sources = np.arange(min(8, g.num_vertices))
        multi_bfs(g, sources)
        closeness(g)
        harmonic_centrality(g)
        for direction in ("out", "in"):
            for keep in (False, True):
                msbfs(g, sources, direction=direction, keep_depths=keep)
                msbfs(g, None, direction=direction, keep_depths=keep)


def _analysis(graphs):
    from .analysis import connected_components, estimate_diameter

    for g in graphs.values():
        comps = connected_components(g)
        estimate_diameter(g, 4, 1, comps)
        if g.directed:
            g.out_degree(), g.in_degree()
        else:
            g.degree()


def _files(graphs):
    from .graph.io import read, write, write_result
    from .search import bfs

    with tempfile.TemporaryDirectory(prefix="breadth-warmup-") as tmp:
        for key in ("memory", "labels-memory", "labels-directed-file"):
            g = graphs[key]
            for name in ("g.npz", "g.txt", "g.mtx", "g.txt.gz"):
                path = os.path.join(tmp, name)
                write(g, path, progress=False)
                read(path, progress=False)
                read(path, progress=False, relabel=True)
            r = bfs(g, 0)
            for name in ("r.csv", "r.npz"):
                write_result(os.path.join(tmp, name), r.depth, r.parent, original_ids=g.vertex_ids)
        _named_files(tmp)


def _named_files(tmp):
    """Edge lists of vertex names (tab, comma with a header): read whole, and converted in bounded memory."""
    from .graph.io import read, write_result
    from .graph.io.spill import convert_to_native
    from .search import bfs

    rows = [(f"v{i % 37}", f"v{(i * 7 + 3) % 41}") for i in range(300)]
    for name, text in (("names.txt", "".join(f"{a}\t{b}\n" for a, b in rows)),
                       ("names.csv", "source,target\n" + "".join(f"{a},{b}\n" for a, b in rows))):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        g = read(path, progress=False)
        r = bfs(g, "v1", by_label=True)
        write_result(os.path.join(tmp, "names.csv.out.csv"), r.depth, r.parent, original_ids=g.vertex_ids)
        convert_to_native(path, os.path.join(tmp, "names.npz"), spill_dir=tmp, progress=False)


def _networkx(graphs):
    """Each function of the networkx backend (docs/guide/networkx.md) on string, integer and directed graphs."""
    try:
        import networkx as nx
    except ImportError:
        return
    b = {"backend": "breadth"}
    # a graph per call: networkx warns when a call reuses the conversion it cached on the graph
    for make in (nx.les_miserables_graph, lambda: nx.gnp_random_graph(24, 0.15, seed=1, directed=True),
                 lambda: nx.convert_node_labels_to_integers(nx.path_graph(12), first_label=1000)):
        G = make()
        node, other = list(G)[0], list(G)[-1]
        calls = [lambda G: list(nx.bfs_edges(G, node, **b)), lambda G: nx.bfs_tree(G, node, **b),
                 lambda G: dict(nx.bfs_predecessors(G, node, **b)), lambda G: dict(nx.bfs_successors(G, node, **b)),
                 lambda G: list(nx.bfs_layers(G, [node], **b)),
                 lambda G: list(nx.bfs_edges(G, node, depth_limit=2, **b)),
                 lambda G: nx.single_source_shortest_path_length(G, node, **b),
                 lambda G: nx.single_source_shortest_path_length(G, node, 2, **b),
                 lambda G: nx.single_target_shortest_path_length(G, node, **b),
                 lambda G: nx.shortest_path_length(G, node, other, **b), lambda G: nx.has_path(G, node, other, **b),
                 lambda G: dict(nx.all_pairs_shortest_path_length(G, **b)),
                 lambda G: nx.descendants(G, node, **b), lambda G: nx.ancestors(G, node, **b),
                 lambda G: nx.descendants_at_distance(G, node, 2, **b),
                 lambda G: nx.closeness_centrality(G, **b), lambda G: nx.harmonic_centrality(G, **b),
                 lambda G: nx.closeness_centrality(G, u=node, **b),
                 lambda G: nx.harmonic_centrality(G, nbunch=[node], **b)]
        if G.is_directed():
            calls.append(lambda G: list(nx.weakly_connected_components(G, **b)))
        else:
            calls += [lambda G: list(nx.connected_components(G, **b)),
                      lambda G: nx.number_connected_components(G, **b), lambda G: nx.is_connected(G, **b),
                      lambda G: nx.node_connected_component(G, node, **b)]
            if nx.is_connected(G):
                calls += [lambda G: nx.eccentricity(G, **b), lambda G: nx.diameter(G, **b),
                          lambda G: nx.radius(G, **b), lambda G: nx.center(G, **b), lambda G: nx.periphery(G, **b),
                          lambda G: nx.diameter(G, usebounds=True, **b)]
        for call in calls:
            call(make())


def _planner(graphs):
    """``--partition auto``'s per-machine measurements (``planner.calibration``): the edge rates, a
    reference step and each layout's own cost per level (every layout run alone, which also
    compiles the distributed searches), cached for this kind of machine. In a child process, so
    that MPI starts and ends there and not in the caller's; skipped without mpi4py."""
    import importlib.util

    if importlib.util.find_spec("mpi4py") is None:
        return
    code = "from breadth.distributed.planner import calibration; calibration.machine_costs()"
    subprocess.run([sys.executable, "-c", code], check=True, stdin=subprocess.DEVNULL)


ASIDE_STEPS = ("multi_bfs",)   # the largest step: a second process runs it beside the others
ALONE_STEPS = ("planner",)     # measures the machine: runs after the others, with nothing beside it

STEPS = {
    "bfs": _single_search,
    "graph500": _graph500,
    "multi_bfs": _many_sources,
    "info": _analysis,
    "files": _files,
    "networkx": _networkx,
    "planner": _planner,
}


def warmup(progress=None, steps=None) -> dict:
    """Compile (or load from numba's cache) the kernels of the common paths.

    It also removes the cache folders of other versions of breadth unused for a week
    (``breadth.cache.prune``).

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
    prune()
    here, aside, alone = _split(names)
    done = {}
    with contextlib.ExitStack() as stack:
        b = stack.enter_context(bar(len(names), "compiling kernels", progress, unit="step"))
        other = stack.enter_context(_Aside(aside)) if aside else None
        graphs, made = stack.enter_context(_shapes())
        done.update(_run_steps(here, graphs, b, made))
        if other is not None:
            b.set_postfix_str(", ".join(aside))
            done.update(other.result())
            b.update(len(aside))
        done.update(_run_steps(alone, graphs, b, None if here else made))
    return {n: done[n] for n in names}


@contextlib.contextmanager
def _shapes():
    """The shapes' graphs, in a temporary folder for the block, and what building them took
    ({"seconds", "compile_seconds"})."""
    with tempfile.TemporaryDirectory(prefix="breadth-warmup-") as tmp:
        t0 = time.perf_counter()
        with Stopwatch() as clock:
            graphs = shapes(tmp)
        yield graphs, {"seconds": time.perf_counter() - t0, "compile_seconds": clock.compile_seconds}
        graphs.clear()                     # memory-mapped files closed before the folder goes


def _run_steps(names, graphs, b=None, made=None) -> dict:
    """Run ``names`` here on ``graphs``: step -> {"seconds", "compile_seconds"}; ``made`` (building
    the graphs) counts in the first step."""
    done = {}
    for name in names:
        if b is not None:
            b.set_postfix_str(name)
        t0 = time.perf_counter()
        with Stopwatch() as clock:
            STEPS[name](graphs)
        done[name] = {"seconds": time.perf_counter() - t0, "compile_seconds": clock.compile_seconds}
        if b is not None:
            b.update()
    if names and made:
        for key in ("seconds", "compile_seconds"):
            done[names[0]][key] += made[key]
    return done


def _split(names) -> tuple:
    """(here, aside, alone): the steps of ``names`` this process runs first, those a second process
    runs meanwhile (``_aside``), and those that run last, alone (``ALONE_STEPS``)."""
    aside = _aside(names)
    return ([n for n in names if n not in aside and n not in ALONE_STEPS], aside,
            [n for n in names if n in ALONE_STEPS])


def _aside(names) -> list:
    """The steps of ``names`` a second process runs: ``ASIDE_STEPS`` when two cores are free and this
    process has steps of its own to run meanwhile."""
    if host_cores() < 2 or all(n in ASIDE_STEPS or n in ALONE_STEPS for n in names):
        return []
    return [n for n in names if n in ASIDE_STEPS]


class _Aside:
    """The second process of a warmup: runs ``steps`` (``_aside_main``) and reports them as JSON on stdout.
    Leaving the block stops it if it is still running (this process failed or was interrupted)."""

    def __init__(self, steps):
        self.steps = steps

    def __enter__(self):
        self.child = ChildPython("from breadth.warmup import _aside_main; _aside_main()", self.steps, stdout=True)
        return self

    def result(self) -> dict:
        out = self.child.proc.stdout.read()      # stderr goes to a file: nothing else can fill up meanwhile
        self.child.proc.wait()
        if self.child.proc.returncode != 0:
            raise RuntimeError(f"warmup step(s) {', '.join(self.steps)} failed in their own process "
                               f"(exit {self.child.proc.returncode}): {self.child.errors()}")
        return json.loads(out.decode().strip().splitlines()[-1])

    def __exit__(self, *exc):
        self.child.close()
        return False


def _aside_main() -> None:
    """A warmup's second process: run the steps named on the command line, print their times as JSON.
    The first process has announced the compilation and shows the progress."""
    logging.getLogger("breadth.jit").setLevel(logging.ERROR)
    with _shapes() as (graphs, made):
        print(json.dumps(_run_steps(sys.argv[1:], graphs, made=made)))
