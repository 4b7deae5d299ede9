"""The 1D layouts: edge-balanced vertex ranges (``partition.OneD``, Green's ButterFly paper, Sec. 4)
with the all-to-all exchange (owner state, ``one_d.alltoall_search``) or the ButterFly exchange
(replicated levels, ``one_d.butterfly_search``; the default). Registered with ``registry``.

Construction: ``one_d.build.build_1d`` (block histogram -> ranges -> Alltoallv routing -> local
CSR) or ``one_d.build.slice_native`` (each rank maps a native file and copies its rows).
Validation: ``one_d.validate.validate_owned``. Memory: ``estimate_bytes`` below.
"""
from __future__ import annotations

from ...graph.memory import index_itemsize
from ..registry import Layout, register
from .alltoall_search import AllToAllSearch
from .build import build_1d, slice_native
from .butterfly_search import ButterflySearch
from .validate import validate_owned

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


def _build(comm, src, dst, num_vertices, directed, options):
    return build_1d(comm, src, dst, num_vertices, directed)


def _slice(comm, graph, options):
    return slice_native(comm, graph)


def _estimator(exchange):
    def estimate(num_vertices, num_tuples, nprocs, options, directed):
        return estimate_rank_bytes(num_vertices, num_tuples, nprocs, exchange, options.fanout, directed)
    return estimate


register(Layout("1d", "alltoall", _build, _slice, AllToAllSearch, validate_owned, _estimator("alltoall"),
                summary="(vertex, parent) pairs routed to owners with Alltoallv; bitmaps all-gathered"))
register(Layout("1d", "butterfly", _build, _slice, ButterflySearch, validate_owned, _estimator("butterfly"),
                default=True, summary="replicated levels synchronised over a butterfly network (Green)"))
