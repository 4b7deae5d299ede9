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

The build side (memory check, kernels 0 and 1, ``build_from_edges``, ``load``) is the base
class ``EngineBuild`` of ``engine_build.py``; this module holds the options, the searches and
the reports.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import InputError
from ..kernels.policy import ALPHA, BETA
from ..result import BFSResult
from . import registry
from .comm import Comm
from .engine_build import EngineBuild, _threaded
from .faults.watchdog import HEARTBEAT, check_stall_timeout, start_watchdog
from .runtime import auto_threads, check_threads, get_mpi
from .search_base import SearchOptions, collective

class DistEngine(EngineBuild):
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
        >>> from breadth.graph500 import Graph500Config, run_benchmark
        >>> engine = DistEngine(partition="1d", exchange="alltoall")
        >>> res = run_benchmark(Graph500Config(scale=6, nroots=2), engine, progress=False)
        >>> res.nbfs, res.nedges, engine.nprocs
        (2, [969, 969], 1)
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

    # ---------------------------------------------------------------- benchmark interface
    def nonisolated(self, candidates) -> np.ndarray:
        """Which candidate search keys have an out-edge (collective; the same answer on every rank).

        Args:
            candidates: global vertex ids.

        Returns:
            A bool array.
        """
        return self.key_degrees(candidates) > 0

    def key_degrees(self, candidates) -> np.ndarray:
        """The out-degree of each candidate search key, from its owner's row (collective; the same
        answer on every rank).

        Args:
            candidates: global vertex ids.

        Returns:
            An int64 array.
        """
        c = np.asarray(candidates, dtype=np.int64)
        part = self.lg.partition
        mine = part.owns(c)
        got = np.zeros(c.size, dtype=np.int64)
        got[mine] = self.lg.key_degree()[part.to_local(c[mine])]
        with self.comm.phase("roots"):
            return self.comm.allreduce(got, op="max")

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
