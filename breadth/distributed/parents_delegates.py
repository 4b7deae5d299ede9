"""The parent stages of the delegates search (Pan, Pearce, Owens, IPDPS'18, Sec. VI-A3: "only the
destination vertices of nn edges, without possible delegate parents, would need to communicate
their parent information at the end of BFS; vertices visited by dd, dn, and nd kernels can get
the parent information locally"), run once after the last level and counted in it.

* ``settle_normals``: during the search the nn exchange carries ids only; the sender keeps,
  per id, the parent it found (``search.nn_log``; each remote id is sent at most once per
  search, so the pair is unique) and the owner claims an id with the placeholder parent
  n + sender. Afterwards every owner sends the placeholder vertices to their senders (one
  request ``Alltoallv``) and each sender answers with the kept parents in the request's order
  (one reply ``Alltoallv``). A placeholder vertex can have no local parent of the right depth:
  the local nn and dn visits run before the ids are applied in the same level, so such a
  parent would have claimed it first; asking the sender is the only way. Skipped when the
  search's control counts say no id was claimed anywhere (identical on every rank).
* ``settle_delegates``: the owners settle their delegates from what they see themselves
  (``steps_delegates.owner_parents``: their own candidate, their local dd in-arcs, their local
  normals with an nd arc to it); the ones left are shared like the mask (``search.share``)
  and the ranks holding a candidate (``dcand``: only ranks that found the delegate in the
  level it was reached hold one, so every candidate is a valid parent) send (delegate, parent)
  to the owner with one ``Alltoallv``.

Invariant on exit: every reached owned vertex has a parent in [0, n) one level above it
(validated by ``validate.validate_owned``); ``search.parent_stage`` has the stages' bytes.
"""
from __future__ import annotations

import numpy as np

from .steps_delegates import owner_parents


def settle_normals(search, parent, claimed_total: int):
    """Replace the placeholders n + sender in ``parent`` by the parents the senders kept (collective)."""
    comm, lg = search.comm, search.lg
    n, lo, P = lg.num_vertices, lg.partition.lo, comm.size
    search.parent_stage.update(nn_bytes=0, nn_asked=int(claimed_total))
    if claimed_total == 0:
        return
    before = search.bytes_now()
    waiting = np.flatnonzero(parent >= n)
    src = parent[waiting] - n
    order = np.argsort(src, kind="stable")
    waiting = waiting[order]
    asked, per_src = comm.alltoallv((waiting + lo).astype(lg.vid_dtype), np.bincount(src, minlength=P))
    if search.nn_log:
        kept_v = np.concatenate([v for v, _ in search.nn_log])
        kept_p = np.concatenate([p for _, p in search.nn_log])
    else:
        kept_v = kept_p = np.empty(0, dtype=np.int64)
    by_v = np.argsort(kept_v)
    at = by_v[np.minimum(np.searchsorted(kept_v, asked, sorter=by_v), max(by_v.size - 1, 0))[:asked.size]]
    if not np.array_equal(kept_v[at], asked):
        raise RuntimeError("delegates: a parent was asked of a rank that never sent the vertex")
    answer, _ = comm.alltoallv(kept_p[at].astype(np.int64), per_src)
    parent[waiting] = answer
    search.schedule[-1]["exchange"] += 4 * P * (P - 1)
    search.parent_stage["nn_bytes"] = search.bytes_now() - before


def settle_delegates(search, parent, depth, dq_seeds, levels):
    """Store the owned delegates' depth and parent in the result (collective; see the module header)."""
    part, sub, comm = search.lg.partition, search.lg.sub, search.comm
    d, lo, hi, dels = part.num_delegates, part.lo, part.hi, part.delegates
    mine = np.flatnonzero((dels >= lo) & (dels < hi))
    depth[dels[mine] - lo] = search.ddepth[mine]
    seeds = dels[dq_seeds]
    seeds = seeds[(seeds >= lo) & (seeds < hi)]
    parent[seeds - lo] = seeds
    search.parent_stage.update(unresolved=0, delegate_bytes=0)
    if d == 0 or levels == 0:
        return
    sched, pp = search.schedule[-1], comm.size * (comm.size - 1)
    before = search.bytes_now()
    reached = mine[search.ddepth[mine] >= 1]
    found = np.empty(reached.size, dtype=np.int64)
    owner_parents(reached, search.ddepth, search.dcand, sub.dd_ip, sub.dd_ix, False, sub.ddT_ip,
                  sub.ddT_ix, sub.ndT_ip, sub.ndT_ix, depth, lo, dels, found)
    parent[dels[reached] - lo] = found
    missing = reached[found < 0]
    need = np.zeros_like(search.dnew)
    np.bitwise_or.at(need, missing >> 6, np.left_shift(np.uint64(1), (missing & 63).astype(np.uint64)))
    how = search.share(need, sched)
    unresolved = 0
    if how != "none":
        bits = np.flatnonzero(np.unpackbits(need.view(np.uint8), bitorder="little")[:d])
        unresolved = int(bits.size)
        asked = bits[(search.dcand[bits] >= 0) & ((dels[bits] < lo) | (dels[bits] >= hi))]
        pairs, npairs = search.exchange.route(dels[asked], search.dcand[asked], asked.size)
        pairs = np.asarray(pairs[:2 * npairs], dtype=np.int64)
        v, p = pairs[0::2] - lo, pairs[1::2]
        keep = parent[v] < 0
        parent[v[keep]] = p[keep]
        sched["exchange"] += 2 * pp
    search.parent_stage.update(unresolved=unresolved, how=how, delegate_bytes=search.bytes_now() - before)
