"""The parent stage of the delegates search (Pan, Pearce, Owens, IPDPS'18, Sec. VI-A3: "only the
destination vertices of nn edges, without possible delegate parents, would need to communicate
their parent information at the end of BFS; vertices visited by dd, dn, and nd kernels can get
the parent information locally"), run once after the last level and counted in it.

What is missing after the last level:

* nn: during the search the nn exchange carries ids only; the sender keeps, per id, the
  parent it found (``search.nn_log``; each remote id is sent at most once per search, so the
  pair is unique) and the owner claims an id with the placeholder parent n + sender. Such a
  vertex can have no local parent one level up: the local nn and dn visits run before the
  ids are applied in the same level, so that parent would have claimed it first. Its sender
  is the one to ask.
* delegates: each owner settles its reached delegates from what it sees itself
  (``delegates.steps.owner_parents``: its own candidate, its local dd in-arcs, its local
  normals with an nd arc to it); a rank holds a candidate (``dcand``) only for the delegates
  it found in the level they were reached, so every candidate is a valid parent, but the
  owner does not know who holds one.

Three steps, five collectives, all ranks alike (skipped when no nn id was claimed anywhere --
the search's control counts say so -- and there are no delegates):

1. one ``Alltoallv`` (``Comm.alltoallv_header``): each owner sends its placeholder vertices to
   their senders; each rank's count of unresolved delegates rides in the count Alltoall;
2. the unresolved delegates are shared like a level's mask (``search._encode``: nothing, their
   numbers, or the OR-reduced bitmap);
3. one ``Alltoallv`` back to the owners: per destination, the parents asked of this rank (in
   the request's order), then (delegate, candidate) pairs for the unresolved delegates it
   holds a candidate for; all global ids, in the graph's vertex id type.

Invariant on exit: every reached owned vertex has a parent in [0, n) one level above it
(validated by ``owned.validate.validate_owned``); ``search.parent_stage`` has the bytes, split into
the nn part (requests and answers) and the rest (counts, the shared delegates, their pairs).
"""
from __future__ import annotations

import numpy as np

from .steps import owner_parents


def _kept_parents(search, asked) -> np.ndarray:
    """The parents this rank kept for the remote ids ``asked`` (global ids it sent during the search)."""
    if search.nn_log:
        kept_v = np.concatenate([v for v, _ in search.nn_log])
        kept_p = np.concatenate([p for _, p in search.nn_log])
    else:
        kept_v = kept_p = np.empty(0, dtype=np.int64)
    by_v = np.argsort(kept_v)
    at = by_v[np.minimum(np.searchsorted(kept_v, asked, sorter=by_v), max(by_v.size - 1, 0))[:asked.size]]
    if not np.array_equal(kept_v[at], asked):
        raise RuntimeError("delegates: a parent was asked of a rank that never sent the vertex")
    return kept_p[at].astype(np.int64)


def _owned_delegates(search, parent, depth, dq_seeds) -> np.ndarray:
    """Depths and locally known parents of this rank's delegates; returns the reached ones left
    without a parent (delegate numbers)."""
    part, sub = search.lg.partition, search.lg.sub
    lo, hi, dels = part.lo, part.hi, part.delegates
    mine = np.flatnonzero((dels >= lo) & (dels < hi))
    depth[dels[mine] - lo] = search.ddepth[mine]
    seeds = dels[dq_seeds]
    seeds = seeds[(seeds >= lo) & (seeds < hi)]
    parent[seeds - lo] = seeds
    reached = mine[search.ddepth[mine] >= 1]
    found = np.empty(reached.size, dtype=np.int64)
    owner_parents(reached, search.ddepth, search.dcand, sub.dd_ip, sub.dd_ix, False, sub.ddT_ip,
                  sub.ddT_ix, sub.ndT_ip, sub.ndT_ix, depth, lo, dels, found)
    parent[dels[reached] - lo] = found
    return reached[found < 0]


def settle_parents(search, parent, depth, claimed_total: int, dq_seeds, levels: int):
    """Replace the nn placeholders and fill the owned delegates' depths and parents (collective; see
    the module header)."""
    comm, lg, part = search.comm, search.lg, search.lg.partition
    n, lo, hi, P, d = lg.num_vertices, part.lo, part.hi, comm.size, part.num_delegates
    dels = part.delegates
    missing = _owned_delegates(search, parent, depth, dq_seeds)
    search.parent_stage.update(nn_bytes=0, nn_asked=int(claimed_total), unresolved=0, delegate_bytes=0)
    if levels == 0 or (claimed_total == 0 and d == 0):
        return
    sched, pp = search.schedule[-1], P * (P - 1)
    before = search.bytes_now()
    # 1. requests to the senders, the unresolved-delegate counts in the header
    waiting = np.flatnonzero(parent >= n)
    src = parent[waiting] - n
    waiting = waiting[np.argsort(src, kind="stable")]
    per_src = np.bincount(src, minlength=P).astype(np.int64)
    asked, per_asker, counts = comm.alltoallv_header((waiting + lo).astype(lg.vid_dtype), per_src,
                                                   np.full((P, 1), missing.size))
    sched["exchange"] += 2 * pp
    # 2. the unresolved delegates, known to every rank
    need = np.zeros_like(search.dnew)
    np.bitwise_or.at(need, missing >> 6, np.left_shift(np.uint64(1), (missing & 63).astype(np.uint64)))
    how, _ = search._encode(need, missing, counts[:, 0], sched)
    held = np.empty(0, dtype=np.int64)
    if how != "none":
        held = np.flatnonzero(np.unpackbits(need.view(np.uint8), bitorder="little")[:d])
        search.parent_stage["unresolved"] = int(held.size)
        held = held[(search.dcand[held] >= 0) & ((dels[held] < lo) | (dels[held] >= hi))]
    # 3. answers and delegate pairs back to the owners, one block per destination
    answers = _kept_parents(search, asked.astype(np.int64))
    owner = np.asarray(part.owner(dels[held]), dtype=np.int64)
    held = held[np.argsort(owner, kind="stable")]
    per_owner = np.bincount(owner, minlength=P).astype(np.int64)
    pairs = np.stack([dels[held], search.dcand[held]], axis=1)
    a_at = np.concatenate([[0], np.cumsum(per_asker)])
    p_at = np.concatenate([[0], np.cumsum(per_owner)])
    send = np.concatenate([np.concatenate([answers[a_at[q]:a_at[q + 1]], pairs[p_at[q]:p_at[q + 1]].ravel()])
                           for q in range(P)]).astype(lg.vid_dtype)          # all global ids < n
    recv, rcounts = comm.alltoallv(send, per_asker + 2 * per_owner)
    recv = recv.astype(np.int64)
    sched["exchange"] += 2 * pp
    r_at = np.concatenate([[0], np.cumsum(rcounts)])
    got = [recv[r_at[q]:r_at[q] + per_src[q]] for q in range(P)]
    parent[waiting] = np.concatenate(got) if got else waiting
    theirs = np.concatenate([recv[r_at[q] + per_src[q]:r_at[q + 1]] for q in range(P)])
    v, p = theirs[0::2] - lo, theirs[1::2]
    keep = parent[v] < 0
    parent[v[keep]] = p[keep]
    nn_bytes = (waiting.size + asked.size) * np.dtype(lg.vid_dtype).itemsize      # never to oneself
    search.parent_stage.update(how=how, nn_bytes=nn_bytes, delegate_bytes=search.bytes_now() - before - nn_bytes)
