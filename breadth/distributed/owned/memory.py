"""Memory of the owned rows: what every layout's per-rank estimate is built from.

Each layout checks one rank's peak before anything is allocated (``Layout.estimate_bytes``).
The parts shared by every family live here: the interpreter's fixed share
(``INTERPRETER_BYTES``), a streamed build's round buffers (``stream_round_bytes``) and the whole
peak of a rank holding edge-balanced owned rows (``owned_rank_bytes``) with the exchange's state
supplied by the layout. Shares are averages (``num_tuples / P`` tuples per rank).
"""
from __future__ import annotations

import numba

from ...graph.memory import index_itemsize
from ...graph.rowsort import HUB
from .stream_build import CHUNK

INTERPRETER_BYTES = 128 << 20     # Python, numpy, numba and MPI in every rank


def owned_rank_bytes(num_vertices, num_tuples, nprocs, exchange_bytes, directed=False, streamed=False,
                     threads=None) -> int:
    """Peak bytes of one rank: max(construction, graph + search state + validation), averaged shares.

    Construction from tuple arrays holds the tuple share, the packed and the received arcs and the
    unsorted local CSR; ``streamed`` (``stream_build.build_ranges_stream``): the unsorted ``indices``
    of one CSR (and the finished out-CSR of a directed graph), int64 arrays per row and one round's
    buffers. ``exchange_bytes(n, isz, arcs)``: the exchange's state beside the rows (``isz``: bytes of a
    vertex id; ``arcs``: routed arcs per rank and CSR)."""
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
    search = csr + exchange_bytes(n, isz, arcs) + 16 * rows * 2 + 8 * n   # + result arrays, validation gather
    return int(max(build + 8 * rows, search)) + INTERPRETER_BYTES


def stream_round_bytes(n, tuples, directed, rows, isz, threads=None) -> float:
    """What a streamed build (``stream_build.stream_csrs``) holds besides its CSRs: a round's
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
