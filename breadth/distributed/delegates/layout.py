"""The delegates layout (Pan, Pearce, Owens, IPDPS'18): degree-separated partition
(``delegates.partition``), the four subgraphs (``delegates.subgraphs``), the search with the
delegate-mask all-reduce and the nn all-to-all (``delegates.search``). Described by ``LAYOUTS``
as "delegates"/"alltoall"; the threshold travels as ``options.params["threshold"]``
("auto" or an integer, ``checks.check_threshold``).

Construction (collective): the owned rows' build (``owned.build.build_ranges``, the streamed
``owned.stream_build.build_ranges_stream`` for generated tuples, or ``owned.build.slice_native`` for
a native file) gives every rank the out-rows (and, directed, the in-rows) of its range; one
Allreduce of an out-degree histogram fixes TH (``auto_threshold``), one Allgatherv the
delegate list, then every rank cuts its subgraphs locally (``Subgraphs``) and an Allreduce
sums the nn/nd/dn/dd counts and the memory figures for the report.

Memory: the search reads only the subgraphs (``Subgraphs.nbytes``). The 1D rows are kept
beside them as the validator's independent view of the graph (``owned.validate.validate_owned``
checks the trees against the original adjacency, not against the subgraphs) and for the
Graph500 edge counts; the report gives the subgraphs' bytes next to that 1D CSR and to a
16-byte-per-arc edge list, the paper's comparison (Sec. III-C).
"""
from __future__ import annotations

import functools
import time

import numpy as np

from ...checks import check_threshold
from ..layout import Layout, Param
from ..owned.alltoall import alltoall_state_bytes
from ..owned.build import LocalGraph, build_ranges, slice_native
from ..owned.memory import owned_rank_bytes
from ..owned.stream_build import build_ranges_stream
from ..owned.validate import validate_owned
from ..search_base import collective
from . import cost
from .exchange import DEFAULT_MASK, MASK_MODES, check_mask
from .partition import Delegates, auto_threshold, degree_histogram
from .search import DelegatesSearch
from .subgraphs import Subgraphs


class DelegatesGraph(LocalGraph):
    """A rank's 1D rows (validation, edge counts) and its four subgraphs (``sub``, the search's)."""

    def __init__(self, part: Delegates, lg1: LocalGraph, sub: Subgraphs):
        super().__init__(part, lg1.indptr, lg1.indices, lg1.in_indptr, lg1.in_indices, directed=lg1.directed,
                         tuple_degree=lg1.tuple_degree)
        self.sub = sub

    @property
    def csr_1d_nbytes(self) -> int:
        return LocalGraph.nbytes.fget(self) - self.tuple_degree.nbytes

    @property
    def nbytes(self) -> int:
        return LocalGraph.nbytes.fget(self) + self.sub.nbytes


def separate(comm, lg1: LocalGraph, options) -> DelegatesGraph:
    """Degree separation of a 1D graph (collective; see the module header)."""
    threshold = collective(check_threshold, options.params.get("threshold", "auto"))
    part1, P, n = lg1.partition, comm.size, lg1.num_vertices
    hist = comm.allreduce(degree_histogram(lg1.out_degree()))
    th = auto_threshold(hist, n, P) if threshold == "auto" else threshold
    mine = part1.lo + np.flatnonzero(lg1.out_degree() > th)
    dels = comm.allgatherv(mine.astype(np.int64))
    part = Delegates(part1.bounds, comm.rank, dels, th)
    sub = Subgraphs(lg1, part)
    lg = DelegatesGraph(part, lg1, sub)
    local = np.concatenate([sub.arc_counts(), [sub.cut_nn, lg1.local_arcs]]).astype(np.int64)
    counts = comm.allreduce(local)
    arcs = int(counts[5])
    mem = comm.mpi.allgather((sub.nbytes, lg.csr_1d_nbytes, 16 * lg1.local_arcs))   # reporting: not counted
    stats = {"threshold_rule": "auto" if threshold == "auto" else "given", "arcs": arcs,
             "cut_nn_arcs": int(counts[4])}
    for k, name in enumerate(("nn", "nd", "dn", "dd")):
        stats[f"{name}_arcs"] = int(counts[k])
        stats[f"{name}_percent"] = round(100.0 * counts[k] / arcs, 3) if arcs else 0.0
    stats["delegate_percent"] = round(100.0 * part.num_delegates / n, 4) if n else 0.0
    stats["memory_per_rank"] = {"subgraphs_bytes": [m[0] for m in mem], "csr_1d_bytes": [m[1] for m in mem],
                                "edge_list_16B_bytes": [m[2] for m in mem]}
    part.stats = stats
    return lg


def check_params(params: dict, nprocs: int) -> dict:
    """The delegates layout's options: ``threshold`` ("auto" or an integer >= 0) and ``mask`` (how the
    delegate mask is shared: "allreduce" or "iallreduce", ``exchange.MASK_MODES``)."""
    out = dict(params)
    out["threshold"] = check_threshold(out.get("threshold", "auto"))
    out["mask"] = check_mask(out.get("mask", DEFAULT_MASK))
    return out


def _build(comm, src, dst, num_vertices, directed, options):
    collective(check_threshold, options.params.get("threshold", "auto"))       # before any work
    return separate(comm, build_ranges(comm, src, dst, num_vertices, directed), options)


def _slice(comm, graph, options):
    collective(check_threshold, options.params.get("threshold", "auto"))
    return separate(comm, slice_native(comm, graph), options)


def _stream(comm, source, num_vertices, directed, options):
    """The streamed 1D build, then the same separation; the separation counts as construction."""
    collective(check_threshold, options.params.get("threshold", "auto"))
    lg1, seconds = build_ranges_stream(comm, source, num_vertices, directed)
    t0 = time.perf_counter()
    lg = separate(comm, lg1, options)
    return lg, dict(seconds, construction=seconds["construction"] + time.perf_counter() - t0)


def estimate_bytes(num_vertices, num_tuples, nprocs, options, directed, streamed=False) -> int:
    """The owned rows' peak with the all-to-all's state (tuple-list or streamed build) plus the subgraphs
    and their construction temporaries (about 40 bytes per arc of the rank: row/column numbers, masks,
    the sorted copies)."""
    P = max(1, int(nprocs))
    arcs = num_tuples * (1 if directed else 2) / P * (2 if directed else 1)
    return owned_rank_bytes(num_vertices, num_tuples, P, alltoall_state_bytes, directed, streamed) + int(40 * arcs)


def _threshold(text):
    """--threshold's value for the library: "auto", an int, or the text itself (the library's check names it)."""
    try:
        return int(text)
    except ValueError:
        return text


PARAMS = (
    Param("threshold", "--threshold", metavar="TH|auto", type=_threshold,
          help="vertices of out-degree > TH are delegates, replicated on every rank (Pan et al.); auto "
               "(default): the smallest power of two leaving at most n/P delegates (the paper's rule)"),
    Param("mask", "--delegate-mask", choices=MASK_MODES,
          help="how the delegates found in a level are shared; allreduce (default): their count rides in the "
               "normal exchange's count Alltoall, then nothing, their numbers (Allgatherv) or the d-bit mask "
               "(blocking Allreduce), whichever is smallest; overlap: the same forms, non-blocking, overlapped "
               "with the normal ids' Alltoallv; iallreduce: always the d-bit mask, its Iallreduce overlapped "
               "with the whole normal exchange (the paper's IR)"),
)

LAYOUTS = (
    Layout("delegates", "alltoall", DelegatesSearch, Delegates, _build, _slice, validate_owned, estimate_bytes,
           cost=cost, params=PARAMS, build_stream=_stream,
           estimate_stream=functools.partial(estimate_bytes, streamed=True), default=True,
           summary="degree separation (Pan et al.): delegates replicated, their mask OR-reduced per level; "
                   "normal->normal discoveries routed with Alltoallv",
           about="degree separation: high-degree vertices replicated as delegates (Pan et al.)",
           check_params=check_params),
)
