"""DistEngine's build side: the memory check, Graph500 kernels 0 and 1, and the graph inputs.

``EngineBuild`` is the base class of ``breadth.distributed.engine.DistEngine`` holding what
happens before the first search: the per-host memory check (``check_memory``, the layout's
estimate against each host's available memory), the choice between the tuple-array and the
streamed build (``choose_build``), kernel 0 (``generate``: this rank's share of the Kronecker
tuples, or what to regenerate when streaming), kernel 1 (``construct``: the layout's build and
its search state, on the engine's device), and the other ways to a distributed graph
(``build_from_edges``, ``load`` of a native .npz or a Graph500 pair file). Every method is
collective; the engine's settings (layout, options, ``comm``, threads) come from
``DistEngine.__init__``.
"""
from __future__ import annotations

import functools
import os
import socket

import numpy as np

from ..errors import BreadthError, InputError, MemoryEstimateError
from ..graph.generators import LIST_SHARE, GeneratedTuples, check_scale, kronecker_edges
from ..graph.memory import GiB, available_bytes
from .owned.build import tuple_share
from .runtime import numba_threads
from .search_base import collective


def _threaded(method):
    """Run an engine method with the engine's numba thread count, restoring the caller's after."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with numba_threads(self.threads):
            return method(self, *args, **kwargs)
    return run


class EngineBuild:
    """The build steps of ``DistEngine`` (its base class; see the module header)."""

    # ---------------------------------------------------------------- memory
    def estimate(self, num_vertices, num_tuples, streamed=False) -> int:
        """One rank's peak bytes for a graph of this size: the layout's estimate of the build from tuple
        arrays, or (``streamed``) of its streaming build."""
        fn = self.layout.estimate_stream if streamed else self.layout.estimate_bytes
        return fn(num_vertices, num_tuples, self.nprocs, self.options, self.directed)

    def check_memory(self, what, num_vertices, num_tuples, streamed=False):
        """Refuse (on every rank) a job whose per-host peak exceeds that host's available memory.

        Args:
            what: the work, for the message.
            num_vertices: the graph's vertex count.
            num_tuples: its edge tuples.
            streamed: estimate the streaming build.

        Raises:
            MemoryEstimateError: some host's ranks would not fit (raised on every rank).
        """
        per_rank = self.estimate(num_vertices, num_tuples, streamed)
        local = self.comm.local_size
        avail = available_bytes()
        error = None
        if per_rank * local > avail:
            host = socket.gethostname()
            build = "streamed build" if streamed else "build from tuple arrays"
            hint = ""
            if not streamed and self.layout.build_stream is not None and what.startswith("a scale-"):
                hint = f" (streaming the tuples needs about {_size(self.estimate(num_vertices, num_tuples, True))})"
            error = MemoryEstimateError(
                f"{what} on {self.nprocs} ranks ({build}) needs about {_size(per_rank)} per rank "
                f"({local} ranks on host {host}: {_size(per_rank * local)}) but only {_size(avail)} "
                f"is available on host {host}{hint}; use more hosts or ranks")
        self.comm.agree(error)

    def choose_build(self, scale, edgefactor):
        """Settle ``streaming`` when it was left to the engine (None): stream a generated graph only when
        the build from tuple arrays would need more than ``LIST_SHARE`` of some host's available
        memory and the layout can stream (agreed by all ranks). Called before kernel 0."""
        if self.streaming is None:
            n = 1 << scale
            want = self.layout.build_stream is not None and \
                self.estimate(n, edgefactor * n) * self.comm.local_size > LIST_SHARE * available_bytes()
            self.streaming = bool(self.comm.allreduce(np.array([want], dtype=np.int64), op="max")[0])

    def _agreed(self, fn, *args):
        """Run a step that may fail on some ranks only; every rank raises the first failure (``Comm.agree``)."""
        error, out = None, None
        try:
            out = fn(*args)
        except BreadthError as exc:
            error = exc
        self.comm.agree(error)
        return out

    # ---------------------------------------------------------------- kernel 0 and 1
    @_threaded
    def generate(self, scale, edgefactor, seed):
        """Kernel 0 (collective): this rank's share of the Kronecker tuples, or, streaming, what to generate.

        Args:
            scale: log2 of the vertex count.
            edgefactor: edge tuples per vertex.
            seed: the generator's seed.
        """
        collective(check_scale, scale, edgefactor, "edgefactor")
        self.choose_build(scale, edgefactor)
        n = 1 << scale
        m = edgefactor * n
        self.check_memory(f"a scale-{scale} graph ({n:,} vertices, {m:,} edge tuples)", n, m, self.streaming)
        self.num_vertices = n
        if self.streaming:          # kernel 0 fused into the build: only what to generate
            self._source = GeneratedTuples("kronecker", scale, edgefactor, seed)
            return
        start, stop = tuple_share(m, self.rank, self.nprocs)
        self._edges = self._agreed(kronecker_edges, scale, edgefactor, seed, start, stop)

    @_threaded
    def warm_up(self):
        """Ahead of kernel 1 (collective): a streamed build first runs on a tiny generated graph, so
        that loading or compiling its kernels is not counted in the split of the timed build. The
        tuple-array build's kernels load as they are first used (the Stopwatch around kernel 1 leaves
        that out), and the benchmark's untimed warm-up search loads the search kernels."""
        if self._source is not None:
            with self.comm.phase("construct"):
                self.layout.build_stream(self.comm, GeneratedTuples("kronecker", 6, 4, 1), 1 << 6, self.directed,
                                         self.options)

    @_threaded
    def construct(self):
        """Kernel 1 (collective, timed): the layout's distributed build from the generated tuples."""
        with self.comm.phase("construct"):
            if self._source is not None:
                self.lg, self._split = self.layout.build_stream(self.comm, self._source, self.num_vertices,
                                                                self.directed, self.options)
            else:
                src, dst = self._edges
                self.lg = self.layout.build(self.comm, src, dst, self.num_vertices, self.directed, self.options)
        self._make_state()

    def kernel_times(self) -> dict | None:
        """Streamed: this rank's fused build split into generation (the first pass's, kernel 0),
        construction (kernel 1 without tuple generation) and regeneration (the later passes'); else None."""
        return self._split

    def _make_state(self):
        with self.comm.phase("construct"):
            if self.device != "cpu":            # the layout's variant for the device (one rank per GPU)
                self.state = self._agreed(self.layout.devices[self.device], self.comm, self.lg, self.options)
            else:
                self.state = self.layout.search(self.comm, self.lg, self.options)

    def after_construct(self):
        """Untimed bookkeeping after kernel 1: the tuples are dropped."""
        self._edges = None
        self._source = None

    @_threaded
    def build_from_edges(self, src, dst, num_vertices, directed=None):
        """Construct from this rank's share of an edge list (the shares together form the graph).

        Args:
            src: this rank's edge sources (global ids).
            dst: this rank's edge targets.
            num_vertices: the global vertex count.
            directed: build a directed graph (None: the engine's setting).

        Returns:
            The engine, ready to search.
        """
        if directed is not None:
            self.directed = bool(directed)
        self.num_vertices = int(num_vertices)
        total = int(self.comm.allreduce(np.array([np.asarray(src).size], dtype=np.int64))[0])
        self.check_memory(f"a graph of {num_vertices:,} vertices and {total:,} edges", num_vertices, total)
        self._edges = (src, dst)
        self.construct()
        self.after_construct()
        return self

    @_threaded
    def load(self, path):
        """Read this rank's share of a graph file: native .npz (its rows) or Graph500 int64 pairs (its tuples).

        Args:
            path: the file (every rank reads its own share).

        Returns:
            The engine, ready to search.

        Raises:
            InputError: a missing or malformed file, or another format (the same on every rank).
        """
        fmt = self._agreed(_file_format, path)
        if fmt == "native":
            from ..graph.native import load

            graph = self._agreed(load, path, True, False)
            self.directed = graph.directed
            self.num_vertices = graph.num_vertices
            self.check_memory(f"{path} ({graph.num_vertices:,} vertices, {int(graph.indptr[-1]):,} arcs)",
                              graph.num_vertices, int(graph.indptr[-1]) // (1 if graph.directed else 2))
            with self.comm.phase("construct"):
                self.lg = self.layout.slice_native(self.comm, graph, self.options)
            self._make_state()
        else:
            src, dst, n = self._agreed(_read_pairs_share, path, self.rank, self.nprocs)
            n = int(self.comm.allreduce(np.array([n], dtype=np.int64), op="max")[0])
            self.build_from_edges(src, dst, n, directed=False)
        return self


def _size(nbytes) -> str:
    """Bytes for a message: GiB from 1 GiB on, MiB below."""
    return f"{nbytes / GiB:.1f} GiB" if nbytes >= GiB else f"{nbytes / (1 << 20):.0f} MiB"


def _file_format(path):
    from ..graph.io import infer_format
    from ..graph.io._common import check_input

    path = check_input(path)
    fmt = infer_format(path)
    if path.lower().endswith(".gz") or fmt not in ("native", "graph500"):
        raise InputError(f"{path}: distributed runs read native .npz files (each rank maps its rows) or Graph500 "
                         f"int64 pair files .g500/.bin (each rank reads its tuples), uncompressed; convert "
                         f"this {fmt} file with 'breadth convert' first")
    return fmt


def _read_pairs_share(path, rank, nprocs):
    """This rank's tuples of a Graph500 int64-pair file and the largest id seen + 1."""
    size = os.path.getsize(path)
    if size % 16:
        raise InputError(f"{path}: size {size} is not a multiple of 16 bytes (int64 pairs)")
    start, stop = tuple_share(size // 16, rank, nprocs)
    pairs = np.fromfile(path, dtype="<i8", count=2 * (stop - start), offset=16 * start).reshape(-1, 2)
    src = np.ascontiguousarray(pairs[:, 0], dtype=np.int64)
    dst = np.ascontiguousarray(pairs[:, 1], dtype=np.int64)
    if src.size and min(src.min(), dst.min()) < 0:
        raise InputError(f"{path}: negative vertex id")
    n = int(max(src.max(), dst.max())) + 1 if src.size else 0
    return src, dst, n
