"""Per-level statistics of a distributed search: every rank's figures, gathered by field name.

A search records one ``LevelStats`` per level, the record type of every engine (the same
values on every rank, except ``edges_examined`` and ``seconds``, which are this rank's); ``Comm`` logs each level's
traffic per category. ``gather_levels`` packs this rank's figures into a row of
``RANK_FIELDS``, gathers every rank's rows with one uncounted ``Allgather`` (reporting
only) and builds the global ``LevelStats`` and the ``communication`` report:

* ``LevelStats``: frontier and discovered (global), edges examined summed over ranks,
  seconds and comm_seconds the slowest rank's, messages and bytes summed over ranks
  and categories;
* ``communication``: the exchange's description, totals over the search, per-rank
  totals and, per level, every rank's messages/bytes/communication seconds, edges examined
  and level seconds (the load balance) and the per-category counts (``exchange_*``,
  ``control_*``; see ``comm.CATEGORIES``).

Two optional parts, present only for searches that produce them:

* ``operations``: per level and per search, the messages and bytes (summed over ranks)
  of each labelled operation (``Comm.operation``: the 2D exchanges label their
  transpose, expand, fold, rotate, scan, broadcast ... steps);
* ``after_levels``: the traffic of a step that follows the last level (the 2D scan
  exchange hands the parents over to their owners once, after the search), per rank
  and per category; it is included in the search's totals but belongs to no level.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..result import LevelStats
from .comm import CATEGORIES
from .faults.watchdog import HEARTBEAT

RANK_FIELDS = ("edges_examined", "seconds") + tuple(f"{c}_{k}" for c in CATEGORIES
                                                    for k in ("messages", "bytes", "seconds"))
_F = {name: k for k, name in enumerate(RANK_FIELDS)}


def _column(every, name, dtype=np.float64):
    return every[:, :, _F[name]].astype(dtype)


def _summed_ops(per_rank: list) -> dict:
    """{name: {"messages", "bytes"}} summed over ranks from every rank's {name: (messages, bytes)}."""
    out: dict = {}
    for ops in per_rank:
        for name, (m, b) in ops.items():
            t = out.setdefault(name, {"messages": 0, "bytes": 0})
            t["messages"] += m
            t["bytes"] += b
    return dict(sorted(out.items()))


def gather_levels(comm, records: list[LevelStats], log, describe: dict, ops=None, after=None,
                  after_ops=None) -> tuple[list[LevelStats], dict]:
    """(global LevelStats per level, the ``communication`` report); collective, not counted.

    ``records``: this rank's LevelStats, one per level (communication fields still 0);

    ``log``: one category tally per level; ``ops``: one {operation: Tally} per level, or None when
    the exchange labels no operations (the same on every rank: it decides whether they are gathered);
    ``after``/``after_ops``: the tallies of the step after the last level, if the search has one.
    """
    nlev = len(records)
    extra = 1 if after is not None else 0
    local = np.zeros((nlev + extra, len(RANK_FIELDS)), dtype=np.float64)
    rows = list(zip(records, log)) + ([(None, after)] if extra else [])
    for i, (rec, tallies) in enumerate(rows):
        if rec is not None:
            local[i, _F["edges_examined"]] = rec.edges_examined
            local[i, _F["seconds"]] = rec.seconds
        for c in CATEGORIES:
            local[i, _F[f"{c}_messages"]] = tallies[c].messages
            local[i, _F[f"{c}_bytes"]] = tallies[c].bytes
            local[i, _F[f"{c}_seconds"]] = tallies[c].seconds
    every = np.empty((comm.size, nlev + extra, len(RANK_FIELDS)), dtype=np.float64)
    HEARTBEAT.begin("Allgather (level statistics)")
    comm.mpi.Allgather(local, every)         # reporting only: not counted
    op_rows = None
    if ops is not None:                       # the same on every rank; reporting only: not counted
        mine = [{k: (t.messages, t.bytes) for k, t in (ops[i] if i < len(ops) else {}).items()}
                for i in range(nlev)]
        mine.append({k: (t.messages, t.bytes) for k, t in (after_ops or {}).items()})
        op_rows = comm.mpi.allgather(mine)
    HEARTBEAT.end()
    per_cat = {(c, k): _column(every, f"{c}_{k}", np.int64 if k != "seconds" else np.float64)
               for c in CATEGORIES for k in ("messages", "bytes", "seconds")}
    msgs = sum(per_cat[c, "messages"] for c in CATEGORIES)            # (ranks, levels)
    nbytes = sum(per_cat[c, "bytes"] for c in CATEGORIES)
    csec = sum(per_cat[c, "seconds"] for c in CATEGORIES)
    examined = _column(every, "edges_examined", np.int64)
    seconds = _column(every, "seconds")
    levels, per_level = [], []
    op_totals: dict = {}
    for i, rec in enumerate(records):
        levels.append(replace(rec, edges_examined=int(examined[:, i].sum()), seconds=float(seconds[:, i].max()),
                              messages=int(msgs[:, i].sum()), bytes=int(nbytes[:, i].sum()),
                              comm_seconds=float(csec[:, i].max())))
        entry = {"level": i, "messages": msgs[:, i].tolist(), "bytes": nbytes[:, i].tolist(),
                 "comm_seconds": csec[:, i].tolist(), "edges_examined": examined[:, i].tolist(),
                 "seconds": seconds[:, i].tolist()}
        for c in CATEGORIES:
            entry[f"{c}_messages"] = per_cat[c, "messages"][:, i].tolist()
            entry[f"{c}_bytes"] = per_cat[c, "bytes"][:, i].tolist()
        if op_rows is not None:
            entry["operations"] = _summed_ops([rank[i] for rank in op_rows])
            _add_ops(op_totals, entry["operations"])
        per_level.append(entry)
    rank_msgs, rank_bytes, rank_sec = msgs.sum(axis=1), nbytes.sum(axis=1), csec.sum(axis=1)
    info = {"exchange": describe["exchange"], "fanout": describe.get("fanout"), "ranks": comm.size,
            "messages": int(rank_msgs.sum()), "bytes": int(rank_bytes.sum()),
            "comm_seconds": float(rank_sec.max()) if comm.size else 0.0}
    info.update({k: v for k, v in describe.items() if k not in info})
    for c in CATEGORIES:
        info[f"{c}_messages"] = int(per_cat[c, "messages"].sum())
        info[f"{c}_bytes"] = int(per_cat[c, "bytes"].sum())
    info["per_rank"] = {"messages": rank_msgs.tolist(), "bytes": rank_bytes.tolist(), "comm_seconds": rank_sec.tolist()}
    info["levels"] = per_level
    if op_rows is not None:
        info["operations"] = op_totals
    if extra:
        info["after_levels"] = _after_levels(info, per_cat, msgs, nbytes, csec, nlev,
                                             _summed_ops([rank[nlev] for rank in op_rows]) if op_rows else {})
        if op_rows is not None:
            _add_ops(op_totals, info["after_levels"]["operations"])
    return levels, info


def _add_ops(totals: dict, ops: dict):
    for name, t in ops.items():
        s = totals.setdefault(name, {"messages": 0, "bytes": 0})
        s["messages"] += t["messages"]
        s["bytes"] += t["bytes"]


def _after_levels(info, per_cat, msgs, nbytes, csec, k, ops) -> dict:
    """The report of the step after the last level (column ``k``), added to the search's totals in ``info``."""
    after = {"messages": msgs[:, k].tolist(), "bytes": nbytes[:, k].tolist(), "comm_seconds": csec[:, k].tolist(),
             "operations": ops}
    for c in CATEGORIES:
        after[f"{c}_messages"] = per_cat[c, "messages"][:, k].tolist()
        after[f"{c}_bytes"] = per_cat[c, "bytes"][:, k].tolist()
    return after
