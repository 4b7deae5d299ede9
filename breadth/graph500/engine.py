"""The engine protocol of the Graph500 benchmark, and its single-node engine.

An engine is what ``run_benchmark`` drives: it generates the tuple list
(kernel 0), builds its graph from it (kernel 1), answers which candidate
search keys are non-isolated, runs one search (kernel 2), validates a result
and counts the edges a search traversed for TEPS. ``Engine`` states the
contract (a ``typing.Protocol``: engines implement it without inheriting);
``LocalEngine`` here and ``breadth.distributed.DistEngine`` implement it, and
the benchmark and its report are shared.
"""
from __future__ import annotations

import logging
from typing import Protocol, runtime_checkable

import numpy as np
from numba import prange

from ..graph.generators import GeneratedTuples, kronecker_edges, streamed_graph, streaming_needed
from ..graph.stream import warm_up as warm_up_stream
from ..graph.types import Graph
from ..jit import njit
from ..kernels.frontier import ELEM_BLOCK
from ..kernels.policy import ALPHA, BETA
from ..result import BFSResult
from ..search import BFSWorkspace, bfs
from .tuples import validate_tuples
from .validate import ValidationReport, validate

log = logging.getLogger("breadth.graph500")


@runtime_checkable
class Engine(Protocol):
    """What ``run_benchmark`` needs of an engine (a ``typing.Protocol``).

    Multi-process engines run every method on every process (collectively, in this order);
    ``is_root`` says which one reports. ``LocalEngine`` (one process) and
    ``breadth.distributed.DistEngine`` (MPI) are the two breadth provides.

    Examples:
        >>> from breadth.graph500 import Engine, LocalEngine
        >>> isinstance(LocalEngine(), Engine)
        True
    """

    name: str
    nprocs: int
    is_root: bool

    def generate(self, scale: int, edgefactor: int, seed: int) -> None:
        """Kernel 0: make (this process's share of) the edge tuples.

        Args:
            scale: log2 of the vertex count.
            edgefactor: edge tuples per vertex.
            seed: the generator's seed.
        """

    def warm_up(self) -> None:
        """Load or compile what kernel 1 and the searches run, before anything is timed."""

    def construct(self) -> None:
        """Kernel 1 (timed): build the graph from the tuples."""

    def after_construct(self) -> None:
        """Untimed bookkeeping after kernel 1 (the tuples may be dropped)."""

    def nonisolated(self, candidates: np.ndarray) -> np.ndarray:
        """Which candidate search keys have an out-edge (the same answer on every process).

        Args:
            candidates: vertex ids.

        Returns:
            A bool array, True where the candidate has an out-edge.
        """

    def search(self, root: int) -> BFSResult:
        """Kernel 2 (timed): one BFS from ``root``.

        Args:
            root: the search key.

        Returns:
            The ``BFSResult`` (a distributed engine's holds this process's share).
        """

    def validate(self, root: int, result: BFSResult) -> ValidationReport:
        """Check a search's tree by the Graph500 rules (raises ValidationError).

        Args:
            root: the search key.
            result: the search's result.

        Returns:
            The ``ValidationReport``.
        """

    def nedge(self, result: BFSResult) -> int:
        """The Graph500 TEPS edge count of a search.

        Args:
            result: the search's result.

        Returns:
            The input tuples (self-loops excluded) inside the component the search traversed.
        """

    def barrier(self) -> None:
        """Wait for every process (timing boundaries)."""

    def describe(self) -> dict:
        """The engine's settings, for the report.

        Returns:
            A JSON-ready dict.
        """

    def graph_summary(self) -> dict:
        """The constructed graph (vertices, edges, directed, layout details), for the report.

        Returns:
            A JSON-ready dict.
        """


@njit(parallel=True, cache=True)
def _tuple_degree_chunks(src, dst, counts):
    """counts[c, v] = non-self-loop tuple endpoints at v within chunk c."""
    nchunks = counts.shape[0]
    m = src.size
    for c in prange(nchunks):
        row = counts[c]
        for e in range(m * c // nchunks, m * (c + 1) // nchunks):
            if src[e] != dst[e]:
                row[src[e]] += 1
                row[dst[e]] += 1


def tuple_degree(src, dst, n) -> np.ndarray:
    """Per vertex, the non-self-loop input tuples touching it (duplicates counted)."""
    import numba

    counts = np.zeros((numba.get_num_threads(), n), dtype=np.int64)
    _tuple_degree_chunks(src, dst, counts)
    return counts.sum(axis=0)


@njit(cache=True)
def _block_tuple_endpoints(b, parent, tdeg):
    """The tuple endpoints of the reached vertices of block b (a function of its own so that the
    prange reduction compiles on Python >= 3.12, numba issue 10132)."""
    s = 0
    for v in range(b * ELEM_BLOCK, min(parent.size, (b + 1) * ELEM_BLOCK)):
        if parent[v] >= 0:
            s += tdeg[v]
    return s


@njit(parallel=True, cache=True)
def _reached_tuple_endpoints(parent, tdeg):
    total = 0
    for b in prange((parent.size + ELEM_BLOCK - 1) // ELEM_BLOCK):
        total += _block_tuple_endpoints(b, parent, tdeg)
    return total


class LocalEngine:
    """One process, all threads: breadth's numba kernels.

    With streaming, kernels 0 and 1 are fused: the tuples are generated chunk by chunk into
    the streaming build's two passes and never held (``graph/stream.py``). ``kernel_times``
    then splits the build's time: the count pass (generation with the degree count in one
    kernel) is kernel 0, the rest of the build is kernel 1, and the place pass's regeneration
    is reported on its own. Without streaming the tuple list is generated whole (kernel 0) and
    built from (kernel 1), as the reference does.

    Args:
        algorithm: the search: "do" (direction-optimizing), "td" or "bu".
        alpha: Beamer's top-down to bottom-up switch (see ``breadth.bfs``).
        beta: Beamer's bottom-up to top-down switch.
        directed: build a directed graph from the tuples.
        streaming: True streams (``--stream``), False builds from the tuple list, None (the
            default) streams when the tuple-list build would not fit in the memory available.
        validate_tuples: also check every tree against the regenerated tuples.

    Examples:
        >>> from breadth.graph500 import LocalEngine
        >>> engine = LocalEngine()
        >>> engine.generate(6, 16, 1)
        >>> engine.construct()
        >>> engine.after_construct()
        >>> r = engine.search(17)
        >>> engine.validate(17, r).reached, engine.nedge(r)
        (63, 969)
        >>> engine.graph_summary()
        {'vertices': 64, 'edges': 386, 'directed': False}
    """

    name = "numba"
    nprocs = 1
    is_root = True

    def __init__(self, algorithm="do", alpha=ALPHA, beta=BETA, directed=False, streaming=None,
                 validate_tuples=False):
        self.algorithm = algorithm
        self.alpha = alpha
        self.beta = beta
        self.directed = directed
        self.streaming = streaming
        self.validate_tuples = validate_tuples   # also check every tree against the regenerated tuples
        self.graph: Graph | None = None
        self._edges = None
        self._source = None
        self._tdeg = None
        self._split = None
        self._workspace = None

    def choose_build(self, scale, edgefactor):
        """Settle ``streaming`` when it was left to the engine (None): stream only when the tuple
        list would not fit. Called before the memory check and kernel 0.

        Args:
            scale: log2 of the vertex count.
            edgefactor: edge tuples per vertex.
        """
        if self.streaming is None:
            self.streaming = streaming_needed(scale, edgefactor, self.directed)
            if self.streaming:
                log.info("scale %d: the tuple list would not fit in available memory; the tuples are streamed "
                         "into the build", scale)

    # kernel 0
    def generate(self, scale, edgefactor, seed):
        """Streaming: only remember what to generate (the build generates); else the tuple list.

        Args:
            scale: log2 of the vertex count.
            edgefactor: edge tuples per vertex.
            seed: the generator's seed.
        """
        self.choose_build(scale, edgefactor)
        self.num_vertices = 1 << scale
        self._source = GeneratedTuples("kronecker", scale, edgefactor, seed)
        if not self.streaming:
            self._edges = kronecker_edges(scale, edgefactor, seed)

    def warm_up(self):
        """Load (or compile) the construction and search kernels before anything is timed.

        A tiny graph with a duplicate edge and a self-loop takes every path of the builder.
        """
        src = np.array([0, 0, 1, 2, 2], dtype=np.int64)
        dst = np.array([1, 1, 2, 2, 3], dtype=np.int64)
        g = Graph.from_edges(src, dst, num_vertices=4, directed=self.directed)
        tuple_degree(src, dst, 4)
        if self.streaming:
            warm_up_stream()
            streamed_graph(GeneratedTuples("kronecker", 3, 4, 1), self.directed, progress=False)
        if self.validate_tuples:
            g4 = GeneratedTuples("kronecker", 2, 2, 1)
            validate_tuples(g4, np.zeros(4, dtype=np.int64))
            validate_tuples(g4, np.zeros(4, dtype=np.int32))
        for algorithm in {self.algorithm, "do"}:
            bfs(g, 0, algorithm, workspace=BFSWorkspace(4))    # the specialisation search() runs

    # kernel 1
    def construct(self):
        """Kernel 1 (timed): the CSR from the tuples (``Graph.from_edges``), or the streaming build."""
        if self._edges is None:      # streaming: the source regenerates the tuples
            self.graph, self._tdeg, sec = streamed_graph(self._source, self.directed, progress=False)
            self._split = {"generation": sec["fill"], "construction": sec["build"], "regeneration": sec["refill"]}
            return
        src, dst = self._edges
        self.graph = Graph.from_edges(src, dst, num_vertices=self.num_vertices, directed=self.directed)

    def kernel_times(self) -> dict | None:
        """Streaming: the fused build's seconds split into generation (kernel 0), construction
        (kernel 1 without tuple generation) and regeneration (the place pass's); else None.

        Returns:
            None without streaming, else a dict of seconds.
        """
        return self._split

    def after_construct(self):
        """Untimed bookkeeping: tuple degrees for the TEPS edge count (the streaming build counted
        them in its count pass); the tuples are then dropped."""
        if self._edges is not None:
            src, dst = self._edges
            self._tdeg = tuple_degree(src, dst, self.num_vertices)
            self._edges = None

    def nonisolated(self, candidates: np.ndarray) -> np.ndarray:
        """Which candidate search keys have an out-edge (on a directed graph, a vertex with only
        in-edges would reach nothing and count no edge).

        Args:
            candidates: vertex ids.

        Returns:
            A bool array, True where the candidate has an out-edge.
        """
        return self.graph.out_degree()[candidates] > 0

    # kernel 2
    def search(self, root) -> BFSResult:
        """One search; its arrays live in the engine's workspace until the next search.

        Args:
            root: the search key.

        Returns:
            The ``BFSResult`` (copy what you keep: the next search overwrites its arrays).
        """
        if self._workspace is None:
            self._workspace = BFSWorkspace(self.graph.num_vertices)
        return bfs(self.graph, root, self.algorithm, alpha=self.alpha, beta=self.beta,
                   workspace=self._workspace)

    def validate(self, root, result: BFSResult) -> ValidationReport:
        """The Graph500 rules on the built graph; with ``validate_tuples`` also the rules that read
        the input tuples, over tuples regenerated chunk by chunk.

        Args:
            root: the search key.
            result: the search's result.

        Returns:
            The ``ValidationReport``.

        Raises:
            ValidationError: a rule is broken.
        """
        report = validate(self.graph, root, result.parent, result.depth)
        if self.validate_tuples:
            validate_tuples(self._source, result.depth, self.directed)
        return report

    def nedge(self, result: BFSResult) -> int:
        """Graph500 TEPS count: non-self-loop input tuples inside the traversed component.

        Args:
            result: the search's result.

        Returns:
            The edge count.
        """
        return int(_reached_tuple_endpoints(result.parent, self._tdeg)) // 2

    def barrier(self):
        """Nothing to wait for: one process."""
        pass

    def describe(self) -> dict:
        """The engine's settings (threads, algorithm, alpha, beta), for the report.

        Returns:
            A JSON-ready dict.
        """
        import numba

        return {"engine": self.name, "threads": numba.get_num_threads(), "algorithm": self.algorithm,
                "alpha": self.alpha, "beta": self.beta, "streaming": self.streaming}

    def graph_summary(self) -> dict:
        """Vertices, edges and directedness of the constructed graph, for the report.

        Returns:
            A JSON-ready dict.
        """
        g = self.graph
        return {"vertices": g.num_vertices, "edges": g.num_edges, "directed": g.directed}
