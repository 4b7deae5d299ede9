"""The Graph500 validation rules that read the input tuples, over tuples regenerated chunk by chunk.

``validate`` checks a tree against the graph built from the tuples; this module checks it
against the tuples themselves, as the reference code's ``src/validate.c`` does, without the tuple
list ever being held: a tuple source (``graph/stream.py``) regenerates each chunk and one parallel
pass checks it:

* ``level`` -- every tuple whose endpoints are both reached joins depths that differ by at most
  one (directed: a tuple u -> v with u reached has depth[v] <= depth[u] + 1);
* ``span``  -- no tuple joins a reached vertex to an unreached one (directed: from a reached one).

Self-loops are skipped (their endpoints are equal). The check costs one generation of the tuples.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from ..errors import ValidationError
from ..graph.stream import CHUNK
from ..jit import njit

SUBCHUNKS = 64


@njit(parallel=True, cache=True)
def _check_chunk(src, dst, k, depth, directed, first):
    """first[c, 0] / first[c, 1] := smallest index in sub-chunk c of a tuple breaking level / span
    (k if none)."""
    nsub = first.shape[0]
    for c in prange(nsub):
        lvl = k
        spn = k
        for e in range(k * c // nsub, k * (c + 1) // nsub):
            s = src[e]
            d = dst[e]
            if s == d:
                continue
            ds = depth[s]
            dd = depth[d]
            if directed:
                if ds >= 0:
                    if dd < 0:
                        spn = min(spn, e)
                    elif dd > ds + 1:
                        lvl = min(lvl, e)
            elif (ds >= 0) != (dd >= 0):
                spn = min(spn, e)
            elif ds >= 0 and (ds - dd > 1 or dd - ds > 1):
                lvl = min(lvl, e)
        first[c, 0] = lvl
        first[c, 1] = spn


def validate_tuples(source, depth, directed=False, chunk=CHUNK) -> int:
    """Check the depths of a validated tree against every tuple of ``source``; raise ValidationError
    (rule ``level`` or ``span``, at the tuple's first endpoint) on the first tuple breaking a rule.
    Returns the number of tuples checked."""
    depth = np.ascontiguousarray(depth)
    m = int(source.num_tuples)
    size = max(1, min(chunk, m))
    src = np.empty(size, dtype=np.int64)
    dst = np.empty(size, dtype=np.int64)
    first = np.empty((SUBCHUNKS, 2), dtype=np.int64)
    for start in range(0, m, size):
        stop = min(m, start + size)
        k = stop - start
        source.fill(start, stop, src, dst)
        _check_chunk(src, dst, k, depth, directed, first)
        worst = first.min(axis=0)
        for rule, j in (("span", 1), ("level", 0)):
            if worst[j] < k:
                e = int(worst[j])
                s, d = int(src[e]), int(dst[e])
                raise ValidationError(rule, s, f"input tuple {start + e} ({s}, {d}) joins depths "
                                               f"{int(depth[s])} and {int(depth[d])}")
    return m
