"""The operations of ``comm.Comm``: collectives and point-to-point sends, each timed and counted.

What counts as a message, and under which tallies, is the rule of ``comm``'s header; every
operation here records itself through ``Comm._account`` and updates the stall watchdog's
heartbeat (``faults.watchdog.HEARTBEAT``).
"""
from __future__ import annotations

import time

import numpy as np

from ..docstrings import shared_args
from .faults.watchdog import HEARTBEAT
from .runtime import get_mpi

_TYPES = {}
# the parameters the operations share (``breadth.docstrings.shared_args``)
_ARGS = {
    "category": 'the tally the messages count under: "exchange" (the frontier exchange) or "control".',
    "array": "this rank's numpy array (1-D for the gathers).",
    "op": '"sum", "max", "min" or "bor" (bitwise or, integer arrays).',
    "counts": "every rank's element count, in rank order (None: exchanged first).",
    "send": "the numpy array sent (``alltoallv``: ordered by destination rank).",
}


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


class Operations:
    """The collectives and point-to-point operations of ``Comm`` (which provides ``mpi``, ``MPI``,
    ``rank``, ``size`` and ``_account``)."""

    @shared_args(_ARGS)
    def barrier(self, category="control"):
        """Wait for every rank (no message counted; its time is).
        """
        HEARTBEAT.begin(f"Barrier ({category})")
        t0 = time.perf_counter()
        self.mpi.Barrier()
        self._account(category, 0, 0, time.perf_counter() - t0)

    @shared_args(_ARGS)
    def allreduce(self, array, op="sum", category="control") -> np.ndarray:
        """Element-wise reduction of a numpy array over all ranks.

        Returns:
            A new array, the reduction.
        """
        MPI = self.MPI
        a = np.ascontiguousarray(array)
        out = np.empty_like(a)
        mop = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "bor": MPI.BOR}[op]
        HEARTBEAT.begin(f"Allreduce ({category})")
        t0 = time.perf_counter()
        self.mpi.Allreduce([a, _mpi_type(a.dtype)], [out, _mpi_type(a.dtype)], op=mop)
        self._account(category, self.size - 1, (self.size - 1) * a.nbytes, time.perf_counter() - t0)
        return out

    @shared_args(_ARGS)
    def reduce_scatter(self, array, counts, op="min", category="exchange") -> np.ndarray:
        """Element-wise reduction of a numpy array over all ranks, of which each rank receives only its
        block: rank q the ``counts[q]`` elements after the blocks of the ranks before it. Counted as
        P - 1 messages, each the block of the rank it goes to (the wire's volume: an Allreduce sends
        twice that).

        Returns:
            This rank's block of the reduction (a new array).
        """
        MPI = self.MPI
        a = np.ascontiguousarray(array)
        counts = np.asarray(counts, dtype=np.int64)
        out = np.empty(int(counts[self.rank]), dtype=a.dtype)
        mop = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "bor": MPI.BOR}[op]
        HEARTBEAT.begin(f"Reduce_scatter ({category})")
        t0 = time.perf_counter()
        self.mpi.Reduce_scatter([a, _mpi_type(a.dtype)], [out, _mpi_type(a.dtype)], recvcounts=counts, op=mop)
        self._account(category, self.size - 1, (int(counts.sum()) - int(counts[self.rank])) * a.itemsize,
                      time.perf_counter() - t0)
        return out

    @shared_args(_ARGS)
    def iallreduce(self, array, op="bor", category="exchange") -> "PendingReduce":
        """Start a non-blocking ``allreduce`` (counted now, like it: P - 1 messages of the buffer).

        Returns:
            A ``PendingReduce``: its ``wait()`` gives the reduced array and adds the waiting time.
        """
        MPI = self.MPI
        a = np.ascontiguousarray(array)
        out = np.empty_like(a)
        mop = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "bor": MPI.BOR}[op]
        t0 = time.perf_counter()
        req = self.mpi.Iallreduce([a, _mpi_type(a.dtype)], [out, _mpi_type(a.dtype)], op=mop)
        self._account(category, self.size - 1, (self.size - 1) * a.nbytes, time.perf_counter() - t0)
        return PendingReduce(self, req, a, out, category)

    @shared_args(_ARGS)
    def iallgatherv(self, array, counts, category="exchange") -> "PendingReduce":
        """Start a non-blocking ``allgatherv`` (counted now: P - 1 messages of this rank's block).

        Returns:
            A ``PendingReduce``: its ``wait()`` gives the concatenation.
        """
        a = np.ascontiguousarray(array)
        counts = np.asarray(counts, dtype=np.int64)
        out = np.empty(int(counts.sum()), dtype=a.dtype)
        t = _mpi_type(a.dtype)
        t0 = time.perf_counter()
        req = self.mpi.Iallgatherv([a, t], [out, (counts, _displacements(counts)), t])
        self._account(category, self.size - 1, (self.size - 1) * a.nbytes, time.perf_counter() - t0)
        return PendingReduce(self, req, a, out, category)

    @shared_args(_ARGS)
    def allgatherv(self, array, counts=None, out=None, category="control") -> np.ndarray:
        """Concatenate every rank's 1-D array in rank order.

        Args:
            out: the array to fill (None: a new one).

        Returns:
            The concatenation.
        """
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

    @shared_args(_ARGS)
    def alltoallv(self, send, counts, category="exchange"):
        """Send ``send[displ[q]:displ[q] + counts[q]]`` to every rank q: an Alltoall of the counts, then the
        Alltoallv of the data.

        Args:
            counts: the element count for each destination rank.

        Returns:
            (received array in source-rank order, received counts per source).
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

    @shared_args(_ARGS)
    def alltoallv_header(self, send, counts, header, category="exchange", between=None):
        """``alltoallv`` whose count Alltoall also carries ``header``: the same 2 (P - 1) messages, 8 k more
        bytes per peer.

        Args:
            counts: the element count for each destination rank.
            header: k int64 values per destination, shape (P, k).
            between: called with the received headers after the count Alltoall, before the data moves (to
                start an operation that overlaps it; its own time is not counted here); None: nothing.

        Returns:
            (received array, received counts, received headers (P, k)), in source-rank order.
        """
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

    @shared_args(_ARGS)
    def sendrecv(self, send, dest, recv, source, category="exchange") -> int:
        """Send ``send`` to ``dest`` while receiving from ``source``: one message, none when ``dest`` is this
        rank (then ``source`` must be too, and ``send`` is copied).

        Args:
            dest: the rank sent to.
            recv: the buffer received into (large enough).
            source: the rank received from.

        Returns:
            The number of elements received.
        """
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

    @shared_args(_ARGS)
    def gatherv(self, array, root=0):
        """Concatenate every rank's 1-D array on ``root`` (not counted: reporting only).

        Args:
            root: the rank that receives.

        Returns:
            The concatenation on ``root``, None elsewhere.
        """
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
    @shared_args(_ARGS)
    def isend(self, dst, arr, tag, category="exchange"):
        """Start a send (counted now); complete it with ``wait_all``.

        Args:
            dst: the rank sent to.
            arr: the numpy array sent.
            tag: the message tag.

        Returns:
            The MPI request.
        """
        t0 = time.perf_counter()
        req = self.mpi.Isend([arr, _mpi_type(arr.dtype)], dest=dst, tag=tag)
        self._account(category, 1, arr.nbytes, time.perf_counter() - t0)
        return req

    @shared_args(_ARGS)
    def recv_all(self, recvs, tag=None, category="exchange") -> list[tuple[int, int]]:
        """Receive from several partners at once into the given buffers.

        Args:
            recvs: (source rank, buffer) pairs.
            tag: the tag received (None: any).

        Returns:
            (element count, tag) per receive, elements of the buffer's dtype.
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

    @shared_args(_ARGS)
    def wait_all(self, reqs, category="exchange"):
        """Complete sends started by ``isend``.

        Args:
            reqs: their requests.
        """
        HEARTBEAT.begin(f"Waitall on sends ({category})")
        t0 = time.perf_counter()
        self.MPI.Request.Waitall(reqs)
        self._account(category, 0, 0, time.perf_counter() - t0)


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
