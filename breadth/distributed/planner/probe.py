"""Measure the machine at job start: latency and bandwidth of the operations the layouts use, on
one host and across hosts, and the local kernels' edge rates (``network.Machine``).

* hosts: every rank's hostname (one ``allgather``): ranks with the same name share a host;
* latency per kind ("p2p" ring Sendrecv, "alltoall", "allgather", "allreduce"): the mean time of
  small operations over a window of ``SMALL_SECONDS`` (``_window_mean``), divided by the
  operation's latency steps (``ops.rounds_of``), on the world (across hosts when it spans
  several) and on the ranks of this host (``COMM_TYPE_SHARED``);
* bandwidth: an Alltoall of large blocks on the world and a ring Sendrecv on the host, the block
  grown by 4 until one takes ``MIN_SECONDS``: the bytes added over the time added between the
  last two sizes (``_slope``: latency and a bandwidth cap's token bucket drop out), measured
  under whatever caps the links have, TCP/IP and MPI headers included; across hosts, one more
  Alltoall of ``network.BULK_MESSAGE`` bytes to each peer gives the rate of bulk messages (on a
  capped link two-way traffic on one TCP connection halves it: ``Machine.beta_remote_bulk``),
  and a ring Sendrecv across hosts the rate of point-to-point steps (one partner at a time gets
  more of a capped link than an Alltoall's every peer at once: ``Machine.beta_remote_p2p``);
* the conditions of the run: the share of a core each rank gets while every rank computes
  (CPU time over wall time: other processes holding the cores lower it; ``Machine.cpu_share``),
  how fast a core computes against when the rates were measured (a fixed memory-bound step, in
  the thread's CPU time, every rank at once, the slowest; ``reference_seconds``, ``Machine.speed``:
  a shared host's cores slow down while other tenants compete for its caches and memory),
  what a step loses when one rank comes late (the others wait, yield or are descheduled, and
  resume a scheduler slice later; ``Machine.late_step``), and the bandwidth of clearing memory
  with every rank at it at once (``Machine.memory_bandwidth``);
* edge rates and each layout's own cost per level and per search, on a Kronecker graph and a
  uniform one: the per-machine calibration (``calibration``), read from its cache by rank 0 (or
  measured there once while the others wait idle; ``Machine.engine``, ``Machine.uniform``).

Every rank ends with the same ``Machine`` (rank 0's, broadcast). The probe's MPI traffic goes
around ``Comm``'s counters (it is no part of any search). It takes well under a second at small P
once the rates are cached (``breadth doctor`` measures them).
"""
from __future__ import annotations

import logging
import math
import socket
import time

import numpy as np

from .calibration import machine_costs, memory_bandwidth, reference_seconds, run_speed, uniform_part
from .network import BULK_MESSAGE, PRESETS, Machine
from .ops import KINDS, rounds_of

log = logging.getLogger("breadth.planner")

SMALL_REPS = 8
SMALL_SECONDS = 0.03
MAX_SMALL_REPS = 20000
MIN_SHARE = 0.05
LATE_DELAY = 5e-4
LATE_REPS = 8
MIN_SECONDS = 0.02
MIN_BLOCK = 1 << 10
FIRST_BLOCK = 1 << 12
MAX_BLOCK = 1 << 20
BULK_SECONDS = 0.5
BURST_IDLE = 0.02     # seconds every rank idles before ``_burst``'s message: a shaper's bucket refills
BURST_SPAN = 0.002    # ``_burst``'s message: this many seconds of traffic at the link's measured rate (a
                      # search level's size: after an idle spell TCP sends a longer message slower)
BURST_NOISE = 0.02    # a burst under this share of the message is timing noise: no bucket
BURST_TRIES = 4       # ``_burst`` keeps the fastest of this many messages
def _time(fn, reps) -> float:
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def _fastest(mpi, MPI, fn, reps) -> float:
    """Seconds of the fastest of ``reps`` calls of the collective ``fn`` (each the slowest rank's):
    a rank descheduled by other work only ever slows a call down."""
    best = float("inf")
    for _ in range(reps):
        mpi.Barrier()
        t = time.perf_counter()
        fn()
        best = min(best, mpi.allreduce(time.perf_counter() - t, op=MPI.MAX))
    return best


def _small(mpi, MPI) -> dict:
    """Seconds per latency step of each kind on ``mpi`` (max over its ranks)."""
    q, me = mpi.Get_size(), mpi.Get_rank()
    one = np.zeros(q, dtype=np.int64)
    got = np.zeros(q, dtype=np.int64)
    red = np.zeros(2, dtype=np.int64)
    red_out = np.zeros(2, dtype=np.int64)
    b = np.zeros(1, dtype=np.int64)
    ops = {"p2p": lambda: mpi.Sendrecv(b, (me + 1) % q, 7301, got[:1], (me - 1) % q, 7301),
           "alltoall": lambda: mpi.Alltoall(one, got),
           "allgather": lambda: mpi.Allgather(b, got),
           "allreduce": lambda: mpi.Allreduce(red, red_out)}
    out = {}
    for kind in KINDS:
        ops[kind]()
        out[kind] = _window_mean(mpi, MPI, ops[kind]) / max(1, rounds_of(kind, q))
    return out


def _window_mean(mpi, MPI, fn) -> float:
    """Mean seconds of the collective ``fn`` (each batch the slowest rank's), timed in batches until
    they span ``SMALL_SECONDS`` (``next_batch``). The window is bounded in time, not in a count fixed
    from a first batch: when other processes come to hold the cores midway, each operation waits a
    scheduler slice and a count taken from fast first calls would run on for seconds."""
    reps, total, n = 0, 0.0, SMALL_REPS
    while n:
        mpi.Barrier()
        total += mpi.allreduce(_time(fn, n) * n, op=MPI.MAX)
        reps += n
        n = next_batch(reps, total)                 # the same on every rank (from the reduced time)
    return total / reps


def cpu_share(cpu_seconds: float, wall_seconds: float) -> float:
    """The share of a core a computing rank got: its CPU time over the wall time, within
    [MIN_SHARE, 1]; 1 when the window was too short to tell."""
    if wall_seconds < SMALL_SECONDS:
        return 1.0
    return min(1.0, max(MIN_SHARE, cpu_seconds / wall_seconds))


def _busy_share() -> float:
    """``cpu_share`` of this rank computing for ``SMALL_SECONDS`` of wall time (every rank at once,
    as in a search's local steps)."""
    wall, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < SMALL_SECONDS:
        pass
    return cpu_share(time.process_time() - cpu, time.perf_counter() - wall)


def _late_step(mpi, MPI, small) -> float:
    """Seconds a small Allreduce loses beyond its latency steps when one rank (each in turn) comes
    ``LATE_DELAY`` late, computing meanwhile, as ranks come to a search's collectives: the mean
    over ``LATE_REPS`` of the slowest rank's time less the delay and the latency, at least 0."""
    q = mpi.Get_size()
    red, out = np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64)
    total = 0.0
    for i in range(LATE_REPS):
        mpi.Barrier()
        t = time.perf_counter()
        if mpi.Get_rank() == i % q:
            while time.perf_counter() - t < LATE_DELAY:
                pass
        mpi.Allreduce(red, out)
        total += mpi.allreduce(time.perf_counter() - t, op=MPI.MAX)
    steps = small.get("allreduce", 0.0) * rounds_of("allreduce", q)
    return max(0.0, total / LATE_REPS - LATE_DELAY - steps)


def next_batch(reps: int, seconds: float) -> int:
    """Operations in the latency window's next batch after ``reps`` took ``seconds`` in all: enough
    to reach ``SMALL_SECONDS`` at their mean, at most as many as so far (a batch runs at most as long
    as the window so far, should the operations slow down) and ``MAX_SMALL_REPS`` in all; 0: done."""
    if reps <= 0 or seconds <= 0 or seconds >= SMALL_SECONDS or reps >= MAX_SMALL_REPS:
        return 0
    want = math.ceil((SMALL_SECONDS - seconds) * reps / seconds)
    return int(min(want, reps, MAX_SMALL_REPS - reps))


def _bandwidth(mpi, MPI, kind) -> float:
    """Bytes per second one rank moves in a large ``kind`` ("alltoall" or "p2p" ring) on ``mpi``:
    the slope between two block sizes a factor 4 apart, the larger one taking ``MIN_SECONDS``
    (the slope leaves out what does not grow with the bytes: the latency steps, and the bytes a
    token-bucket cap lets through at once after an idle spell)."""
    q, me = mpi.Get_size(), mpi.Get_rank()

    def timed(block):
        if kind == "alltoall":
            send = np.zeros(q * block, dtype=np.uint8)
            recv = np.empty_like(send)
            fn = lambda: mpi.Alltoall(send, recv)          # noqa: E731
            sent = (q - 1) * block
        else:
            send = np.zeros(block, dtype=np.uint8)
            recv = np.empty_like(send)
            fn = lambda: mpi.Sendrecv(send, (me + 1) % q, 7302, recv, (me - 1) % q, 7302)   # noqa: E731
            sent = block
        fn()
        mpi.Barrier()
        return sent, _fastest(mpi, MPI, fn, 2)

    return _slope(timed, FIRST_BLOCK)


def _bulk(mpi, MPI, small) -> float:
    """Bytes per second one rank moves in an Alltoall of ``BULK_MESSAGE`` bytes to each peer (the
    connections already open; one call on a slow link, the fastest of four when one takes under
    ``BULK_SECONDS``; its latency steps, ``small``, left out)."""
    q = mpi.Get_size()
    send = np.zeros(q * BULK_MESSAGE, dtype=np.uint8)
    recv = np.empty_like(send)
    fn = lambda: mpi.Alltoall(send, recv)              # noqa: E731
    t = _fastest(mpi, MPI, fn, 1)
    if t < BULK_SECONDS:                                 # a fast link: the fastest of a few
        t = min(t, _fastest(mpi, MPI, fn, 3))
    t -= small.get("alltoall", 0.0) * rounds_of("alltoall", q)
    return (q - 1) * BULK_MESSAGE / t if t > 0 else PRESETS["shm"][1]


def _burst(mpi, MPI, rate: float, alpha: float) -> float:
    """Bytes a host link passes at once after an idle spell before its rate holds (a token-bucket
    shaper's bucket, ``Machine.burst_bytes``). Every rank idles ``BURST_IDLE``, then sends X bytes
    (``BURST_SPAN`` of traffic at ``rate``) to its ring neighbour: a link without a bucket takes
    alpha + X / rate, one with a bucket of b bytes alpha + (X - b) / rate. b = X - (t - alpha) x rate
    with t the slowest rank's time in the fastest of ``BURST_TRIES`` tries (a rank descheduled by
    other work only slows a try down), within [0, X]; under ``BURST_NOISE`` of X it is 0."""
    q, me = mpi.Get_size(), mpi.Get_rank()
    block = int(min(max(rate * BURST_SPAN, MIN_BLOCK), 4 * MAX_BLOCK))
    send = np.zeros(block, dtype=np.uint8)
    recv = np.empty_like(send)
    fastest = float("inf")
    for _ in range(BURST_TRIES):
        mpi.Barrier()
        time.sleep(BURST_IDLE)
        t = time.perf_counter()
        mpi.Sendrecv(send, (me + 1) % q, 7303, recv, (me - 1) % q, 7303)
        fastest = min(fastest, mpi.allreduce(time.perf_counter() - t, op=MPI.MAX))
    burst = min(float(block), max(0.0, block - (fastest - alpha) * rate))
    return 0.0 if burst < BURST_NOISE * block else burst


def _slope(timed, block) -> float:
    """Bytes/s from ``timed(block) -> (bytes, seconds)`` (see ``_bandwidth``): grow the block by 4
    until a call takes ``MIN_SECONDS`` (or the block reaches ``MAX_BLOCK``), then the bytes added
    over the seconds added since the previous size (when the first size took that long already:
    up to the next larger size), kept within a factor 4 of bytes/seconds of the larger call
    (timing noise on fast links)."""
    prev = None
    while True:
        sent, t = timed(block)
        if t >= MIN_SECONDS or block >= MAX_BLOCK:
            break
        prev = (sent, t)
        block *= 4
    if prev is None and block < MAX_BLOCK:
        # the first size was slow already, so it overflowed a shaper's bucket: so does the next
        # larger one, and the burst cancels in the slope (a smaller size may pass in the bucket
        # whole and make the slope several times the rate)
        prev = (sent, t)
        sent, t = timed(4 * block)
    if t <= 0:
        return PRESETS["shm"][1]
    plain = sent / t
    if prev is None or t <= prev[1]:
        return plain
    return min(4 * plain, max(plain / 4, (sent - prev[0]) / (t - prev[1])))


def probe(comm, threads: int = 1, rates: dict | None = None) -> Machine:
    """The machine of ``comm`` (a ``Comm`` or mpi4py communicator), the same on every rank. Collective."""
    from ..runtime import get_mpi, mpi_comm, node_cores

    MPI = get_mpi()
    mpi = mpi_comm(comm)
    t0 = time.perf_counter()
    names = mpi.allgather(socket.gethostname())
    order = list(dict.fromkeys(names))
    hosts = tuple(order.index(x) for x in names)
    node = mpi.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        spans = len(order) > 1
        world_small = _small(mpi, MPI) if mpi.Get_size() > 1 else {}
        late = _late_step(mpi, MPI, world_small) if mpi.Get_size() > 1 else 0.0
        share = mpi.allreduce(_busy_share(), op=MPI.MIN)
        slowest = mpi.allreduce(reference_seconds(), op=MPI.MAX)        # every rank at once, as in a search
        node_small = _small(node, MPI) if node.Get_size() > 1 else {}
        node_bw = _bandwidth(node, MPI, "p2p") if node.Get_size() > 1 else PRESETS["shm"][1]
        world_bw = _bandwidth(mpi, MPI, "alltoall") if mpi.Get_size() > 1 else node_bw
        world_bulk = _bulk(mpi, MPI, world_small) if spans else None
        world_p2p = _bandwidth(mpi, MPI, "p2p") if spans else None
        burst = _burst(mpi, MPI, world_p2p, world_small.get("p2p", 0.0)) if spans else 0.0
        cores = mpi.allreduce(node_cores(node), op=MPI.MIN)          # the same on every rank
    finally:
        node.Free()
    if spans:
        alpha_local = node_small or {k: PRESETS["shm"][0] for k in KINDS}
        alpha_remote = world_small
        # an Alltoall's bytes leave the host but for the host's share; the host's ranks share its link
        per_host = max(hosts.count(h) for h in set(hosts))
        P = len(hosts)
        remote_share = (P - per_host) / max(1, P - 1)
        beta_remote = world_bw * per_host / max(remote_share, 1e-9)
        beta_bulk = world_bulk * per_host / max(remote_share, 1e-9)
        # in the ring (ranks in blocks per host) one rank per host sends across: the link is its own
        beta_p2p = world_p2p
    else:
        beta_bulk = beta_p2p = None
        alpha_local = world_small or {k: PRESETS["shm"][0] for k in KINDS}
        alpha_remote = dict(alpha_local)
        beta_remote = world_bw
    beta_local = node_bw if node_small else world_bw
    if mpi.Get_rank() == 0 and rates is None:
        rates = machine_costs()
    rates = _bcast_idle(mpi, rates)
    mpi.Barrier()
    memory = mpi.allreduce(memory_bandwidth(), op=MPI.MIN)     # every rank clearing at once, as in a search
    machine = Machine(hosts, cores, alpha_local, alpha_remote, beta_local, beta_remote,
                      rates["rate_td"], rates["rate_bu"], threads, "probe", beta_remote_bulk=beta_bulk,
                      beta_remote_p2p=beta_p2p, memory_bandwidth=memory, engine=dict(rates.get("engine", {})),
                      cpu_share=share, late_step=late, burst_bytes=burst, uniform=uniform_part(rates),
                      speed=run_speed(rates.get("reference"), slowest))
    machine = mpi.bcast(machine, root=0)
    machine.threads = threads
    log.info("probe: %d ranks on %d hosts in %.3f s", len(hosts), len(order), time.perf_counter() - t0)
    return machine


def _bcast_idle(mpi, value):
    """Broadcast from rank 0 with the other ranks sleeping (not spinning) until it is ready."""
    req = mpi.Ibarrier()
    while not req.Test():
        time.sleep(0.002)
    return mpi.bcast(value, root=0)
