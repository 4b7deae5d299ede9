"""The 1D layouts: edge-balanced vertex ranges (``one_d.partition.OneD``; O. Green, "ButterFly BFS",
Sec. 4) with the all-to-all exchange (owner state, ``one_d.alltoall_search``) or the ButterFly
exchange (replicated levels, ``one_d.butterfly_search``, Alg. 2; the default, also on GPUs:
``gpu.dist_butterfly``). Registered with ``registry`` through ``LAYOUTS``.

Construction: the owned rows' (``owned.build.build_ranges``: block histogram -> ranges ->
Alltoallv routing -> local CSR; ``owned.build.slice_native`` for a native file;
``owned.stream_build.build_ranges_stream`` for a generated graph, each rank's tuple share
regenerated and routed round by round). Validation: ``owned.validate.validate_owned``.
Memory: ``estimate_rank_bytes`` below. Cost models: ``alltoall_cost``, ``butterfly_cost``.
"""
from __future__ import annotations

from ...errors import InputError
from ..layout import Layout, Param
from ..owned.alltoall import alltoall_state_bytes
from ..owned.build import build_ranges, slice_native
from ..owned.memory import owned_rank_bytes
from ..owned.stream_build import build_ranges_stream
from ..owned.validate import validate_owned
from . import alltoall_cost, butterfly_cost
from .alltoall_search import AllToAllSearch
from .butterfly_search import ButterflySearch
from .partition import OneD

DEFAULT_FANOUT = 1


def estimate_rank_bytes(num_vertices, num_tuples, nprocs, exchange="butterfly", fanout=1, directed=False,
                        streamed=False, threads=None) -> int:
    """Peak bytes of one rank (``owned.memory.owned_rank_bytes``) with ``exchange``'s state: the
    butterfly's replicated level array, queues and ``fanout`` receive buffers, or the all-to-all's."""
    def butterfly_state(n, isz, arcs):
        return n * isz * (3 + fanout) + n / 4

    state = butterfly_state if exchange == "butterfly" else alltoall_state_bytes
    return owned_rank_bytes(num_vertices, num_tuples, nprocs, state, directed, streamed, threads)


def check_fanout(value) -> int:
    """Butterfly partners per round: an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"fanout must be >= 1, got {value}")
    return value


def _build(comm, src, dst, num_vertices, directed, options):
    return build_ranges(comm, src, dst, num_vertices, directed, cls=OneD)


def _slice(comm, graph, options):
    return slice_native(comm, graph, cls=OneD)


def _stream(comm, source, num_vertices, directed, options):
    return build_ranges_stream(comm, source, num_vertices, directed, cls=OneD)


def _estimator(exchange, streamed=False):
    def estimate(num_vertices, num_tuples, nprocs, options, directed):
        return estimate_rank_bytes(num_vertices, num_tuples, nprocs, exchange, options.fanout, directed, streamed)
    return estimate


def _cuda_search(comm, lg, options):
    """The ButterFly search with the local steps on this rank's GPU (one rank per GPU)."""
    from ...gpu.dist_butterfly import GpuButterflySearch

    return GpuButterflySearch(comm, lg, options)


FANOUT = Param("fanout", "--fanout", keyword=True, default=DEFAULT_FANOUT, metavar="F", type=int, check=check_fanout,
               help="butterfly partners per round (1: pairwise): a network of radix F+1 in ceil(log_(F+1) P) "
                    "rounds, P*F*log_(F+1)(P) messages per level when P is a power of F+1")
ABOUT = "contiguous vertex ranges balanced by edge count, one per rank"
_COMMON = dict(partition_type=OneD, build=_build, slice_native=_slice, validate=validate_owned,
               build_stream=_stream, about=ABOUT)

LAYOUTS = (
    Layout("1d", "alltoall", AllToAllSearch, estimate_bytes=_estimator("alltoall"),
           estimate_stream=_estimator("alltoall", True), cost=alltoall_cost,
           summary="routes (vertex, parent) pairs to their owners with Alltoallv; bottom-up levels "
                   "all-gather the frontier bitmap", **_COMMON),
    Layout("1d", "butterfly", ButterflySearch, estimate_bytes=_estimator("butterfly"),
           estimate_stream=_estimator("butterfly", True), cost=butterfly_cost, params=(FANOUT,),
           devices={"cuda": _cuda_search}, default=True,
           summary="synchronises a replicated level array over a butterfly network (Green, ButterFly BFS)",
           **_COMMON),
)
