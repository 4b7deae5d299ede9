"""Public many-source BFS API: depth matrices and the analyses iBFS serves (SIGMOD'16, section 1).

Every function plans the run (``plan``) and runs the sources in groups of joint traversals (``runner``).
The reducers (closeness, harmonic centrality, eccentricity) never build the
|S| x n depth matrix: each group's traversal counts, per level, the vertices
each instance reaches for the first time (a levels x group histogram), and
the per-source sums are folded from it. ``khop_reachability`` keeps the final
bitwise status of a depth-limited traversal instead, which is exactly the
reachability index of the paper.

Common keyword arguments: ``groupby`` ("rules": the paper's out-degree GroupBy,
or "random"), ``group_size`` and ``words`` (W: 64-bit status words per vertex,
up to 64 W sources per group; by default chosen from the source count and
memory), ``algorithm`` ("do" direction-optimizing per group, "td", "bu"),
``progress`` (a bar over groups on stderr: False none, the default; None on a
terminal; True always; see ``breadth.progress``), ``checkpoint`` (a directory;
a rerun with the same arguments resumes), ``comm`` (an mpi4py communicator:
groups are shared among its ranks, the result is returned on rank 0 and None
elsewhere), ``device`` ("cpu", or "cuda": groups run on the GPU with the kernels of
``breadth.gpu``, the same results; under MPI each rank uses GPU local rank % GPUs).
"""
from __future__ import annotations

import numpy as np

from ..checks import as_graph, as_vertex_ids
from ..docstrings import shared_args
from ..errors import InputError
from ..kernels.policy import ALPHA, BETA
from .plan import Traversal
from .results import MultiResult
from .runner import execute


def as_sources(graph, sources) -> np.ndarray:
    """Validate sources (None = every vertex) as int64 ids in range; repeats are allowed."""
    if sources is None:
        return np.arange(graph.num_vertices, dtype=np.int64)
    return as_vertex_ids(sources, graph.num_vertices, "source", allow_empty=True)


def msbfs(graph, sources=None, *, max_depth=None, keep_depths=False, direction="out", groupby="rules",
          group_size=None, words=None, algorithm="do", alpha=ALPHA, beta=BETA, p_values=None, q=None,
          seed=0, progress=False, checkpoint=None, comm=None, keep_reach=False,
          device="cpu", to_host=True) -> MultiResult | None:
    """BFS from every source at once (iBFS): per-source summaries, and the depths if kept.

    The sources run in groups of joint traversals with bitwise status arrays (up to 64 W
    sources a group); each group's traversal counts, per level, the vertices each instance
    reaches first, from which the per-source sums are folded.

    Args:
        graph: a ``breadth.Graph`` or a scipy sparse matrix.
        sources: the source vertices (None: every vertex; repeats allowed).
        max_depth: stop each search after this many levels.
        keep_depths: also keep the |S| x n depth matrix (``MultiResult.depths``).
        direction: "out" follows out-edges; "in" follows them backwards (distances *to* each
            source).
        groupby: "rules" (the paper's out-degree GroupBy, ``rule_groups``) or "random".
        group_size: sources per group (default: 64 W).
        words: W, the 64-bit status words per vertex (default: from the source count and the
            memory available, ``choose_words``).
        algorithm: each group's search: "do" direction-optimizing, "td" or "bu".
        alpha: the top-down to bottom-up switch (see ``breadth.bfs``).
        beta: the bottom-up to top-down switch.
        p_values: GroupBy's out-degree classes (default 4, 16, 64, 128).
        q: GroupBy's hub degree (default 128).
        seed: the seed of the random grouping.
        progress: a bar over groups on stderr: False none (the default), None on a terminal,
            True always.
        checkpoint: a directory: each finished group is saved there, and a rerun with the same
            arguments resumes.
        comm: an mpi4py communicator: groups are shared among its ranks and the result is
            returned on rank 0.
        keep_reach: keep each source's reach set (what ``khop_reachability`` returns).
        device: "cpu", or "cuda": groups run on the GPU with the kernels of ``breadth.gpu``.
        to_host: True (default): the depth matrix in host memory. False (``device="cuda"`` and
            ``keep_depths`` only, one process, no checkpoint): it stays in GPU memory, a numba
            device array that CuPy, PyTorch and numba take without a copy
            (``__cuda_array_interface__``); each group writes its rows there directly.

    Returns:
        A ``MultiResult``; None on the ranks other than 0 when ``comm`` has several ranks.

    Raises:
        InputError: no sources, a source out of range, or a bad option.

    Examples:
        >>> from breadth.multisource import msbfs
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> r = msbfs(g, [0, 3], keep_depths=True)
        >>> r.reached, r.distance_sum, r.eccentricity
        (array([4, 4]), array([6, 6]), array([3, 3]))
        >>> r.depths
        array([[0, 1, 2, 3],
               [3, 2, 1, 0]], dtype=uint8)
    """
    g = as_graph(graph)
    src = as_sources(g, sources)
    if src.size == 0:
        raise InputError("no sources given")
    trav = Traversal(g, src, max_depth=max_depth, groupby=groupby, group_size=group_size, words=words,
                     direction=direction, keep_depths=keep_depths, keep_reach=keep_reach,
                     algorithm=algorithm, alpha=alpha, beta=beta, p_values=p_values, q=q, seed=seed,
                     device=device, to_host=to_host)
    return execute(trav, checkpoint=checkpoint, comm=comm, progress=progress)


def multi_bfs(graph, sources, max_depth=None, **options) -> np.ndarray | None:
    """Depths from each source: a len(sources) x n matrix, row i = BFS from sources[i].

    The sources run in groups of joint traversals (iBFS, ``breadth.multisource.msbfs``).
    The dtype is the smallest unsigned integer type holding every depth (uint8
    unless some depth exceeds 254); the dtype's maximum (255 for uint8, see
    ``breadth.multisource.unreachable``) marks a vertex the source does not reach
    (or reaches only beyond ``max_depth``). The matrix is C-contiguous: row i is one block
    of n values, as searching the sources one at a time would stack them.

    Args:
        graph: a ``breadth.Graph`` or a scipy sparse matrix.
        sources: the source vertices (repeats allowed).
        max_depth: stop each search after this many levels.
        **options: keyword arguments of ``msbfs``: ``direction`` ("out", or "in": distances
            *to* each source), ``groupby`` ("rules" or "random"), ``group_size`` and ``words``
            (64-bit status words per vertex: up to 64 W sources per group; default from the
            source count and memory), ``algorithm`` ("do", "td", "bu"), ``alpha``/``beta``,
            ``progress`` (False none, None on a terminal, True always), ``checkpoint`` (a
            directory: a rerun resumes), ``comm`` (an mpi4py communicator: groups are shared
            among its ranks), ``device`` ("cpu" or "cuda"), ``to_host`` (False with "cuda": the
            matrix stays in GPU memory).

    Returns:
        The depth matrix (a numba device array with ``to_host=False``), or None on the ranks
            other than 0 when ``comm`` spreads the work over MPI ranks (rank 0 gets the whole
            matrix).

    Raises:
        InputError: a source out of range or a bad option.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> breadth.multi_bfs(g, [0, 3])
        array([[0, 1, 2, 3],
               [3, 2, 1, 0]], dtype=uint8)
        >>> breadth.multi_bfs(g, [0], max_depth=1)
        array([[  0,   1, 255, 255]], dtype=uint8)
    """
    g = as_graph(graph)
    src = as_sources(g, sources)
    if src.size == 0:
        return np.empty((0, g.num_vertices), dtype=np.uint8)
    res = msbfs(g, src, max_depth=max_depth, keep_depths=True, **options)
    return None if res is None else res.depths


def _reduce(graph, sources, direction, options, fn, dtype=np.float64):
    g = as_graph(graph)
    src = as_sources(g, sources)
    if src.size == 0:
        return np.empty(0, dtype=dtype)
    res = msbfs(g, src, direction=direction, **options)
    return None if res is None else fn(g, res)


def closeness_scores(reached, distance_sum, n: int, wf_improved: bool = True) -> np.ndarray:
    """Closeness from per-source reach counts r and distance sums: (r-1)/sum, times (r-1)/(n-1)
    with ``wf_improved``; 0 where the sum is 0."""
    r1 = (np.asarray(reached) - 1).astype(np.float64)
    dist = np.asarray(distance_sum)
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(dist > 0, r1 / np.where(dist > 0, dist, 1), 0.0)
    if wf_improved and n > 1:
        c = c * (r1 / (n - 1))
    return c


# the reducers' shared parameters and errors (``breadth.docstrings.shared_args``)
_REDUCER_ARGS = {
    "graph": "a ``breadth.Graph`` or a scipy sparse matrix.",
    "sources": "the source vertices (None: every vertex).",
    "options": "keyword arguments of ``msbfs`` (see ``multi_bfs``): ``groupby``, ``group_size``, ``words``, "
               "``algorithm``, ``alpha``, ``beta``, ``max_depth``, ``progress``, ``checkpoint``, ``comm``, "
               "``device``.",
}


@shared_args(_REDUCER_ARGS, sections={"Raises": "InputError: a source out of range or a bad option."})
def closeness(graph, sources=None, *, wf_improved=True, direction="in", **options) -> np.ndarray | None:
    """Closeness centrality of each source (every vertex by default), as networkx computes it.

    C(u) = (r - 1) / sum of distances, over the r vertices reachable (u
    included). With ``wf_improved`` (the default) it is scaled by
    (r - 1) / (n - 1): the Wasserman-Faust variant, which keeps vertices of small
    components from scoring as high as central ones in a disconnected graph.
    A vertex reaching nothing scores 0. The depth matrix is never built: each group's
    traversal counts the vertices reached per level.

    Args:
        wf_improved: scale by the reachable fraction (networkx's default).
        direction: on a directed graph, "in" uses the distances *to* u (networkx's
            convention), "out" the distances from u.

    Returns:
        float64 scores, one per source; None on the ranks other than 0 when ``comm`` spreads
            the work over MPI ranks.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> breadth.closeness(g)
        array([0.5 , 0.75, 0.75, 0.5 ])
        >>> breadth.closeness(g, [1])
        array([0.75])
    """
    def fn(g, res):
        return closeness_scores(res.reached, res.distance_sum, g.num_vertices, wf_improved)

    return _reduce(graph, sources, direction, options, fn)


@shared_args(_REDUCER_ARGS, sections={"Raises": "InputError: a source out of range or a bad option."})
def harmonic_centrality(graph, sources=None, *, direction="in", **options) -> np.ndarray | None:
    """Harmonic centrality: sum over other vertices v of 1 / d(v, u), unreachable ones adding 0.

    Args:
        direction: on a directed graph, "in" sums 1 / d(v, u), the distances *to* u (as
            networkx); "out" sums 1 / d(u, v).

    Returns:
        float64 scores, one per source; None on the ranks other than 0 when ``comm`` spreads
            the work over MPI ranks.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> breadth.harmonic_centrality(g, [0, 1])
        array([1.83333333, 2.5       ])
    """
    return _reduce(graph, sources, direction, options, lambda g, res: res.harmonic)


@shared_args(_REDUCER_ARGS, sections={"Raises": "InputError: a source out of range or a bad option."})
def eccentricity(graph, sources=None, *, direction="out", **options) -> np.ndarray | None:
    """Eccentricity of each source: its largest BFS depth (int64).

    On a connected graph this is the usual eccentricity (networkx's). On a
    disconnected (or not strongly connected) graph, where the usual one is
    infinite, it is the eccentricity within the part the source reaches.

    Args:
        direction: "out" follows out-edges (networkx's); "in" follows them backwards.

    Returns:
        int64 eccentricities, one per source; None on the ranks other than 0 when ``comm``
            spreads the work over MPI ranks.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> breadth.eccentricity(g)
        array([3, 2, 2, 3])
    """
    return _reduce(graph, sources, direction, options, lambda g, res: res.eccentricity, np.int64)


def khop_reachability(graph, sources, k: int, **options):
    """The k-hop reachability index: which vertices each source reaches within ``k`` hops.

    Each group keeps the final bitwise status of a depth-limited joint traversal, which is
    exactly the index (no depth matrix is built).

    Args:
        graph: a ``breadth.Graph`` or a scipy sparse matrix.
        sources: the source vertices.
        k: the hop limit (a non-negative integer).
        **options: keyword arguments of ``msbfs`` (see ``multi_bfs``): ``direction``,
            ``groupby``, ``group_size``, ``words``, ``algorithm``, ``alpha``, ``beta``,
            ``progress``, ``checkpoint``, ``comm``, ``device``.

    Returns:
        A len(sources) x n ``scipy.sparse.csr_array`` of bool, entry (i, v) True when v is
            within k hops of sources[i] (the source itself included); None on the ranks other
            than 0 when ``comm`` spreads the work over MPI ranks.

    Raises:
        InputError: a negative or non-integer ``k``, a source out of range, a bad option.

    Examples:
        >>> g = breadth.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> breadth.khop_reachability(g, [0, 3], 1).toarray()
        array([[ True,  True, False, False],
               [False, False,  True,  True]])
    """
    import scipy.sparse as sp

    g = as_graph(graph)
    if int(k) != k or k < 0:
        raise InputError(f"k must be a non-negative integer, got {k!r}")
    src = as_sources(g, sources)
    n = g.num_vertices
    if src.size == 0:
        return sp.csr_array((0, n), dtype=bool)
    res = msbfs(g, src, max_depth=int(k), keep_reach=True, **options)
    if res is None:
        return None
    parts = []
    for r in res.group_results:
        m = r.reach_indptr.size - 1
        parts.append(sp.csr_array((np.ones(r.reach_indices.size, dtype=bool), r.reach_indices,
                                   r.reach_indptr), shape=(m, n)))
    stacked = sp.vstack(parts, format="csr") if len(parts) > 1 else parts[0]
    order = np.concatenate([res.groups[r.index] for r in res.group_results])
    inverse = np.empty_like(order)
    inverse[order] = np.arange(order.size)
    return sp.csr_array(stacked[inverse])
