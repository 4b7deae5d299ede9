"""The communicator every distributed algorithm in breadth uses: mpi4py with counters.

``Comm`` wraps an mpi4py communicator and times and counts every operation it performs, per BFS
level and per phase (construction, search, validation). What is counted, exactly (the rule the
tests and reports rely on):

* a point-to-point send to another rank is **one message** carrying its payload bytes -- an
  empty send included, since the receiver still waits for it;
* a collective counts, for this rank, **one message per peer that its data logically reaches**,
  carrying that data: ``Alltoall(v)`` P-1 messages with the per-destination blocks (empty blocks
  included: every pair exchanges); ``Allgather(v)`` P-1 messages of this rank's block;
  ``Allreduce`` P-1 messages of the whole buffer; ``Bcast`` P-1 messages from the root. This is
  the information flow of the "all-to-all" pattern the ButterFly paper compares against,
  independent of the algorithm MPI runs underneath;
* messages to oneself and barriers carry nothing and are not counted (a barrier's time is);
  seconds are wall time inside the MPI calls (waiting included).

Counts are kept per *category*: ``exchange`` (the frontier exchange, what the paper's message
formula counts) and ``control`` (small collectives that steer the search: frontier sizes, scout
counts); per level of the search in progress (``Comm.level_log``) and per phase (``Comm.totals``).

``Comm.split`` makes sub-communicators (the rows and columns of a 2D processor grid) counted in
the same tallies, phases and levels as their parent, by the same rules (a collective on q ranks
counts q - 1 messages; ``sendrecv`` one message unless the destination is this rank). Inside
``with comm.operation("fold"):`` every message is also counted under that name for the current
level (``Comm.operation_log``), so an exchange made of several steps (transpose, expand, fold,
rotate ...) reports each step's messages and bytes separately.

Every MPI operation updates the stall watchdog's heartbeat (``faults.watchdog.HEARTBEAT``: the
operation, phase, level). mpi4py is imported lazily (``runtime.get_mpi``).
"""
from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np

from ..errors import BreadthError
from .faults.watchdog import HEARTBEAT
from .ledger import CATEGORIES, Ledger, Tally
from .runtime import agree, collective_error, get_mpi

__all__ = ["Comm", "Tally", "CATEGORIES", "collective_error", "get_mpi"]

_TYPES = {}


def _mpi_type(dtype):
    """The predefined MPI datatype of a numpy dtype (cached: collectives compare handles)."""
    dt = np.dtype(dtype)
    t = _TYPES.get(dt)
    if t is None:
        MPI = get_mpi()
        t = {"i1": MPI.INT8_T, "i2": MPI.INT16_T, "i4": MPI.INT32_T, "i8": MPI.INT64_T, "u1": MPI.UINT8_T,
             "u2": MPI.UINT16_T, "u4": MPI.UINT32_T, "u8": MPI.UINT64_T, "f4": MPI.FLOAT, "f8": MPI.DOUBLE,
             "b1": MPI.C_BOOL}[dt.newbyteorder("=").str[1:]]
        _TYPES[dt] = t
    return t


def _displacements(counts) -> np.ndarray:
    """Each rank's block offset (``counts`` has one entry per rank, at least one)."""
    return np.concatenate(([0], np.cumsum(counts[:-1]))).astype(np.int64)


class Comm:
    """An mpi4py communicator that counts messages, bytes and seconds (see the module header).

    Args:
        mpicomm: the mpi4py communicator to wrap (None: ``MPI.COMM_WORLD``).

    Examples:
        >>> from breadth.distributed import Comm
        >>> comm = Comm()
        >>> comm.rank, comm.size
        (0, 1)
        >>> comm.allreduce(np.array([3, 4]))
        array([3, 4])
    """

    def __init__(self, mpicomm=None, *, _ledger: Ledger | None = None):
        MPI = get_mpi()
        self.MPI = MPI
        self.mpi = MPI.COMM_WORLD if mpicomm is None else mpicomm
        self.rank = self.mpi.Get_rank()
        self.size = self.mpi.Get_size()
        self.errors = self.mpi.Dup()          # used only to agree on failures (runtime.guarded)
        self._ledger = Ledger() if _ledger is None else _ledger
        self._local_size = None

    def split(self, color: int, key: int | None = None) -> "Comm":
        """The sub-communicator of the ranks passing the same ``color``, ordered by ``key``
        (default: their rank here); counted in this communicator's tallies. Collective."""
        sub = self.mpi.Split(int(color), self.rank if key is None else int(key))
        return Comm(sub, _ledger=self._ledger)

    def free(self):
        """Release a communicator made by ``split`` (the world is never freed)."""
        if self.mpi != self.MPI.COMM_WORLD:
            self.errors.Free()
            self.mpi.Free()

    # ------------------------------------------------------------------ bookkeeping
    @property
    def totals(self) -> dict[str, dict[str, Tally]]:
        """Per-phase tallies of this rank: ``totals[phase][category]``."""
        return self._ledger.totals

    @property
    def level_log(self) -> list[dict[str, Tally]] | None:
        """Per-level tallies of the search in progress (None outside ``begin_levels``/``end_levels``)."""
        return self._ledger.level_log

    @property
    def operation_log(self) -> list[dict[str, Tally]]:
        """Per level of the current (or last) search, the tallies of labelled operations by name."""
        return self._ledger.op_log

    @contextmanager
    def operation(self, name: str):
        """Count the messages inside also under operation ``name`` (per level, see ``operation_log``)."""
        ledger = self._ledger
        old = ledger.operation
        ledger.operation = name
        try:
            yield
        finally:
            ledger.operation = old

    @contextmanager
    def phase(self, name: str):
        """Attribute the operations inside to phase ``name`` (e.g. "construct", "search")."""
        ledger = self._ledger
        old = ledger.phase
        ledger.phase = HEARTBEAT.phase = name
        try:
            yield
        finally:
            ledger.phase = HEARTBEAT.phase = old

    def begin_levels(self):
        HEARTBEAT.begin_search()
        self._ledger.level_log = []
        self._ledger.op_log = []

    def next_level(self):
        HEARTBEAT.next_level()
        self._ledger.level_log.append({c: Tally() for c in CATEGORIES})
        self._ledger.op_log.append({})

    def end_levels(self) -> list[dict[str, Tally]]:
        HEARTBEAT.end_search()
        log, self._ledger.level_log = self._ledger.level_log, None
        return log

    def _account(self, category, messages, nbytes, seconds):
        HEARTBEAT.waiting = None
        ledger = self._ledger
        per_phase = ledger.totals.setdefault(ledger.phase, {c: Tally() for c in CATEGORIES})
        per_phase[category].add(messages, nbytes, seconds)
        if ledger.level_log:
            ledger.level_log[-1][category].add(messages, nbytes, seconds)
            if ledger.operation is not None:
                ledger.op_log[-1].setdefault(ledger.operation, Tally()).add(messages, nbytes, seconds)

    def reduced_phase_totals(self, name: str) -> dict:
        """Phase totals summed over ranks (seconds: max over ranks). Collective, not counted."""
        mine = self.totals.get(name, {c: Tally() for c in CATEGORIES})
        local = np.array([[mine[c].messages, mine[c].bytes, mine[c].seconds] for c in CATEGORIES], dtype=np.float64)
        every = np.empty((self.size,) + local.shape, dtype=np.float64)
        HEARTBEAT.begin("Allgather (phase totals)")
        self.mpi.Allgather(local, every)
        HEARTBEAT.end()
        return {c: {"messages": int(every[:, i, 0].sum()), "bytes": int(every[:, i, 1].sum()),
                    "seconds": float(every[:, i, 2].max())} for i, c in enumerate(CATEGORIES)}

    @property
    def local_size(self) -> int:
        """Ranks sharing this rank's host (they share its memory)."""
        if self._local_size is None:
            node = self.mpi.Split_type(self.MPI.COMM_TYPE_SHARED)
            self._local_size = node.Get_size()
            node.Free()
        return self._local_size

    # ------------------------------------------------------------------ collectives
    def barrier(self, category="control"):
        HEARTBEAT.begin(f"Barrier ({category})")
        t0 = time.perf_counter()
        self.mpi.Barrier()
        self._account(category, 0, 0, time.perf_counter() - t0)

    def allreduce(self, array, op="sum", category="control") -> np.ndarray:
        """Element-wise reduction of a numpy array over all ranks (a new array); ``op``: sum, max, min or
        bor (bitwise or, integer arrays)."""
        MPI = self.MPI
        a = np.ascontiguousarray(array)
        out = np.empty_like(a)
        mop = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "bor": MPI.BOR}[op]
        HEARTBEAT.begin(f"Allreduce ({category})")
        t0 = time.perf_counter()
        self.mpi.Allreduce([a, _mpi_type(a.dtype)], [out, _mpi_type(a.dtype)], op=mop)
        self._account(category, self.size - 1, (self.size - 1) * a.nbytes, time.perf_counter() - t0)
        return out

    def iallreduce(self, array, op="bor", category="exchange") -> "PendingReduce":
        """Start a non-blocking ``allreduce`` (counted now, like it: P - 1 messages of the buffer);
        ``.wait()`` on the returned handle gives the reduced array and adds the waiting time."""
        MPI = self.MPI
        a = np.ascontiguousarray(array)
        out = np.empty_like(a)
        mop = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "bor": MPI.BOR}[op]
        t0 = time.perf_counter()
        req = self.mpi.Iallreduce([a, _mpi_type(a.dtype)], [out, _mpi_type(a.dtype)], op=mop)
        self._account(category, self.size - 1, (self.size - 1) * a.nbytes, time.perf_counter() - t0)
        return PendingReduce(self, req, a, out, category)

    def iallgatherv(self, array, counts, category="exchange") -> "PendingReduce":
        """Start a non-blocking ``allgatherv`` with known per-rank ``counts`` (counted now, like it:
        P - 1 messages of this rank's block); ``.wait()`` gives the concatenation."""
        a = np.ascontiguousarray(array)
        counts = np.asarray(counts, dtype=np.int64)
        out = np.empty(int(counts.sum()), dtype=a.dtype)
        t = _mpi_type(a.dtype)
        t0 = time.perf_counter()
        req = self.mpi.Iallgatherv([a, t], [out, (counts, _displacements(counts)), t])
        self._account(category, self.size - 1, (self.size - 1) * a.nbytes, time.perf_counter() - t0)
        return PendingReduce(self, req, a, out, category)

    def allgatherv(self, array, counts=None, out=None, category="control") -> np.ndarray:
        """Concatenate every rank's 1-D array in rank order (``counts``: per-rank lengths, if known)."""
        a = np.ascontiguousarray(array)
        HEARTBEAT.begin(f"Allgatherv ({category})")
        t0 = time.perf_counter()
        messages, nbytes = 0, 0
        if counts is None:
            counts = np.empty(self.size, dtype=np.int64)
            self.mpi.Allgather([np.array([a.size], dtype=np.int64), _mpi_type(np.int64)],
                               [counts, _mpi_type(np.int64)])
            messages, nbytes = self.size - 1, 8 * (self.size - 1)
        counts = np.asarray(counts, dtype=np.int64)
        if out is None:
            out = np.empty(int(counts.sum()), dtype=a.dtype)
        t = _mpi_type(a.dtype)
        self.mpi.Allgatherv([a, t], [out, (counts, _displacements(counts)), t])
        self._account(category, messages + self.size - 1, nbytes + (self.size - 1) * a.nbytes,
                      time.perf_counter() - t0)
        return out

    def alltoallv(self, send, counts, category="exchange"):
        """Send ``send[displ[q]:displ[q]+counts[q]]`` to every rank q (``send`` ordered by destination).

        Two collectives: an Alltoall of the counts, then the Alltoallv of the data.
        Returns (received array in source-rank order, received counts per source).
        """
        P, me = self.size, self.rank
        send = np.ascontiguousarray(send)
        counts = np.ascontiguousarray(counts, dtype=np.int64)
        rcounts = np.empty(P, dtype=np.int64)
        HEARTBEAT.begin(f"Alltoall/Alltoallv ({category})")
        t0 = time.perf_counter()
        self.mpi.Alltoall([counts, _mpi_type(np.int64)], [rcounts, _mpi_type(np.int64)])
        recv = np.empty(int(rcounts.sum()), dtype=send.dtype)
        t = _mpi_type(send.dtype)
        self.mpi.Alltoallv([send, (counts, _displacements(counts)), t],
                           [recv, (rcounts, _displacements(rcounts)), t])
        data_bytes = (int(counts.sum()) - int(counts[me])) * send.itemsize
        self._account(category, 2 * (P - 1), 8 * (P - 1) + data_bytes, time.perf_counter() - t0)
        return recv, rcounts

    def alltoallv_header(self, send, counts, header, category="exchange", between=None):
        """``alltoallv`` whose count Alltoall also carries ``header`` (k int64 values per destination,
        shape (P, k)): the same 2 (P - 1) messages, 8 k more bytes per peer. ``between(headers)``, if
        given, runs after the count Alltoall and before the data moves (to start a non-blocking
        operation that overlaps them; its own time is not counted here). Returns (received array,
        received counts, received headers (P, k) in source-rank order)."""
        P, me = self.size, self.rank
        send = np.ascontiguousarray(send)
        counts = np.ascontiguousarray(counts, dtype=np.int64)
        header = np.asarray(header, dtype=np.int64).reshape(P, -1)
        k = header.shape[1]
        block = np.ascontiguousarray(np.concatenate([counts[:, None], header], axis=1))
        rblock = np.empty_like(block)
        HEARTBEAT.begin(f"Alltoall/Alltoallv ({category})")
        t0 = time.perf_counter()
        self.mpi.Alltoall([block, (k + 1), _mpi_type(np.int64)], [rblock, (k + 1), _mpi_type(np.int64)])
        if between is not None:
            t1 = time.perf_counter()
            between(rblock[:, 1:])
            HEARTBEAT.begin(f"Alltoallv ({category})")
            t0 += time.perf_counter() - t1
        rcounts = np.ascontiguousarray(rblock[:, 0])
        recv = np.empty(int(rcounts.sum()), dtype=send.dtype)
        t = _mpi_type(send.dtype)
        self.mpi.Alltoallv([send, (counts, _displacements(counts)), t],
                           [recv, (rcounts, _displacements(rcounts)), t])
        data_bytes = (int(counts.sum()) - int(counts[me])) * send.itemsize
        self._account(category, 2 * (P - 1), 8 * (k + 1) * (P - 1) + data_bytes, time.perf_counter() - t0)
        return recv, rcounts, rblock[:, 1:]

    def sendrecv(self, send, dest, recv, source, category="exchange") -> int:
        """Send ``send`` to ``dest`` while receiving from ``source`` into ``recv`` (a buffer large enough);
        returns the number of elements received. One message unless ``dest`` is this rank (then
        ``source`` must be too, and ``send`` is copied)."""
        send = np.ascontiguousarray(send)
        if dest == self.rank:
            if source != self.rank:
                raise ValueError("sendrecv to oneself must receive from oneself")
            recv[:send.size] = send
            return send.size
        MPI = self.MPI
        HEARTBEAT.begin(f"Sendrecv with ranks {dest}/{source} ({category})")
        t0 = time.perf_counter()
        status = MPI.Status()
        self.mpi.Sendrecv([send, _mpi_type(send.dtype)], dest=dest, sendtag=7201,
                          recvbuf=[recv, _mpi_type(recv.dtype)], source=source, recvtag=7201, status=status)
        self._account(category, 1, send.nbytes, time.perf_counter() - t0)
        return status.Get_count(_mpi_type(recv.dtype))

    def gatherv(self, array, root=0):
        """Concatenate every rank's 1-D array on ``root`` (others get None). Not counted: reporting only."""
        a = np.ascontiguousarray(array)
        HEARTBEAT.begin("Gatherv (results to rank 0)")
        counts = np.asarray(self.mpi.allgather(a.size), dtype=np.int64)
        out = np.empty(int(counts.sum()), dtype=a.dtype) if self.rank == root else None
        t = _mpi_type(a.dtype)
        self.mpi.Gatherv([a, t], [out, (counts, _displacements(counts)), t] if self.rank == root else None,
                         root=root)
        HEARTBEAT.end()
        return out

    # ------------------------------------------------------------------ point to point
    def isend(self, dst, arr, tag, category="exchange"):
        """Start a send (counted now); complete it with ``wait_all``."""
        t0 = time.perf_counter()
        req = self.mpi.Isend([arr, _mpi_type(arr.dtype)], dest=dst, tag=tag)
        self._account(category, 1, arr.nbytes, time.perf_counter() - t0)
        return req

    def recv_all(self, recvs, tag=None, category="exchange") -> list[tuple[int, int]]:
        """Receive from several partners at once into the given buffers (``tag`` None: any tag).

        Returns (element count, tag) per receive; elements of the buffer's dtype.
        """
        MPI = self.MPI
        HEARTBEAT.begin(f"Waitall on receives ({category})")
        t0 = time.perf_counter()
        tag = MPI.ANY_TAG if tag is None else tag
        reqs = [self.mpi.Irecv([buf, _mpi_type(buf.dtype)], source=src, tag=tag) for src, buf in recvs]
        statuses = [MPI.Status() for _ in reqs]
        MPI.Request.Waitall(reqs, statuses)
        got = [(st.Get_count(_mpi_type(buf.dtype)), st.Get_tag()) for st, (_, buf) in zip(statuses, recvs)]
        self._account(category, 0, 0, time.perf_counter() - t0)
        return got

    def wait_all(self, reqs, category="exchange"):
        HEARTBEAT.begin(f"Waitall on sends ({category})")
        t0 = time.perf_counter()
        self.MPI.Request.Waitall(reqs)
        self._account(category, 0, 0, time.perf_counter() - t0)

    # ------------------------------------------------------------------ agreement
    def agree(self, error: BreadthError | None):
        """``runtime.agree`` over this communicator: if any rank passes an error, every rank
        raises the lowest failing rank's error, of its class, marked collective. Not counted."""
        agree(self, error)


class PendingReduce:
    """A started ``Comm.iallreduce`` or ``Comm.iallgatherv``: ``wait()`` completes it (once), returns the result."""

    def __init__(self, comm, req, send, out, category):
        self.comm, self.req, self.send, self.out, self.category = comm, req, send, out, category

    def wait(self) -> np.ndarray:
        if self.req is not None:
            HEARTBEAT.begin(f"Wait on a non-blocking collective ({self.category})")
            t0 = time.perf_counter()
            self.req.Wait()
            self.comm._account(self.category, 0, 0, time.perf_counter() - t0)
            self.req = self.send = None
        return self.out
