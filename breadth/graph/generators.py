"""Synthetic graph generators: Graph500 Kronecker (R-MAT) and GAP-style uniform random.

Kronecker (Graph500 spec, kernel 0): N = 2^scale vertices, M = edgefactor * N
edge tuples. Each tuple descends ``scale`` levels of the 2x2 initiator
[[A, B], [C, D]] = [[0.57, 0.19], [0.19, 0.05]], most significant bit first,
with the reference code's "clip-and-flip" (on the diagonal a C choice becomes
B, so src <= dst before scrambling). Self-loops and duplicates are produced,
as the spec requires; construction removes them.

Randomness is counter-based: the bits of tuple ``e`` are a hash of
(seed, e, draw number), so tuple e is the same whatever thread or MPI rank makes
it and whatever range is generated -- the property the reference gets from
jumping its MRG ahead by e * 2^64 steps. The generator is therefore
reproducible for a seed regardless of thread count, and any slice
[start, stop) of the tuple list can be made on its own (distributed generation).
It is not bit-compatible with the reference's MRG stream.

Vertex labels are scrambled by a seeded bijection of [0, 2^scale) (add, odd
multiply and bit reversal within ``scale`` bits, twice), as the reference does.
Edge order needs no explicit shuffle: each tuple is drawn independently from
its own counter, so the list order carries no locality (the reference's
argument too).
"""
import numpy as np
from numba import njit, prange

from ..errors import InputError
from .build import BuildInfo
from .memory import available_bytes, check_fits, csr_build_bytes, stream_build_bytes
from .radix import tally
from .stream import BOTH, IN, OUT, TupleSource, stream_csr
from .types import Graph

A, B, C = 0.57, 0.19, 0.19
_U32 = 4294967296.0
_TB = np.uint64(int(B * _U32))            # [0, B)      -> (0, 1)
_TC = np.uint64(int((B + C) * _U32))      # [B, B+C)    -> (1, 0)
_TA = np.uint64(int((A + B + C) * _U32))  # [B+C, A+B+C) -> (0, 0); rest D -> (1, 1)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
MAX_SCALE = 42
LIST_SHARE = 0.75                # the share of available memory the tuple-list build may plan to use
BLOCK = 1 << 10                  # tuples a thread generates at a time before counting them


@njit(inline="always", cache=True)
def _mix(z):
    """splitmix64 finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(inline="always", cache=True)
def _rand(key, counter):
    return _mix(key + _GOLDEN * (counter + np.uint64(1)))


@njit(inline="always", cache=True)
def _bitrev(v, scale):
    """Reverse the low ``scale`` bits of v (scale >= 1)."""
    v = ((v >> np.uint64(1)) & np.uint64(0x5555555555555555)) | ((v & np.uint64(0x5555555555555555)) << np.uint64(1))
    v = ((v >> np.uint64(2)) & np.uint64(0x3333333333333333)) | ((v & np.uint64(0x3333333333333333)) << np.uint64(2))
    v = ((v >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | ((v & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4))
    v = ((v >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | ((v & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    v = ((v >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | ((v & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    v = (v >> np.uint64(32)) | (v << np.uint64(32))
    return v >> np.uint64(64 - scale)


@njit(inline="always", cache=True)
def _scramble(v, scale, mask, k):
    """Seeded bijection of [0, 2^scale): two rounds of add, odd multiply, bit reversal."""
    v = (v + k[0]) & mask
    v = (v * (k[1] | np.uint64(1))) & mask
    v = _bitrev(v, scale)
    v = (v + k[2]) & mask
    v = (v * (k[3] | np.uint64(1))) & mask
    return _bitrev(v, scale)


def _keys(seed, salt):
    s = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
    ks = np.empty(5, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i in range(5):
            z = s ^ np.uint64(salt) + _GOLDEN * np.uint64(i + 1)
            z = (z ^ (z >> np.uint64(30))) * _M1
            z = (z ^ (z >> np.uint64(27))) * _M2
            ks[i] = z ^ (z >> np.uint64(31))
    return ks


@njit(inline="always", cache=True)
def _kronecker_tuple(scale, e, edge_key, perm_keys, mask, pairs):
    """Tuple ``e`` (scrambled src, dst). Each level's quadrant is chosen without branches (the
    choice is random, so a branch would be mispredicted about half the time); one 64-bit draw
    serves two levels."""
    u = np.uint64(0)
    v = np.uint64(0)
    diag = np.uint64(1)            # 1 while the tuple is on the diagonal (clip-and-flip applies)
    one = np.uint64(1)
    base = e * np.uint64(pairs)
    for pr in range(pairs):
        r = _rand(edge_key, base + np.uint64(pr))
        for half in range(2):
            level = 2 * pr + half
            if level >= scale:
                break
            x = (r >> np.uint64(32 * half)) & np.uint64(0xFFFFFFFF)
            bit = one << np.uint64(scale - 1 - level)
            b = np.uint64(x < _TB)                     # (0, 1)
            c = np.uint64(x < _TC) & (one - b)         # (1, 0), flipped to (0, 1) on the diagonal
            d = np.uint64(x >= _TA)                    # (1, 1)
            v |= bit * (b | (c & diag) | d)
            u |= bit * ((c & (diag ^ one)) | d)
            diag &= one - (b | c)
    return np.int64(_scramble(u, scale, mask, perm_keys)), np.int64(_scramble(v, scale, mask, perm_keys))


@njit(parallel=True, cache=True)
def _kronecker_range(scale, start, stop, edge_key, perm_keys, src, dst):
    mask = (np.uint64(1) << np.uint64(scale)) - np.uint64(1)
    pairs = (scale + 1) // 2
    for i in prange(stop - start):
        src[i], dst[i] = _kronecker_tuple(scale, np.uint64(start + i), edge_key, perm_keys, mask, pairs)


@njit(cache=True)
def _kronecker_block(scale, start, k, edge_key, perm_keys, mask, pairs, bs, bd):
    """Tuples [start, start + k) into bs, bd (a loop the compiler vectorises)."""
    for i in range(k):
        bs[i], bd[i] = _kronecker_tuple(scale, np.uint64(start + i), edge_key, perm_keys, mask, pairs)


@njit(parallel=True, cache=True)
def _kronecker_count(scale, start, stop, edge_key, perm_keys, mode, counts, loops):
    """counts[t, v] += arcs of source v among tuples [start, stop) (one row per slice of the range,
    so no two threads write one counter); loops[t] += the slice's self-loops. Each slice generates
    cache-sized blocks and counts them."""
    mask = (np.uint64(1) << np.uint64(scale)) - np.uint64(1)
    pairs = (scale + 1) // 2
    nt = counts.shape[0]
    k = stop - start
    for t in prange(nt):
        row = counts[t]
        bs = np.empty(BLOCK, dtype=np.int64)
        bd = np.empty(BLOCK, dtype=np.int64)
        lp = 0
        hi = start + k * (t + 1) // nt
        for lo in range(start + k * t // nt, hi, BLOCK):
            b = min(BLOCK, hi - lo)
            _kronecker_block(scale, lo, b, edge_key, perm_keys, mask, pairs, bs, bd)
            for i in range(b):
                lp += tally(row, bs[i], bd[i], 0, mode != IN, mode != OUT)
        loops[t] += lp


@njit(parallel=True, cache=True)
def _uniform_range(n, start, stop, key, src, dst):
    nn = np.uint64(n)
    for i in prange(stop - start):
        e = np.uint64(start + i)
        src[i] = np.int64(_rand(key, e * np.uint64(2)) % nn)
        dst[i] = np.int64(_rand(key, e * np.uint64(2) + np.uint64(1)) % nn)


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
