"""The alpha-beta machine the cost models run on, and the cost of one operation (``ops.Op``).

An operation's time on a ``Machine`` is

    rounds * alpha[kind, scope] + local bytes / beta_local + remote bytes / beta_remote(rank's host)

where scope is "local" when the whole group sits on one host, else "remote"; a rank's bytes
split between its host and the others in proportion to its group peers there; the remote
bandwidth is the host link's shared by every rank of the host (``Machine.link_sharers``: all
groups of a layout run the operation at once, so a host's 24 ranks in 24 grid columns share its
link even when each column has one member there), as measured for the operation's pattern and
message size (``Machine.remote_rate``: an Alltoall's rate, a point-to-point step's, and the rate
of bulk messages). On a torus (``Machine.torus``) an operation also takes at least the time its
traffic needs across the bisection (``Machine.bisection_seconds``). Local work is edges / (edge
rate of this rank's cores) for each direction; with a ``MemoryRule`` the edge rate comes from the
rank's memory bandwidth and cache.
"""
from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from .ops import KINDS, Op, message_bytes

SMALL_MESSAGE = 16 * 1024      # bytes to one peer still at the small-message rate (``Machine.remote_rate``)
BULK_MESSAGE = 64 * 1024       # bytes to one peer at the bulk rate: the probe's bulk block

# Named networks for ``breadth plan`` (latency in seconds per message, bandwidth in bytes/s per host link).
PRESETS = {
    "shm": (1e-6, 5e9),
    "infiniband": (2e-6, 12.5e9),          # HDR 100 Gbit/s class
    "10gbe": (20e-6, 1.25e9),
    "1gbe": (50e-6, 1.25e8),
    "200mbit": (100e-6, 2.5e7),
    "10mbit": (200e-6, 1.25e6),
}


@dataclass
class Machine:
    """Measured (``probe``) or assumed (``breadth plan``) machine parameters."""

    hosts: tuple                                  # host index of every rank
    cores_per_host: int
    alpha_local: dict = field(default_factory=dict)     # seconds per latency step, per kind
    alpha_remote: dict = field(default_factory=dict)
    beta_local: float = 5e9                       # bytes/s a rank sends on its host
    beta_remote: float = 1.25e8                   # bytes/s of one host's link
    rate_td: float = 1e8                          # edges/s of one core, top-down
    rate_bu: float = 2e8                          # edges/s of one core, bottom-up
    threads: int = 1                              # numba threads per rank
    source: str = "assumed"
    # seconds a blocking step waits for a descheduled peer when a host's ranks outnumber its cores
    # (the OS time slice the peer must get before it answers); 0 when every rank has a core
    oversubscribed_step: float = 2.5e-4
    # bytes/s of one host's link for bulk messages (``BULK_MESSAGE`` bytes or more to each peer;
    # None: as ``beta_remote``): on a slow link two-way traffic on one TCP connection holds each
    # direction's acknowledgements behind the other's data, and large messages move at a fraction
    # of the rate small ones get (``probe`` measures both)
    beta_remote_bulk: float | None = None
    # bytes/s of one host's link in point-to-point steps (each rank sends to one partner at a time;
    # None: as ``beta_remote``, which the probe takes from an Alltoall, where every rank sends to
    # every other at once and TCP gets less of a capped link)
    beta_remote_p2p: float | None = None
    # bytes/s one rank writes when it clears its per-search state (``--memory-bandwidth``)
    memory_bandwidth: float = 5e9
    # ranks are GPUs (``--gpus``): the edge rates are one device's, not one core's, whatever the host's cores
    device: str = "cpu"
    # bytes/s of the host-device link when transfers are staged through host memory (each byte
    # sent is copied device-to-host before and host-to-device after: Pan Sec. VI-A's workaround);
    # None: direct (GPUDirect, or CPU ranks)
    staging_bandwidth: float | None = None
    # factor on local work for the busiest rank (1: balanced); ``breadth plan --imbalance``
    imbalance: float = 1.0
    # a direct network (``breadth plan --torus``): the routers' torus dimensions and bytes/s of one
    # link each way; () for a switched network that is not the bottleneck
    torus: tuple = ()
    torus_link: float = 0.0
    # edge rates from memory (``MemoryRule``) instead of ``rate_td`` / ``rate_bu``: None to use those
    memory_rule: object = None
    # the engine's own cost per level and per search, per layout ("partition/exchange": an
    # ``overhead.EngineCost`` as a dict), measured by ``probe``; a layout not in it costs nothing
    engine: dict = field(default_factory=dict)
    # the share of a core a busy rank gets while other processes hold the host's cores (CPU time
    # over wall time in the probe's busy latency window, the least of the ranks'; 1: a core of its own)
    cpu_share: float = 1.0
    # how fast a core computes now against when the rates and engine costs were measured: the
    # calibration's reference step over the slowest rank's at the probe (``calibration.reference_seconds``;
    # a shared host's cores slow down while its other tenants compete for caches and memory); 1: as then
    speed: float = 1.0
    # seconds a blocking step loses when its ranks arrive apart, as a search's do: the rank that
    # waits yields or is descheduled and resumes a scheduler slice after its peer's data came
    # (``probe._late_step``: a step with one rank late by ``probe.LATE_DELAY``); 0: not measured
    late_step: float = 0.0
    # bytes a host's link passes at once after an idle spell before its rate holds (a token-bucket
    # shaper's bucket, ``probe._burst``): it refills at the link's rate while the ranks compute (a
    # search's setup, each level's step), and the traffic it holds costs no time; 0 for a link
    # without one
    burst_bytes: float = 0.0
    # the edge rates and engine costs measured on a uniform graph ("rate_td", "rate_bu", "engine"),
    # and the hot shares of both calibration graphs ("hot_uniform", "hot_kronecker"): ``rate_td``,
    # ``rate_bu`` and ``engine`` are the Kronecker graph's (``for_hot_share``); {}: those alone
    uniform: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.hosts)

    def ranks_on_host(self, h) -> int:
        """Ranks on host ``h`` (from the per-host counts, computed once)."""
        return int(self._sizes()[h]) if 0 <= h < len(self._sizes()) else 0

    def _sizes(self):
        """Ranks per host index (one pass over ``hosts``, kept)."""
        got = self.__dict__.get("_host_sizes")
        if got is None:
            got = self.__dict__["_host_sizes"] = np.bincount(self._host_array())
        return got

    def _host_array(self):
        got = self.__dict__.get("_hosts")
        if got is None:
            got = self.__dict__["_hosts"] = np.asarray(self.hosts, dtype=np.int64)
        return got

    def _block(self):
        """``per`` when rank r sits on host r // per (``assumed``'s blocks), else None."""
        if "_per" not in self.__dict__:
            sizes, per = self._sizes(), None
            if len(sizes) and sizes[0] > 0:
                per = int(sizes[0])
                if not np.array_equal(self._host_array(), np.arange(len(self.hosts)) // per):
                    per = None
            self.__dict__["_per"] = per
        return self.__dict__["_per"]

    def core_share(self, rank: int = 0) -> float:
        """Cores one rank's kernels compute on: its threads, or its share when the host's ranks
        outnumber the cores (a GPU rank: its device, 1)."""
        return self._cores(rank, float(self.threads))

    def serial_share(self, rank: int = 0) -> float:
        """The share of one core that a rank's serial work gets (the Python level loop, its calls,
        numpy's clears): 1 but where the host's ranks outnumber its cores or other processes hold
        them; more threads do not speed it up."""
        return self._cores(rank, 1.0)

    def _cores(self, rank: int, most: float) -> float:
        """Cores a rank's work runs on, at most ``most``: its host's cores shared by the host's
        ranks, times the share of a core the probe found it gets and the cores' speed against the
        calibration's (a GPU rank: its device, 1)."""
        if self.device == "gpu":
            return 1.0
        share = min(most, self.cores_per_host / self.ranks_on_host(self.hosts[rank])) * self.cpu_share
        return max(1e-3, share * self.speed)

    def for_hot_share(self, hot: float | None) -> "Machine":
        """This machine for a graph whose highest-degree vertices hold ``hot`` of the arc endpoints
        (``graph.Profile.hot_share``): the Kronecker and uniform calibrations weighted by where
        ``hot`` lies between their graphs' shares (within them; per edge the times are weighted,
        so the rates combine harmonically). Unchanged without a uniform calibration or a share."""
        u = self.uniform
        if not u or hot is None or u["hot_kronecker"] <= u["hot_uniform"]:
            return self
        w = min(1.0, max(0.0, (hot - u["hot_uniform"]) / (u["hot_kronecker"] - u["hot_uniform"])))
        if w == 1.0:
            return self
        out = copy.copy(self)
        out.rate_td = 1.0 / (w / self.rate_td + (1.0 - w) / u["rate_td"])
        out.rate_bu = 1.0 / (w / self.rate_bu + (1.0 - w) / u["rate_bu"])
        other = u.get("engine", {})
        out.engine = {k: {f: w * v + (1.0 - w) * other.get(k, {}).get(f, v) for f, v in terms.items()}
                      for k, terms in self.engine.items()}
        return out

    def compute(self, edges_td: float, edges_bu: float, items: float = 0.0) -> float:
        share = self.core_share()
        return (edges_td + items) / (self.rate_td * share) + edges_bu / (self.rate_bu * share)

    def engine_level(self, layout: str, direction: str, vertices: float, edges: float = 0.0,
                     other: float = 0.0, frontier: float = 0.0) -> float:
        """Seconds of the engine's own work in one level of ``layout`` on a rank holding ``vertices``
        vertices (in a bottom-up level, ``vertices`` not yet reached) and examining ``edges`` edges
        in the level's direction and ``other`` in a pass of the other direction (the delegates'
        top-down nn pass in a bottom-up level), each at its direction's cost per edge, with
        ``frontier`` frontier vertices to handle (``overhead.EngineCost``, on this rank's cores)."""
        got = self.engine.get(layout)
        if not got or self.device == "gpu":
            return 0.0
        td = direction == "top-down"
        per = got["level_vertex_td"] if td else got["level_unvisited_bu"]
        edge, cross = got.get("edge_td", 0.0), got.get("edge_bu", 0.0)
        if not td:
            edge, cross = cross, edge
        # the sweeps and edges run in the rank's kernels, on its threads; the rest of a level is serial
        kernels = per * vertices + edge * edges + cross * other + got.get("level_frontier", 0.0) * frontier
        return got["level_fixed"] / self.serial_share() + kernels / self.core_share()

    def engine_rounds(self, layout: str, rounds: int) -> float:
        """Seconds of ``layout``'s exchange's own work in ``rounds`` rounds (``EngineCost.round_fixed``)."""
        got = self.engine.get(layout)
        if not got or self.device == "gpu" or not rounds:
            return 0.0
        return rounds * got.get("round_fixed", 0.0) / self.serial_share()

    def engine_finish(self, layout: str, arcs: float) -> float | None:
        """Seconds of ``layout``'s step after the search over ``arcs`` arcs on this rank's cores
        (``EngineCost.finish_edge``); None where the layout's own cost per arc was not measured."""
        got = self.engine.get(layout)
        if not got or self.device == "gpu" or not got.get("finish_edge"):
            return None
        return arcs * got["finish_edge"] / self.core_share()

    def engine_route(self, layout: str, pairs: float) -> float:
        """Seconds to pack ``pairs`` (vertex, parent) pairs by owner and settle as many at their owner,
        on this rank's cores (``EngineCost.route_pair``); where that cost was not measured, two ids
        a pair at the top-down edge rate."""
        got = self.engine.get(layout)
        if not pairs:
            return 0.0
        if not got or self.device == "gpu" or not got.get("route_pair"):
            return self.compute(0.0, 0.0, 2.0 * pairs)
        return pairs * got["route_pair"] / self.core_share()

    def engine_search(self, layout: str, vertices: float) -> float:
        """Seconds of the engine's own per-search work of ``layout`` outside its levels."""
        got = self.engine.get(layout)
        if not got or self.device == "gpu":
            return 0.0
        # its clears run in the kernels, on the rank's threads; the rest is serial
        return got["search_fixed"] / self.serial_share() + got["search_vertex"] * vertices / self.core_share()

    def alpha(self, kind: str, remote: bool) -> float:
        table = self.alpha_remote if remote else self.alpha_local
        return table.get(kind, table.get("p2p", 1e-6))

    def op_seconds(self, op: Op, credit: float = 0.0) -> float:
        """The time of ``op``: the slowest member's latency steps and bytes (module header); the
        first ``credit`` bytes through each host link pass at once (``burst_bytes`` not yet used
        in this level), shared by the ranks sending through it."""
        q = len(op.group)
        if q <= 1 and op.kind != "p2p":
            return 0.0
        heres, spans, crowded = self._host_counts(op.group)
        worst = 0.0
        link = self.remote_rate(message_bytes(op), op.kind)
        sharers = self.link_sharers(op.group) if spans > 1 else 1
        for here in heres:
            peers = max(1, q - 1)
            remote_share = (q - here) / peers if q > 1 else 0.0
            beta_r = link / max(1, here, sharers)
            remote = max(0.0, op.bytes * remote_share - credit / max(1, here, sharers))
            worst = max(worst, op.bytes * (1 - remote_share) / self.beta_local + remote / beta_r)
        wait = self.oversubscribed_step * (1 if op.rounds else 0) if crowded and self.device != "gpu" else 0.0
        if self.torus and spans > 1:
            worst = max(worst, self.bisection_seconds(op, heres))
        if op.rounds and self.device != "gpu":            # once per operation: its later rounds start together
            wait = max(wait, self.late_step)
        staged = 2.0 * op.bytes / self.staging_bandwidth if self.staging_bandwidth else 0.0
        return op.rounds * self.alpha(op.kind, spans > 1) + worst + wait + staged

    def refilled(self, seconds: float, start: float = 0.0) -> float:
        """The bytes a link's bucket (``burst_bytes``) holds after ``seconds`` idle from ``start``
        bytes: it refills at the link's rate, up to its size."""
        if not self.burst_bytes:
            return 0.0
        return min(self.burst_bytes, start + seconds * (self.beta_remote_p2p or self.beta_remote))

    def link_bytes(self, op: Op) -> float:
        """Bytes ``op`` puts on the busiest host's link (its ranks' sends leaving the host); 0 when
        ``op``'s group stays on one host."""
        heres, spans, _ = self._host_counts(op.group)
        if spans <= 1:
            return 0.0
        return op.bytes * self.link_sharers(op.group)

    def bisection_seconds(self, op: Op, heres) -> float:
        """The time ``op``'s traffic needs to cross the torus's bisection (``torus``): every group runs
        it at once; a group spread over the whole machine sends half its remote bytes across the cut
        (uniform destinations), one whose hosts lie within a fraction s of the machine's (rank order
        is host order, and hosts are numbered along the torus) about s of that. The cut
        perpendicular to the longest dimension has 2 X Y Z / max(X, Y, Z) links (the wrap-around
        doubles it), each carrying ``torus_link`` bytes/s each way (Dally and Towles,
        "Principles and Practices of Interconnection Networks", Sec. 3.3: a k-ary n-cube's
        bisection)."""
        q = len(op.group)
        remote = (q - min(heres)) / max(1, q - 1)
        wire = op.bytes * self.size if op.kind == "allreduce" or not op.volume else op.volume   # choose.wire_bytes
        total = wire * remote
        hosts = max(1, int(self._sizes().size))
        lo, hi = self._host_extent(op.group)
        crossing = 0.5 * min(1.0, 2.0 * (hi - lo + 1) / hosts)
        dims = [int(x) for x in self.torus]
        links = 2.0 * math.prod(dims) / max(dims)
        return total * crossing / (2.0 * links * self.torus_link)

    def remote_rate(self, message: float, kind: str = "alltoall") -> float:
        """A host link's bytes/s for messages of ``message`` bytes to each peer in an operation of
        ``kind``: ``beta_remote`` (``beta_remote_p2p`` for point-to-point steps) up to
        ``SMALL_MESSAGE``, ``beta_remote_bulk`` from ``BULK_MESSAGE``, seconds per byte linear between."""
        base = self.beta_remote_p2p if kind == "p2p" and self.beta_remote_p2p else self.beta_remote
        bulk = self.beta_remote_bulk
        if bulk is None or message <= SMALL_MESSAGE or bulk >= base:
            return base
        if message >= BULK_MESSAGE:
            return bulk
        w = (message - SMALL_MESSAGE) / (BULK_MESSAGE - SMALL_MESSAGE)
        return 1.0 / ((1 - w) / base + w / bulk)

    def _host_extent(self, group) -> tuple:
        """(lowest, highest) host index of ``group``'s members."""
        if isinstance(group, range) and len(group):
            ends = self._host_array()[[min(group[0], group[-1]), max(group[0], group[-1])]]
            if self._block() is not None:
                return int(ends[0]), int(ends[1])
        h = self._host_array()[np.fromiter(group, dtype=np.int64)]
        return (int(h.min()), int(h.max())) if h.size else (0, 0)

    def link_sharers(self, group) -> int:
        """Ranks that send through one host link at once in an operation on ``group``: every rank
        of the busiest host ``group`` spans, since each layout runs an operation in all its groups
        at the same time (every grid column expands at once), whatever share of them is in
        ``group`` itself (counted with ``_host_counts``)."""
        self._host_counts(group)
        return self.__dict__["_sharers"][group if isinstance(group, range) else tuple(group)]

    def _host_counts(self, group) -> tuple:
        """(the distinct numbers of ``group``'s members that share a host, the hosts it spans,
        whether any of those hosts has more ranks than cores), kept per group. A ``range`` group on
        block hosts is counted per host in closed form (``block_counts``); any other by one pass."""
        cache = self.__dict__.setdefault("_counts", {})
        key = group if isinstance(group, range) else tuple(group)
        got = cache.get(key)
        if got is None:
            per = self._block()
            if per is not None and isinstance(group, range):
                hosts, here = block_counts(group, per)
            else:
                idx = np.fromiter(group, dtype=np.int64)
                c = np.bincount(self._host_array()[idx]) if idx.size else np.zeros(0, np.int64)
                hosts = np.flatnonzero(c)
                here = c[hosts]
            crowded = bool((self._sizes()[hosts] > self.cores_per_host).any()) if hosts.size else False
            self.__dict__.setdefault("_sharers", {})[key] = int(self._sizes()[hosts].max()) if hosts.size else 1
            got = cache[key] = (tuple(int(x) for x in np.unique(here)), int(hosts.size), crowded)
        return got

    def __getstate__(self):             # the caches stay behind when the machine is broadcast
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def as_dict(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if not k.startswith("_")}
        d["hosts"] = list(self.hosts)
        d["host_count"] = len(set(self.hosts))
        return d


@dataclass(frozen=True)
class MemoryRule:
    """Edge rates from a rank's memory: an examined edge reads its neighbour's id in sequence
    (``id_bytes``) and touches the neighbour's state at random, one cache line or GPU sector
    (``access_bytes``), unless the rank's cache (``cache_bytes``, holding ``state_bytes`` per
    vertex) serves it. The cache keeps the hottest vertices' state -- the highest-degree ones, as
    an LRU cache under a skewed stream of endpoints does -- so it serves the share of endpoints
    that fall on them (``degrees.DegreeModel.endpoint_share``) among the vertices whose state the
    rank keeps (``state_vertices``: the layout's cost model says which)."""

    access_bytes: float
    id_bytes: float = 4.0
    cache_bytes: float = 0.0
    state_bytes: float = 4.0

    def rate(self, memory_bandwidth: float, hit: float) -> float:
        return memory_bandwidth / (self.id_bytes + self.access_bytes * (1.0 - hit))

    def hit(self, degrees, n: float, state_vertices: float) -> float:
        """The share of accesses the cache serves when the rank keeps ``state_vertices`` of the n
        vertices' state (a uniform sample of them, as hashing or scrambled labels give)."""
        if degrees is None or self.cache_bytes <= 0 or state_vertices <= 0:
            return 0.0
        held = min(1.0, self.cache_bytes / self.state_bytes / state_vertices)
        return float(degrees.endpoint_share(held * n))


def block_counts(group: range, per: int) -> tuple:
    """(hosts, members on each) of an arithmetic progression of ranks when rank r sits on host
    r // per: the members below x are clip(ceil((x - start) / step), 0, len), so host h holds
    below((h + 1) per) - below(h per) -- per host, never per rank."""
    q = len(group)
    if q == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first, last = group[0], group[-1]
    lo, hi = min(first, last) // per, max(first, last) // per
    h = np.arange(lo, hi + 1, dtype=np.int64)
    start, step = group.start, group.step
    if step < 0:                       # the same members, ascending
        start, step = last, -step

    def below(x):
        return np.clip(-((start - x) // step), 0, q)
    here = below((h + 1) * per) - below(h * per)
    keep = here > 0
    return h[keep], here[keep]


def assumed(P: int, hosts: int, cores: int, latency: float, bandwidth: float, rate_td=1.0e8, rate_bu=2.0e8,
            threads=None, memory_bandwidth: float = 5e9) -> Machine:
    """A machine for ``breadth plan``: P ranks in blocks over ``hosts`` hosts, one latency for every
    collective step across hosts (1 us on a host), ``bandwidth`` bytes/s per host link."""
    per = math.ceil(P / hosts)
    host_of = tuple(r // per for r in range(P))
    local = {k: PRESETS["shm"][0] for k in KINDS}
    remote = {k: latency for k in KINDS}
    t = threads if threads is not None else max(1, cores // per)
    return Machine(host_of, cores, local, remote, PRESETS["shm"][1], bandwidth, rate_td, rate_bu, t, "assumed",
                   memory_bandwidth=memory_bandwidth)
