"""``breadth cluster``: a cluster of hosts on this machine (network namespaces) to try distributed
runs over TCP, with ``up``, ``run``, ``status``, ``rate``, ``link`` and ``down``."""
from __future__ import annotations

import sys

from .common import add_json_option, write_json
from .helpformat import examples

DESCRIPTION = (
    "Make H hosts on this machine, each a Linux network namespace with its own hostname, /dev/shm and a "
    "loopback-range address (127.77.0.11, .12, ...) on a shared bridge, so that 'breadth graph500' and "
    "'breadth bfs' can run their ranks on different hosts over TCP as on a real cluster. Open MPI reaches "
    "the hosts through a launch agent instead of ssh. Needs root and iproute2. Traffic never leaves the "
    "machine. A cluster made by 'up' stays until 'down'.")


def register(sub):
    p = sub.add_parser("cluster", help="a cluster of hosts on this machine (network namespaces) for MPI runs",
                       description=DESCRIPTION,
                       epilog=examples("breadth cluster up --hosts 3 --name demo",
                                       "breadth cluster run demo -- breadth graph500 --scale 14 --ranks 3 "
                                       "--hostfile /run/breadth-cluster/demo/hostfile",
                                       "breadth cluster run demo --ranks-per-host 2 -- breadth graph500 "
                                       "--scale 14 --partition 2d",
                                       "breadth cluster run demo -- breadth doctor --hostfile "
                                       "/run/breadth-cluster/demo/hostfile",
                                       "breadth cluster rate demo 200mbit",
                                       "breadth cluster down demo"))
    actions = p.add_subparsers(dest="action", metavar="ACTION", title="actions", required=True,
                               help="what to do with the cluster (each action has its own -h)")

    up = _action(actions, "up", _up, "make a cluster (it stays until 'down')",
                 "Make a cluster of H namespace hosts and print how to use it: its hostfile, launch agent "
                 "and Open MPI settings.",
                 ["breadth cluster up --hosts 4 --name demo",
                  "breadth cluster up --hosts 3 --rate 1gbit --slots 2 --json"],
                 named=False)
    up.add_argument("--hosts", type=int, default=3, metavar="H", help="number of hosts")
    up.add_argument("--name", default=None, help="the cluster's name: 1 to 16 lower-case letters and digits "
                                                  "(default: a random one)")
    up.add_argument("--rate", default=None, metavar="R",
                    help="cap every host's link at R bits/s in each direction (tc tbf), e.g. 1gbit, 200mbit")
    up.add_argument("--subnet", default="127.77.0", metavar="A.B.C",
                    help="the hosts' /24 inside 127.0.0.0/8; host i gets A.B.C.(10+i)")
    up.add_argument("--slots", type=int, default=1, metavar="S", help="slots per host in the hostfile written")
    add_json_option(up, "the cluster's description")

    run = _action(actions, "run", _run, "run a command on a host, or as an MPI job across the hosts",
                  "Run COMMAND on one host of cluster NAME with Open MPI's settings for the cluster in its "
                  "environment (so 'mpiexec --hostfile FILE' and 'breadth ... --ranks P --hostfile FILE' "
                  "reach the other hosts), or, with --ranks-per-host, as an MPI job with that many ranks on "
                  "every host (mpiexec on host 1). Exits with the command's status.",
                  ["breadth cluster run demo -- breadth graph500 --scale 14 --ranks 3 --hostfile "
                   "/run/breadth-cluster/demo/hostfile",
                   "breadth cluster run demo --ranks-per-host 2 -- hostname",
                   "breadth cluster run demo --on 2 -- ip addr show eth0"])
    run.add_argument("--on", default="1", metavar="HOST", help="the host: its number, name or address")
    run.add_argument("--ranks-per-host", type=int, default=None, metavar="K",
                     help="run COMMAND as an MPI job, K ranks on every host")
    run.add_argument("--timeout", type=float, default=3600, metavar="S",
                     help="after S seconds stop the command and every process on the cluster's hosts "
                          "(exit 124); Ctrl-C does the same; 0: no limit")
    run.add_argument("argv", nargs="+", metavar="COMMAND", help="the command (after '--')")

    status = _action(actions, "status", _status, "list the clusters on this machine",
                     "List every cluster: hosts, addresses, link cap, processes running on it, and whether "
                     "its owner is gone (stale).",
                     ["breadth cluster status", "breadth cluster status --json"], named=False)
    add_json_option(status, "the list")

    rate = _action(actions, "rate", _rate, "cap (or uncap) the hosts' links",
                   "Cap each named host's link (default: every host) at RATE bits/s in both directions with "
                   "a token bucket (tc tbf); 'none' removes the cap.",
                   ["breadth cluster rate demo 200mbit", "breadth cluster rate demo 1gbit --host 2",
                    "breadth cluster rate demo none"])
    rate.add_argument("rate", metavar="RATE", help="e.g. 1gbit, 200mbit, 800000, or none")
    rate.add_argument("--host", action="append", default=None, metavar="HOST",
                      help="only this host (repeat for several)")

    link = _action(actions, "link", _link, "unplug or plug back a host's link",
                   "Take a host's bridge port down (the host becomes unreachable, as with a pulled cable) "
                   "or up again.",
                   ["breadth cluster link demo 2 down", "breadth cluster link demo 2 up"])
    link.add_argument("host", metavar="HOST", help="the host: its number, name or address")
    link.add_argument("state", choices=("up", "down"), help="the link's new state")

    env = _action(actions, "env", _env, "set environment variables on one host",
                  "Export VAR=VALUE on a host for every command started there from now on (mpiexec's "
                  "daemons and their ranks included), e.g. another PYTHONPATH to give one host another "
                  "breadth; VAR= removes VAR.",
                  ["breadth cluster env demo 3 PYTHONPATH=/tmp/other", "breadth cluster env demo 3 PYTHONPATH="])
    env.add_argument("host", metavar="HOST", help="the host: its number, name or address")
    env.add_argument("variables", nargs="+", metavar="VAR=VALUE", help="the variables (an empty VALUE removes VAR)")

    down = _action(actions, "down", _down, "remove clusters",
                   "Stop every process on the cluster's hosts and remove its namespaces, bridge and state.",
                   ["breadth cluster down demo", "breadth cluster down --stale", "breadth cluster down --all"],
                   named=False)
    down.add_argument("names", nargs="*", metavar="NAME", help="the clusters to remove")
    down.add_argument("--stale", action="store_true",
                      help="also remove every cluster whose owner process is gone")
    down.add_argument("--all", action="store_true", help="remove every cluster on this machine")


def _action(actions, name, run, summary, description, example_lines, named=True):
    """The parser of action ``name`` (it runs ``run``); ``named``: its first argument is the cluster's name."""
    p = actions.add_parser(name, help=summary, description=description, epilog=examples(*example_lines))
    if named:
        p.add_argument("name", help="the cluster")
    p.set_defaults(run=run)
    return p


def _require():
    from ..cluster import ClusterError, available

    reason = available()
    if reason:
        raise ClusterError(reason)


def _describe(c) -> dict:
    from ..cluster import mpi_env
    from ..cluster.state import read_state

    st = read_state(c.name) or {}
    return {"name": c.name, "hosts": [{"name": h.name, "address": h.address, "netns": h.netns} for h in c.hosts],
            "interface": c.iface, "rate_bits_per_s": c.rate, "cores_per_host": c.cores, "agent": c.agent,
            "hostfile": f"{c.directory}/hostfile", "owner": st.get("owner"), "mpi_env": mpi_env(c.agent),
            "processes": len(c.pids())}


def _up(args) -> int:
    from ..cluster import Cluster
    from ..errors import InputError

    _require()
    if args.slots < 1:
        raise InputError(f"--slots must be >= 1, got {args.slots}")
    c = Cluster(args.hosts, name=args.name, subnet=args.subnet, rate=args.rate, persistent=True).up()
    c.hostfile(slots=args.slots)
    info = _describe(c)
    if args.json:
        write_json(args.json, info)
    if args.json != "-":
        print(f"cluster {c.name}: {len(c.hosts)} hosts " + ", ".join(f"{h.name} {h.address}" for h in c.hosts)
              + (f"; links capped at {c.rate} bit/s" if c.rate else ""))
        print(f"hostfile   {info['hostfile']}")
        print(f"agent      {c.agent}")
        print(f"interface  {c.iface}")
        print(f"try        breadth cluster run {c.name} -- breadth graph500 --scale 14 --ranks {len(c.hosts)} "
              f"--hostfile {info['hostfile']}")
        print(f"remove     breadth cluster down {c.name}")
    return 0


def _run(args) -> int:
    import contextlib
    import subprocess
    import tempfile

    from ..cluster import Cluster

    c = Cluster.attach(args.name)
    argv = command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
    mpi = args.ranks_per_host is not None
    if mpi and args.ranks_per_host < 1:
        from ..errors import InputError

        raise InputError(f"--ranks-per-host must be >= 1, got {args.ranks_per_host}")
    # an MPI job's ranks record their exit statuses in a folder of their own
    with tempfile.TemporaryDirectory(prefix="breadth-exits-") if mpi else contextlib.nullcontext() as exits:
        if mpi:
            argv = c.mpiexec(argv, ranks_per_host=args.ranks_per_host, exits=exits)
        sys.stdout.flush()
        try:
            done = c.exec(args.on, argv, timeout=args.timeout or None, capture=False, exits=exits)
        except subprocess.TimeoutExpired:
            print(f"breadth cluster: error: '{' '.join(command)}' ran past --timeout {args.timeout:g} s: stopped",
                  file=sys.stderr)
            return 124
        if done.stderr:         # the launcher outlived its ranks: the note
            print(done.stderr.strip(), file=sys.stderr)
        return done.returncode


def _status(args) -> int:
    from ..cluster import Cluster, known
    from ..cluster.state import namespaces_of, owner_alive, read_state

    rows = []
    for name in known():
        st = read_state(name)
        if st is None:
            rows.append({"name": name, "stale": True, "namespaces": namespaces_of(name)})
            continue
        info = _describe(Cluster.attach(name))
        info["stale"] = not owner_alive(st.get("owner"))
        rows.append(info)
    if args.json:
        write_json(args.json, rows)
    if args.json != "-":
        if not rows:
            print("no clusters")
        for r in rows:
            if "hosts" not in r:
                print(f"{r['name']}: STALE, no state; namespaces {' '.join(r['namespaces'])}")
                continue
            owner = "kept until 'down'" if r["owner"] is None else f"owned by pid {r['owner']['pid']}"
            print(f"{r['name']}: {len(r['hosts'])} hosts " + " ".join(h["address"] for h in r["hosts"])
                  + (f"; cap {r['rate_bits_per_s']} bit/s" if r["rate_bits_per_s"] else "")
                  + f"; {r['processes']} processes; {owner}" + ("; STALE (owner gone)" if r["stale"] else ""))
    return 0


def _rate(args) -> int:
    from ..cluster import Cluster

    c = Cluster.attach(args.name)
    c.set_rate(None if args.rate.lower() == "none" else args.rate, hosts=args.host)
    return 0


def _link(args) -> int:
    from ..cluster import Cluster

    Cluster.attach(args.name).set_link(args.host, args.state == "up")
    return 0


def _env(args) -> int:
    import re

    from ..cluster import Cluster
    from ..errors import InputError

    variables = {}
    for item in args.variables:
        key, eq, value = item.partition("=")
        if not eq or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key):
            raise InputError(f"expected VAR=VALUE, got {item!r}")
        variables[key] = value or None
    Cluster.attach(args.name).set_env(args.host, **variables)
    return 0


def _down(args) -> int:
    import os

    from ..cluster import known, stale, teardown
    from ..cluster.state import check_name, namespaces_of, state_dir
    from ..errors import InputError

    names = [check_name(n) for n in args.names]
    for n in names:
        if not namespaces_of(n) and not os.path.exists(state_dir(n)):
            raise InputError(f"no cluster {n}: 'breadth cluster status' lists them")
    if args.all:
        names += known()
    elif args.stale:
        names += stale()
    if not names and not (args.all or args.stale):
        raise InputError("name the clusters to remove, or give --stale or --all")
    for n in dict.fromkeys(names):
        killed = teardown(n)
        print(f"removed cluster {n}" + (f" ({killed} processes stopped)" if killed else ""))
    return 0
