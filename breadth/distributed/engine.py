"""DistEngine: the MPI engine of the Graph500 benchmark and of ``breadth bfs --ranks``.

Implements the interface of ``breadth.graph500.engine.LocalEngine`` (generate,
construct, after_construct, nonisolated, search, validate, nedge, barrier,
describe, graph_summary; is_root, nprocs, name) on a 1D-partitioned graph
(``partition.OneD``, built by ``build.build_1d``) searched by ``bfs1d.Search1D``
with the all-to-all or the ButterFly frontier exchange. Every method is
collective: all ranks call it, in the same order.

* kernel 0: rank r generates tuples [m*r/P, m*(r+1)/P) of the counter-based
  Kronecker generator (the single-node graph for the same seed);
* kernel 1 (timed): partition, Alltoallv routing, local CSR, search buffers;
* search keys: ``nonisolated`` answers with one Allreduce, so all ranks agree;
* ``search`` returns a ``DistBFSResult`` (owned vertices' parent/depth, global
  level statistics with messages/bytes/comm_seconds, per-rank communication in
  ``extra["communication"]``); ``gather`` assembles global arrays on rank 0;
* ``validate`` is the distributed validator (``validate.py``); ``nedge`` the
  Graph500 TEPS count (non-self-loop tuples inside the traversed component,
  duplicates included) from per-owned-vertex tuple degrees and one Allreduce.

Before allocating, ``check_memory`` estimates every rank's peak and refuses a job
whose ranks on one host would not fit in that host's available memory.
"""
from __future__ import annotations

import os

import numpy as np

from ..errors import BreadthError, InputError, MemoryEstimateError
from ..graph.generators import check_scale, kronecker_edges
from ..graph.memory import GiB, available_bytes, index_itemsize
from ..result import BFSResult
from .bfs1d import ALGORITHMS, EXCHANGES, Search1D
from .build import build_1d, slice_native, tuple_share
from .comm import Comm, collective_error
from .validate import validate_1d


INTERPRETER_BYTES = 128 << 20     # Python, numpy, numba and MPI in every rank


def estimate_rank_bytes(num_vertices, num_tuples, nprocs, exchange="butterfly", fanout=1, directed=False) -> int:
    """Peak bytes of one rank: max(construction, graph + search state + validation), averaged shares."""
    n, P = int(num_vertices), max(1, int(nprocs))
    isz = index_itemsize(n)
    tuples = num_tuples / P
    arcs = tuples * (1 if directed else 2)                    # routed arcs per rank, per CSR
    rows = n / P
    csr = (arcs * isz + 8 * rows) * (2 if directed else 1) + 8 * rows
    build = 16 * tuples + 2 * (2 * arcs * isz) + 2 * arcs * isz + 16 * rows * 2
    if exchange == "butterfly":
        replicated = n * isz * (3 + fanout) + n / 4
    else:
        replicated = n / 4 + 16 * arcs
    search = csr + replicated + 16 * rows * 2 + 8 * n       # + result arrays, validation depth gather
    return int(max(build + 8 * rows, search)) + INTERPRETER_BYTES


def _auto_threads(comm):
    """numba threads per rank: this rank's cores shared among the ranks on its host."""
    import numba

    try:
        mine = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        mine = os.cpu_count() or 1
    share = max(1, (os.cpu_count() or 1) // max(1, comm.local_size))
    return max(1, min(mine, share, numba.config.NUMBA_NUM_THREADS))


class DistEngine:
    """MPI engine; ``partition`` "1d" (the layouts of later issues plug in here), ``exchange``
    "alltoall" or "butterfly" (with ``fanout``)."""

    PARTITIONS = ("1d",)

    def __init__(self, exchange="butterfly", fanout=1, algorithm="do", alpha=15.0, beta=18.0, directed=False,
                 comm=None, threads=None, encoding="auto", partition="1d"):
        self.comm = comm if isinstance(comm, Comm) else Comm(comm)
        from .failure import install

        install(self.comm)
        error = None
        if partition not in self.PARTITIONS:
            error = InputError(f"unknown partition {partition!r}; choose from {', '.join(self.PARTITIONS)}")
        elif exchange not in EXCHANGES:
            error = InputError(f"unknown exchange {exchange!r}; choose from {', '.join(EXCHANGES)}")
        elif algorithm not in ALGORITHMS:
            error = InputError(f"unknown algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
        elif exchange == "butterfly" and (int(fanout) != fanout or fanout < 1):
            error = InputError(f"--fanout must be a positive integer, got {fanout!r}")
        elif encoding not in ("auto", "queue"):
            error = InputError(f"unknown butterfly encoding {encoding!r}; choose auto or queue")
        elif not (alpha > 0 and beta > 0):
            error = InputError(f"alpha and beta must be positive, got alpha={alpha}, beta={beta}")
        if error is not None:
            raise collective_error(error)
        self.partition = partition
        self.exchange = exchange
        self.fanout = int(fanout) if exchange == "butterfly" else None
        self.algorithm = algorithm
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.directed = bool(directed)
        self.encoding = encoding
        import numba

        if threads is None:
            numba.set_num_threads(_auto_threads(self.comm))
        else:
            if not 1 <= int(threads) <= numba.config.NUMBA_NUM_THREADS:
                raise collective_error(InputError(
                    f"--threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {threads}"))
            numba.set_num_threads(int(threads))
        self.lg = None
        self.state = None
        self._edges = None
        self.num_vertices = None

    # ---------------------------------------------------------------- identity
    @property
    def nprocs(self) -> int:
        return self.comm.size

    @property
    def rank(self) -> int:
        return self.comm.rank

    @property
    def is_root(self) -> bool:
        return self.comm.rank == 0

    @property
    def name(self) -> str:
        return f"mpi-{self.partition}-{self.exchange}"

    # ---------------------------------------------------------------- memory
    def check_memory(self, what, num_vertices, num_tuples):
        """Refuse (on every rank) a job whose per-host peak exceeds that host's available memory."""
        per_rank = estimate_rank_bytes(num_vertices, num_tuples, self.nprocs, self.exchange, self.fanout or 1,
                                       self.directed)
        local = self.comm.local_size
        avail = available_bytes()
        error = None
        if per_rank * local > avail:
            error = MemoryEstimateError(
                f"{what} on {self.nprocs} ranks needs about {per_rank / GiB:.1f} GiB per rank "
                f"({local} ranks on this host: {per_rank * local / GiB:.1f} GiB) but only {avail / GiB:.1f} GiB "
                f"is available; use more hosts or ranks")
        self.comm.agree(error)

    def _collective(self, fn, *args):
        """Run a step that may fail on one rank only; make any BreadthError collective."""
        error, out = None, None
        try:
            out = fn(*args)
        except BreadthError as exc:
            error = exc
        self.comm.agree(error)
        return out

    # ---------------------------------------------------------------- kernel 0 and 1
    def generate(self, scale, edgefactor, seed):
        try:
            check_scale(scale, edgefactor, "edgefactor")
        except BreadthError as exc:
            raise collective_error(exc) from None
        n = 1 << scale
        m = edgefactor * n
        self.check_memory(f"a scale-{scale} graph ({n:,} vertices, {m:,} edge tuples)", n, m)
        start, stop = tuple_share(m, self.rank, self.nprocs)
        self.num_vertices = n
        self._edges = self._collective(kronecker_edges, scale, edgefactor, seed, start, stop)

    def construct(self):
        src, dst = self._edges
        with self.comm.phase("construct"):
            self.lg = build_1d(self.comm, src, dst, self.num_vertices, self.directed)
            self._make_state()

    def _make_state(self):
        with self.comm.phase("construct"):
            self.state = Search1D(self.comm, self.lg, self.exchange, self.fanout or 1, self.algorithm, self.alpha,
                                  self.beta, self.encoding)

    def after_construct(self):
        self._edges = None

    def build_from_edges(self, src, dst, num_vertices, directed=None):
        """Construct from this rank's share of an edge list (the shares together form the graph)."""
        if directed is not None:
            self.directed = bool(directed)
        self.num_vertices = int(num_vertices)
        total = int(self.comm.allreduce(np.array([np.asarray(src).size], dtype=np.int64))[0])
        self.check_memory(f"a graph of {num_vertices:,} vertices and {total:,} edges", num_vertices, total)
        self._edges = (src, dst)
        self.construct()
        self.after_construct()
        return self

    def load(self, path):
        """Read this rank's share of a graph file: native .npz (its rows) or Graph500 int64 pairs (its tuples)."""
        fmt = self._collective(_file_format, path)
        if fmt == "native":
            from ..graph.native import load

            graph = self._collective(load, path, True, False)
            self.directed = graph.directed
            self.num_vertices = graph.num_vertices
            self.check_memory(f"{path} ({graph.num_vertices:,} vertices, {int(graph.indptr[-1]):,} arcs)",
                              graph.num_vertices, int(graph.indptr[-1]) // (1 if graph.directed else 2))
            with self.comm.phase("construct"):
                self.lg = slice_native(self.comm, graph)
            self._make_state()
        else:
            src, dst, n = self._collective(_read_pairs_share, path, self.rank, self.nprocs)
            n = int(self.comm.allreduce(np.array([n], dtype=np.int64), op="max")[0])
            self.build_from_edges(src, dst, n, directed=False)
        return self

    # ---------------------------------------------------------------- benchmark interface
    def nonisolated(self, candidates) -> np.ndarray:
        c = np.asarray(candidates, dtype=np.int64)
        lo, hi = self.lg.partition.lo, self.lg.partition.hi
        mine = (c >= lo) & (c < hi)
        ok = np.zeros(c.size, dtype=np.int8)
        deg = self.lg.any_degree()
        ok[mine] = deg[c[mine] - lo] > 0
        with self.comm.phase("roots"):
            return self.comm.allreduce(ok, op="max").astype(bool)

    def search(self, root, max_depth=None):
        return self.state.search(root, max_depth)

    def validate(self, root, result):
        return validate_1d(self.comm, self.lg, root, result.parent, result.depth)

    def nedge(self, result) -> int:
        reached = result.depth >= 0
        local = int(self.lg.tuple_degree[reached].sum())
        with self.comm.phase("report"):
            return int(self.comm.allreduce(np.array([local], dtype=np.int64))[0]) // 2

    def barrier(self):
        self.comm.barrier()

    def gather(self, result, root=0) -> BFSResult | None:
        """The global parent/depth arrays of a distributed result on rank ``root`` (None elsewhere)."""
        parent = self.comm.gatherv(result.parent, root)
        depth = self.comm.gatherv(result.depth, root)
        if self.comm.rank != root:
            return None
        return BFSResult(parent, depth, result.roots, result.algorithm, result.seconds, result.levels,
                         result.engine, result.extra)

    def describe(self) -> dict:
        import numba

        from .comm import get_mpi

        return {"engine": self.name, "ranks": self.nprocs, "partition": self.partition, "exchange": self.exchange,
                "fanout": self.fanout, "encoding": self.encoding if self.exchange == "butterfly" else None,
                "threads_per_rank": numba.get_num_threads(), "algorithm": self.algorithm,
                "alpha": self.alpha, "beta": self.beta,
                "mpi": get_mpi().Get_library_version().splitlines()[0].strip()}

    def graph_summary(self) -> dict:
        lg = self.lg
        per_rank = self.comm.mpi.allgather((lg.num_local, lg.local_arcs))
        arcs = sum(a for _, a in per_rank)
        return {"vertices": lg.num_vertices, "edges": arcs if lg.directed else arcs // 2, "directed": lg.directed,
                "partition": lg.partition.describe(),
                "local_vertices": [v for v, _ in per_rank], "local_arcs": [a for _, a in per_rank],
                "construction_communication": self.comm.reduced_phase_totals("construct")}


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
