"""A cluster of hosts on one machine for distributed runs over a real (TCP) network.

Each host is a Linux network namespace with its own hostname and ``/dev/shm``;
the hosts share a bridge on loopback-range addresses (127.77.0.11, .12, ...),
their links optionally capped in bandwidth, and Open MPI reaches them through a
launch agent instead of ssh. Needs root and iproute2. The tests, the benchmarks
and ``breadth cluster`` use it::

    from breadth.cluster import Cluster
    with Cluster(3, rate="1gbit") as c:
        done = c.run([sys.executable, "-m", "breadth", "graph500", "--scale", "12", "--partition", "1d"])

``available()`` says why a machine cannot have one; ``sweep()`` removes the
clusters of processes that died without tearing theirs down.
"""
from .cluster import IFACE, Cluster, Host, mpi_env
from .netns import ClusterError, parse_rate
from .probe import available
from .state import known, stale, sweep, teardown

__all__ = ["Cluster", "ClusterError", "Host", "IFACE", "available", "known", "mpi_env", "parse_rate",
           "stale", "sweep", "teardown"]
