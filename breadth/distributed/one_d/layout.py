"""The 1D layouts: edge-balanced vertex ranges (``partition.OneD``, Green's ButterFly paper, Sec. 4)
with the all-to-all exchange (owner state, ``one_d.alltoall_search``) or the ButterFly exchange
(replicated levels, ``one_d.butterfly_search``; the default). Registered with ``registry``.

Construction: ``one_d.build.build_1d`` (block histogram -> ranges -> Alltoallv routing -> local
CSR) or ``one_d.build.slice_native`` (each rank maps a native file and copies its rows).
A generated graph can instead be streamed (``one_d.stream_build.build_1d_stream``: each rank's
tuple share regenerated and routed round by round, never held whole).
Validation: ``one_d.validate.validate_owned``. Memory: ``estimate_rank_bytes`` below.
"""
from __future__ import annotations

import numba

from ...graph.memory import index_itemsize
from ...graph.rowsort import HUB
from ..registry import Layout, register
from .alltoall_search import AllToAllSearch
from .build import build_1d, slice_native
from .butterfly_search import ButterflySearch
from .stream_build import CHUNK, build_1d_stream
from .validate import validate_owned

INTERPRETER_BYTES = 128 << 20     # Python, numpy, numba and MPI in every rank


def estimate_rank_bytes(num_vertices, num_tuples, nprocs, exchange="butterfly", fanout=1, directed=False,
                        streamed=False, threads=None) -> int:
    """Peak bytes of one rank: max(construction, graph + search state + validation), averaged shares.

    Construction from tuple arrays holds the tuple share, the packed and the received arcs and the
    unsorted local CSR; ``streamed`` (``build_1d_stream``): the unsorted ``indices`` of one CSR (and
    the finished out-CSR of a directed graph), int64 arrays per row and one round's buffers."""
    n, P = int(num_vertices), max(1, int(nprocs))
    isz = index_itemsize(n)
    tuples = num_tuples / P
    arcs = tuples * (1 if directed else 2)                    # routed arcs per rank, per CSR
    rows = n / P
    csr = (arcs * isz + 8 * rows) * (2 if directed else 1) + 8 * rows
    if streamed:
        build = _stream_build_bytes(n, tuples, arcs, rows, isz, directed, threads)
    else:
        build = 16 * tuples + 2 * (2 * arcs * isz) + 2 * arcs * isz + 16 * rows * 2
    if exchange == "butterfly":
        replicated = n * isz * (3 + fanout) + n / 4
    else:
        replicated = n / 4 + 16 * arcs
    search = csr + replicated + 16 * rows * 2 + 8 * n       # + result arrays, validation depth gather
    return int(max(build + 8 * rows, search)) + INTERPRETER_BYTES


def stream_round_bytes(n, tuples, directed, rows, isz, threads=None) -> float:
    """What a streamed build (``one_d.stream_build.stream_csrs``) holds besides its CSRs: a round's
    tuples, packed arcs and received arcs (twice the packed, for imbalance), the counting chunks over
    ``rows`` rows, the block histograms, the row sort's per-thread scratch (``threads``)."""
    threads = numba.get_num_threads() if threads is None else threads
    round_tuples = min(tuples, CHUNK)
    round_arcs = round_tuples * (1 if directed else 2)
    buffers = 16 * round_tuples + 3 * (2 * round_arcs * isz) + 16 * (round_arcs + rows) + 8 * (n / 64) * 2
    return buffers + threads * HUB * isz


def _stream_build_bytes(n, tuples, arcs, rows, isz, directed, threads) -> float:
    """Peak of the streamed construction: the unsorted indices and int64 arrays per row (raw degree,
    indptr, cursor; the sort's distinct counts) and a round's buffers (``stream_round_bytes``)."""
    done = (arcs * isz + 16 * rows) if directed else 0        # the out-CSR while the in-CSR is built
    return done + arcs * isz + 24 * rows + stream_round_bytes(n, tuples, directed, rows, isz, threads)


def _build(comm, src, dst, num_vertices, directed, options):
    return build_1d(comm, src, dst, num_vertices, directed)


def _slice(comm, graph, options):
    return slice_native(comm, graph)


def _stream(comm, source, num_vertices, directed, options):
    return build_1d_stream(comm, source, num_vertices, directed)


def _estimator(exchange, streamed=False):
    def estimate(num_vertices, num_tuples, nprocs, options, directed):
        return estimate_rank_bytes(num_vertices, num_tuples, nprocs, exchange, options.fanout, directed, streamed)
    return estimate


register(Layout("1d", "alltoall", _build, _slice, AllToAllSearch, validate_owned, _estimator("alltoall"),
                build_stream=_stream, estimate_stream=_estimator("alltoall", True),
                summary="(vertex, parent) pairs routed to owners with Alltoallv; bitmaps all-gathered"))
register(Layout("1d", "butterfly", _build, _slice, ButterflySearch, validate_owned, _estimator("butterfly"),
                build_stream=_stream, estimate_stream=_estimator("butterfly", True),
                default=True, summary="replicated levels synchronised over a butterfly network (Green)"))
