"""Synthetic graph generators: Graph500 Kronecker (R-MAT) and GAP-style uniform random.

The tuples themselves (the Graph500 kernel-0 Kronecker rules, the counter-based
randomness, the vertex scrambling) are made by the numba kernels of
``graph/tuple_kernels.py``, whose header states them. This module checks the
arguments, makes any slice [start, stop) of a tuple list (``kronecker_edges``,
``uniform_random_edges``; distributed generation asks for its rank's slice), offers a
generated list as a ``TupleSource`` that regenerates slices on demand
(``GeneratedTuples``) and builds the graphs (``kronecker``, ``uniform_random``), from
the whole tuple list or streamed when that would not fit in memory. ``A``, ``B``, ``C``
(the initiator) and the private kernels are re-exported here for the planner and tests.
"""
import numpy as np

from ..errors import InputError
from .build import BuildInfo
from .memory import available_bytes, check_fits, csr_build_bytes, stream_build_bytes
from .stream import BOTH, IN, OUT, TupleSource, stream_csr
from .tuple_kernels import A, B, C, _keys, _kronecker_count, _kronecker_range, _scramble, _uniform_range  # noqa: F401
from .types import Graph

MAX_SCALE = 42
LIST_SHARE = 0.75                # the share of available memory the tuple-list build may plan to use


def check_scale(scale, factor, factor_name):
    if not isinstance(scale, (int, np.integer)) or isinstance(scale, bool):
        raise InputError(f"scale must be an integer, got {scale!r}")
    if scale < 0:
        raise InputError(f"scale must be >= 0, got {scale}")
    if scale > MAX_SCALE:
        raise InputError(f"scale {scale} is beyond the largest supported scale {MAX_SCALE}")
    if not isinstance(factor, (int, np.integer)) or factor < 0:
        raise InputError(f"{factor_name} must be a non-negative integer, got {factor!r}")


def _edge_range(num_tuples, start, stop):
    start = 0 if start is None else int(start)
    stop = num_tuples if stop is None else int(stop)
    if not 0 <= start <= stop <= num_tuples:
        raise InputError(f"edge range [{start}, {stop}) outside [0, {num_tuples})")
    return start, stop


def _tuple_arrays(scale, factor, factor_name, start, stop):
    """Check the arguments and allocate the (src, dst) int64 arrays of tuples [start, stop)."""
    check_scale(scale, factor, factor_name)
    start, stop = _edge_range(factor * (1 << scale), start, stop)
    check_fits("generating the edge list", 16 * (stop - start))
    return start, stop, np.empty(stop - start, dtype=np.int64), np.empty(stop - start, dtype=np.int64)


def fill_kronecker(scale, seed, start, stop, src, dst):
    """Write Kronecker tuples [start, stop) of (scale, seed) into the int64 arrays src, dst (no checks).

    The one definition of the tuples: ``kronecker_edges`` and the streaming builder both call it."""
    if scale == 0:
        src[:stop - start] = 0
        dst[:stop - start] = 0
    else:
        _kronecker_range(scale, start, stop, _keys(seed, 1)[0], _keys(seed, 2)[:4], src, dst)


def fill_uniform(scale, seed, start, stop, src, dst):
    """Write uniform random tuples [start, stop) of (scale, seed) into src, dst (no checks)."""
    _uniform_range(1 << scale, start, stop, _keys(seed, 3)[0], src, dst)


def kronecker_edges(scale: int, edgefactor: int = 16, seed: int = 1, start=None, stop=None):
    """The raw Graph500 Kronecker tuple list (int64 src, dst), or its slice [start, stop).

    Any slice is generated on its own, so processes can generate disjoint parts of the same list.

    Args:
        scale: log2 of the vertex count.
        edgefactor: edge tuples per vertex.
        seed: the generator's seed.
        start: the first tuple of the slice (default 0).
        stop: one past the last tuple of the slice (default ``edgefactor * 2^scale``).

    Returns:
        ``(src, dst)``: two int64 arrays of the same length, self-loops and duplicates included.

    Raises:
        InputError: a scale, edge factor or slice out of range.

    Examples:
        >>> src, dst = breadth.kronecker_edges(6, seed=1)
        >>> len(src), int(src.max()) < 64
        (1024, True)
        >>> breadth.kronecker_edges(6, seed=1, start=0, stop=3)
        (array([30, 56, 58]), array([26,  9, 19]))
    """
    start, stop, src, dst = _tuple_arrays(scale, edgefactor, "edgefactor", start, stop)
    fill_kronecker(scale, seed, start, stop, src, dst)
    return src, dst


def uniform_random_edges(scale: int, degree: int = 16, seed: int = 1, start=None, stop=None):
    """GAP-style uniform random tuples: ``degree * 2^scale`` edges with uniform endpoints.

    Args:
        scale: log2 of the vertex count.
        degree: edge tuples per vertex.
        seed: the generator's seed.
        start: the first tuple of the slice (default 0).
        stop: one past the last tuple of the slice (default all).

    Returns:
        ``(src, dst)``: two int64 arrays.

    Raises:
        InputError: a scale, degree or slice out of range.

    Examples:
        >>> breadth.uniform_random_edges(6, degree=4, seed=1, start=0, stop=3)
        (array([11, 29, 62]), array([34, 32,  5]))
    """
    start, stop, src, dst = _tuple_arrays(scale, degree, "degree", start, stop)
    fill_uniform(scale, seed, start, stop, src, dst)
    return src, dst


class GeneratedTuples(TupleSource):
    """The tuples of a generated graph as a tuple source: any slice is regenerated on demand."""

    def __init__(self, kind: str, scale: int, factor: int, seed: int):
        fills = {"kronecker": fill_kronecker, "uniform": fill_uniform}
        if kind not in fills:
            raise InputError(f"unknown generator {kind!r}; choose one of {', '.join(fills)}")
        check_scale(scale, factor, "edgefactor" if kind == "kronecker" else "degree")
        self.kind, self.scale, self.seed = kind, scale, seed
        self._fill = fills[kind]
        self.num_tuples = factor * (1 << scale)
        self.num_vertices = 1 << scale

    def fill(self, start, stop, src, dst):
        self._fill(self.scale, self.seed, start, stop, src, dst)

    def count_arcs(self, start, stop, mode, counts):
        """Kronecker: generate tuples [start, stop) and count their arcs in one kernel (no buffers)."""
        if self.kind != "kronecker" or self.scale == 0:
            return None
        loops = np.zeros(counts.shape[0], dtype=np.int64)
        _kronecker_count(self.scale, start, stop, _keys(self.seed, 1)[0], _keys(self.seed, 2)[:4], mode, counts, loops)
        return int(loops.sum())


def check_graph_fits(scale, factor, directed=False, streaming=True):
    """Refuse (MemoryEstimateError) a generated graph whose construction would not fit in memory
    (streamed: the tuples are never held; else from the whole tuple list)."""
    n = 1 << scale
    m = factor * n
    need = stream_build_bytes(n, m, directed) if streaming else csr_build_bytes(n, m, directed)
    check_fits(f"a scale-{scale} graph ({n:,} vertices, {m:,} edge tuples)", need)


def streaming_needed(scale, factor, directed=False) -> bool:
    """The default build of a generated graph: streamed unless the tuple-list build (faster where it
    fits) needs at most ``LIST_SHARE`` of the memory available now (the margin covers what the
    estimate cannot know before the tuples exist: a hub's bucket wants more sort scratch)."""
    n = 1 << scale
    return csr_build_bytes(n, factor * n, directed) > LIST_SHARE * available_bytes()


def streamed_graph(source: TupleSource, directed=False, index_dtype=None, progress=None):
    """The graph of a tuple source built by the streaming builder (``graph/stream.py``).

    Returns (Graph, raw tuple degree per vertex (non-self-loop tuple endpoints, duplicates
    counted: the Graph500 TEPS edge count's input), seconds: {"fill", "refill", "build", ...})."""
    if directed:
        indptr, indices, raw, loops, sec = stream_csr(source, OUT, index_dtype, progress=progress)
        in_indptr, in_indices, raw_in, _, sec_in = stream_csr(source, IN, index_dtype, progress=progress)
        raw += raw_in
        del raw_in
        for k in ("fill", "refill", "build"):
            sec[k] += sec_in[k]
        arcs = int(indptr[-1])
        kw = {"in_indptr": in_indptr, "in_indices": in_indices}
    else:
        indptr, indices, raw, loops, sec = stream_csr(source, BOTH, index_dtype, progress=progress)
        arcs = int(indptr[-1]) // 2
        kw = {}
    m = int(source.num_tuples)
    info = BuildInfo(m, loops, m - loops - arcs)
    return Graph(indptr, indices, directed=directed, build_info=info, check=False, **kw), raw, sec


def _generated_graph(kind, make_edges, scale, factor, factor_name, seed, return_edges, directed, stream):
    check_scale(scale, factor, factor_name)
    if stream is None:
        stream = not return_edges and streaming_needed(scale, factor, directed)
    if stream and return_edges:
        raise InputError("stream=True never holds the tuples, so it cannot return them (return_edges=True)")
    check_graph_fits(scale, factor, directed, streaming=stream)
    if stream:
        return streamed_graph(GeneratedTuples(kind, scale, factor, seed), directed)[0]
    src, dst = make_edges(scale, factor, seed)
    g = Graph.from_edges(src, dst, num_vertices=1 << scale, directed=directed)
    return (g, (src, dst)) if return_edges else g


def kronecker(scale: int, edgefactor: int = 16, seed: int = 1, *, return_edges=False, directed=False,
              stream=None):
    """A Graph500 Kronecker graph on 2^scale vertices; with ``return_edges=True`` also its tuples.

    Self-loops and duplicate tuples are removed from the graph (``graph.build_info`` counts
    them), as the Graph500 reference's construction does.

    Args:
        scale: log2 of the vertex count.
        edgefactor: edge tuples per vertex (``edgefactor * 2^scale`` tuples).
        seed: the generator's seed; the same seed gives the same graph on any machine.
        return_edges: also return the raw ``(src, dst)`` tuple arrays (int64).
        directed: keep tuple (u, v) as the arc u -> v instead of an undirected edge.
        stream: True streams the tuples into the build chunk by chunk and never holds them
            (about a quarter of the peak memory); False builds from the whole tuple list
            (faster); None (default) streams only when the tuple-list build would not fit in
            available memory (never with ``return_edges``). Both give the same graph.

    Returns:
        The ``Graph``, or ``(graph, (src, dst))`` with ``return_edges=True``.

    Raises:
        InputError: a scale or edge factor out of range, or ``stream=True`` with ``return_edges``.
        MemoryEstimateError: the construction would not fit in memory (refused before allocating).

    Examples:
        >>> g = breadth.kronecker(6, seed=1)
        >>> g
        Graph(undirected, 64 vertices, 386 edges)
        >>> g, (src, dst) = breadth.kronecker(6, seed=1, return_edges=True)
        >>> len(src)
        1024
    """
    return _generated_graph("kronecker", kronecker_edges, scale, edgefactor, "edgefactor", seed, return_edges,
                            directed, stream)


def uniform_random(scale: int, degree: int = 16, seed: int = 1, *, return_edges=False, directed=False,
                   stream=None):
    """A uniform random graph on 2^scale vertices with ``degree * 2^scale`` edge tuples (GAP urand).

    Args:
        scale: log2 of the vertex count.
        degree: edge tuples per vertex.
        seed: the generator's seed.
        return_edges: also return the raw ``(src, dst)`` tuple arrays.
        directed: keep tuple (u, v) as the arc u -> v.
        stream: as in ``breadth.kronecker``.

    Returns:
        The ``Graph``, or ``(graph, (src, dst))`` with ``return_edges=True``.

    Raises:
        InputError: a scale or degree out of range, or ``stream=True`` with ``return_edges``.
        MemoryEstimateError: the construction would not fit in memory.

    Examples:
        >>> breadth.uniform_random(6, degree=4, seed=1)
        Graph(undirected, 64 vertices, 241 edges)
    """
    return _generated_graph("uniform", uniform_random_edges, scale, degree, "degree", seed, return_edges, directed,
                            stream)
