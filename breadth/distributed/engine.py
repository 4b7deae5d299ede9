"""DistEngine: the MPI engine of the Graph500 benchmark and of ``breadth bfs --ranks``.

Implements ``breadth.graph500.engine.Engine`` (the protocol ``LocalEngine`` implements
too) for any registered layout (``registry``: a partition + exchange pair with its
builder, search and validator: the packages ``one_d``, ``two_d`` and ``delegates``).
Every method is collective: all ranks call it, in the same order.

* kernel 0: rank r generates tuples [m*r/P, m*(r+1)/P) of the counter-based
  Kronecker generator (the single-node graph for the same seed);
* kernel 1 (timed): the layout's construction (partition, routing, local CSR) and
  its search state;
* ``streaming`` (None: when the tuple arrays would not fit and the layout can): kernels 0
  and 1 fused, each rank's share regenerated and routed in rounds, never held whole (the
  layout's ``build_stream``); ``kernel_times`` splits the time as the single-node
  streaming build does;
* search keys: ``nonisolated`` answers with one Allreduce, so all ranks agree;
* ``search`` returns a ``DistBFSResult`` (this rank's vertices' parent/depth, global
  level statistics with messages/bytes/comm_seconds, per-rank communication in
  ``extra["communication"]``); ``gather`` assembles global arrays on rank 0;
* ``validate`` is the layout's distributed validator; ``nedge`` the Graph500 TEPS
  count (non-self-loop tuples inside the traversed component, duplicates included)
  from per-vertex tuple degrees and one Allreduce.

Before allocating, ``check_memory`` asks the layout for every rank's peak and
refuses a job whose ranks on one host would not fit in that host's available memory.

Global state: the engine runs its kernels with ``threads`` numba threads per rank
(default: ``runtime.auto_threads``, the host's cores shared among its ranks), set
around each of its calls and restored after (``runtime.numba_threads``); it does not
touch ``sys.excepthook`` -- entry points call ``runtime.install_abort_hook``. On a job of
several ranks it starts the process's stall watchdog (``faults.watchdog``, one daemon
thread per process, shared by every engine of the process).
"""
from __future__ import annotations

import dataclasses
import functools
import os
import socket

import numpy as np

from ..errors import BreadthError, InputError, MemoryEstimateError
from ..graph.generators import LIST_SHARE, GeneratedTuples, check_scale, kronecker_edges
from ..graph.memory import GiB, available_bytes
from ..kernels.policy import ALPHA, BETA
from ..result import BFSResult
from . import registry
from .comm import Comm
from .faults.watchdog import HEARTBEAT, check_stall_timeout, start_watchdog
from .owned.build import tuple_share
from .runtime import auto_threads, check_threads, get_mpi, numba_threads
from .search_base import SearchOptions, collective


def _threaded(method):
    """Run an engine method with the engine's numba thread count, restoring the caller's after."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with numba_threads(self.threads):
            return method(self, *args, **kwargs)
    return run


class DistEngine:
    """MPI engine over a registered layout (Graph500 kernels 0-2 and validation). Construction is collective.

    Run one per rank under ``mpiexec`` (or ``breadth ... --ranks N``); it is also a
    ``breadth.graph500.Engine``, so ``run_benchmark`` drives it. A job of one rank needs no
    launcher.

    Args:
        exchange: the frontier exchange ("alltoall", "butterfly", ...; None: the partition's
            default, ``registry.default_exchange``).
        fanout: the ButterFly exchange's fan-out.
        algorithm: the search: "do" (direction-optimizing), "td" or "bu".
        alpha: the top-down to bottom-up switch (see ``breadth.bfs``).
        beta: the bottom-up to top-down switch.
        directed: build a directed graph.
        comm: an mpi4py communicator or a ``Comm`` (None: the world).
        threads: numba threads per rank (None: the cores divided among the ranks of a host).
        encoding: the ButterFly exchange's frontier encoding ("auto" picks per level).
        partition: the vertex partition ("1d", "2d", "delegates"; ``registry.partitions()``).
        params: layout-specific options by name (a processor grid, a delegate threshold; the
            layout's ``Param`` list, ``registry.params()``).
        device: "cpu", or "cuda": one rank per GPU, the local steps on the GPU (the layout's
            ``devices`` variant: ``breadth.gpu.dist_butterfly`` for 1d/butterfly).
        stall_timeout: seconds a rank may wait in one MPI operation before the job is aborted
            (None: an automatic bound, 0: no watchdog).
        streaming: stream a generated graph's tuples into the build (True; layouts with a
            ``build_stream``), build from the tuple arrays (False), or stream only when the
            arrays' build would not fit (None).

    Raises:
        InputError: an unknown layout or a bad option (the same on every rank).

    Examples:
        >>> from breadth.distributed import DistEngine
        >>> engine = DistEngine(partition="1d", exchange="alltoall")
        >>> engine.generate(6, 16, 1)
        >>> engine.construct()
        >>> engine.after_construct()
        >>> r = engine.search(17)
        >>> engine.validate(17, r).reached, engine.nedge(r)
        (63, 969)
    """

    def __init__(self, exchange=None, fanout=1, algorithm="do", alpha=ALPHA, beta=BETA, directed=False,
                 comm=None, threads=None, encoding="auto", partition=registry.DEFAULT_PARTITION, params=None,
                 device="cpu", stall_timeout=None, streaming=None):
        self.comm = comm if isinstance(comm, Comm) else Comm(comm)
        self.stall_timeout = collective(check_stall_timeout, stall_timeout)
        start_watchdog(self.comm.rank, self.comm.size, self.stall_timeout)
        self.layout = collective(registry.get, partition, exchange)
        self.device = collective(_check_device, device, self.layout)
        self.options = collective(SearchOptions(algorithm, alpha, beta, fanout, encoding, dict(params or {})).checked)
        if self.layout.check_params is not None:
            checked = collective(self.layout.check_params, self.options.params, self.comm.size)
            self.options = dataclasses.replace(self.options, params=checked)
        threads = collective(check_threads, threads)
        self.threads = auto_threads(self.comm) if threads is None else threads
        self.directed = bool(directed)
        self.partition, self.exchange = self.layout.partition, self.layout.exchange
        self.algorithm = self.options.algorithm
        self.nprocs, self.rank, self.is_root = self.comm.size, self.comm.rank, self.comm.rank == 0
        self.name = f"mpi-{self.partition}-{self.exchange}" + ("-cuda" if self.device == "cuda" else "")
        self.streaming = collective(_check_streaming, streaming, self.layout)
        self.lg = None
        self.state = None
        self._edges = None
        self._source = None
        self._split = None
        self.num_vertices = None

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

    # ---------------------------------------------------------------- benchmark interface
    def nonisolated(self, candidates) -> np.ndarray:
        """Which candidate search keys have an out-edge (collective; the same answer on every rank).

        Args:
            candidates: global vertex ids.

        Returns:
            A bool array.
        """
        c = np.asarray(candidates, dtype=np.int64)
        part = self.lg.partition
        mine = part.owns(c)
        ok = np.zeros(c.size, dtype=np.int8)
        ok[mine] = self.lg.key_degree()[part.to_local(c[mine])] > 0
        with self.comm.phase("roots"):
            return self.comm.allreduce(ok, op="max").astype(bool)

    @_threaded
    def search(self, root, max_depth=None):
        """Kernel 2 (collective): one BFS from ``root``.

        Args:
            root: the search key (a global id).
            max_depth: stop after this many levels.

        Returns:
            This rank's share of the result (``gather`` assembles it on one rank).
        """
        return self.state.search(root, max_depth)

    @_threaded
    def validate(self, root, result):
        """The Graph500 rules, checked by the layout's distributed validator (collective).

        Args:
            root: the search key.
            result: the search's result.

        Returns:
            The ``ValidationReport`` (the same on every rank).

        Raises:
            ValidationError: a rule is broken (raised on every rank alike).
        """
        return self.layout.validate(self.comm, self.lg, root, result.parent, result.depth)

    def nedge(self, result) -> int:
        """The Graph500 TEPS edge count of a search (collective).

        Args:
            result: the search's result.

        Returns:
            The input tuples (self-loops excluded) inside the traversed component.
        """
        reached = result.depth >= 0
        local = int(self.lg.tuple_degree[reached].sum())
        with self.comm.phase("report"):
            return int(self.comm.allreduce(np.array([local], dtype=np.int64))[0]) // 2

    def barrier(self):
        """Wait for every rank."""
        self.comm.barrier()

    def broadcast(self, value, root=0):
        """``value`` of rank ``root`` on every rank (small Python objects: checkpoint records). Not counted."""
        HEARTBEAT.begin("bcast (checkpoint)")
        out = self.comm.mpi.bcast(value, root=root)
        HEARTBEAT.end()
        return out

    def gather(self, result, root=0) -> BFSResult | None:
        """The global parent/depth arrays of a distributed result on rank ``root`` (None elsewhere).

        Args:
            result: a distributed result.
            root: the rank that receives it.

        Returns:
            A ``BFSResult`` with the global arrays on ``root``; None on the other ranks.
        """
        parent = result.partition.gather(self.comm, result.parent, root)
        depth = result.partition.gather(self.comm, result.depth, root)
        if self.comm.rank != root:
            return None
        return BFSResult(parent, depth, result.roots, result.algorithm, result.seconds, result.levels,
                         result.engine, result.extra)

    def describe(self) -> dict:
        """The engine's settings (layout, ranks, threads, MPI library), for the report.

        Returns:
            A JSON-ready dict.
        """
        ex = self.state.exchange.describe() if self.state else {"exchange": self.exchange, "fanout": None}
        out = {"engine": self.name, "ranks": self.nprocs, "partition": self.partition, "exchange": self.exchange,
               "fanout": ex.get("fanout"), "encoding": ex.get("encoding"), "threads_per_rank": self.threads,
               "algorithm": self.algorithm, "streaming": bool(self.streaming), "alpha": self.options.alpha,
               "beta": self.options.beta,
               "mpi": get_mpi().Get_library_version().splitlines()[0].strip(), **self._device_info()}
        out.update({k: v for k, v in ex.items() if k not in out})      # layout parameters (e.g. the grid)
        return out

    def _device_info(self) -> dict:
        if self.device != "cuda":
            return {"device": "cpu"}
        from ..gpu import device

        return {"device": "cuda", "gpu": device.device_name(), "simulator": device.simulated(),
                "cuda_aware_mpi": bool(self.state and self.state.cuda_aware),
                "device_buffers_to_mpi": bool(self.state and self.state.device_mpi)}

    def graph_summary(self) -> dict:
        """The constructed graph and its distribution over the ranks (collective), for the report.

        Returns:
            A JSON-ready dict: vertices, edges, directed, the partition, per-rank vertices and arcs.
        """
        lg = self.lg
        HEARTBEAT.begin("allgather (graph summary)")
        per_rank = self.comm.mpi.allgather((lg.num_local, lg.local_arcs))
        HEARTBEAT.end()
        arcs = sum(a for _, a in per_rank)
        return {"vertices": lg.num_vertices, "edges": arcs if lg.directed else arcs // 2, "directed": lg.directed,
                "partition": lg.partition.describe(),
                "local_vertices": [v for v, _ in per_rank], "local_arcs": [a for _, a in per_rank],
                "construction_communication": self.comm.reduced_phase_totals("construct")}


def _size(nbytes) -> str:
    """Bytes for a message: GiB from 1 GiB on, MiB below."""
    return f"{nbytes / GiB:.1f} GiB" if nbytes >= GiB else f"{nbytes / (1 << 20):.0f} MiB"


def _check_streaming(streaming, layout):
    """``streaming=True`` needs a layout that can stream (``Layout.build_stream``)."""
    if streaming not in (None, True, False):
        raise InputError(f"streaming must be True, False or None, got {streaming!r}")
    if streaming and layout.build_stream is None:
        able = [lay.name for lay in registry.layouts() if lay.build_stream is not None]
        raise InputError(f"streaming=True: the {layout.name} layout builds from tuple arrays only; choose one "
                         f"of {', '.join(able)}")
    return streaming


def _check_device(device, layout) -> str:
    """A device other than the CPU runs a layout's variant for it (``Layout.devices``)."""
    from ..checks import check_device

    check_device(device)
    if device != "cpu" and device not in layout.devices:
        able = [f"the {lay.partition} partition with the {lay.exchange} exchange" for lay in registry.layouts()
                if device in lay.devices]
        raise InputError(f"device={device!r} runs {' or '.join(able) or 'no layout'}, not {layout.name}")
    if device == "cuda":
        from ..gpu.device import require_cuda

        require_cuda()
    return device


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
