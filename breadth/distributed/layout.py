"""What a layout is: one ``Layout`` per (partition, exchange) pair describes everything the engine,
the command line and the planner need of it, and ``Param`` one of its parameters.

A ``Layout`` carries:

* ``search`` -- the search class, ``search(comm, lg, options) -> DistSearch`` (``search_base``);
  ``devices`` -- its variants on other devices, ``{"cuda": search(comm, lg, options)}`` (loaded when
  called, so describing a layout imports no device library);
* ``partition_type`` -- its ``Partition`` class (``owned.partition.Ranges`` or a subclass);
* ``build(comm, src, dst, num_vertices, directed, options) -> LocalGraph`` -- distributed
  construction from this rank's share of the edge tuples (collective);
  ``slice_native(comm, graph, options) -> LocalGraph`` -- this rank's share of a memory-mapped
  native graph (collective); ``build_stream(comm, source, num_vertices, directed, options) ->
  (LocalGraph, seconds)`` (optional) -- construction from a ``graph.stream.TupleSource``, this rank's
  share regenerated chunk by chunk (seconds: {"generation", "regeneration", "construction"});
* ``validate(comm, lg, roots, parent, depth) -> ValidationReport`` -- the distributed validator
  (raises ``ValidationError`` on every rank alike);
* ``estimate_bytes(num_vertices, num_tuples, nprocs, options, directed) -> int`` -- one rank's peak
  memory, checked before anything is allocated; ``estimate_stream`` (same arguments) that of
  ``build_stream``;
* ``params`` -- its parameters (``Param``: flag, default, help, check), ``check_params(params,
  nprocs) -> dict`` (optional) -- ``options.params`` checked (InputError naming the parameter) and
  completed with the defaults for a job of ``nprocs`` ranks; ``DistEngine`` calls it first;
* ``cost`` -- its cost model for the planner (``--partition auto``, ``breadth plan``): an object with
  ``candidates(P) -> [params]``, ``label(params)``, ``level_ops(prof, level, P, params)``,
  ``after_ops(prof, P, params)`` and optionally ``setup_bytes(prof, P, params)``, ``rule(params)`` (the
  direction rule its paper's code runs), ``state_vertices(n, P, params)`` (the vertices whose state a
  rank keeps), ``level_edges(prof, level, P, params) -> (top-down, bottom-up)`` (the edges a level
  examines, summed over ranks, where the layout's passes differ from the level's one direction),
  ``finish_edges(prof, P, params)`` (the arcs a rank scans after the last level, bottom-up
  style: a parent recovery), ``spread(direction, P, params)`` (the ranks one vertex's arcs fall
  on, 1 where absent: ``planner.balance``), ``swept(prof, level, P, params)`` (the share of a
  level's swept vertices one rank sweeps, 1/P where absent) and ``replicated_frontier`` (True
  where every rank handles the whole frontier, not its share) (``planner.choose``); for the
  per-machine calibration (``planner.overhead``), optionally ``self_round(mpicomm)``,
  ``self_finish(engine, root)`` and ``self_route(n, src, dst, seed)`` (the seconds of work a
  one-rank search never does: an exchange round, a step after the search per arc, a candidate
  pair routed to its owner) and ``calibration_params(src, dst, n)`` (the parameters to calibrate
  with where the one-rank defaults are no distributed run's);
* ``default`` -- whether it is its partition's exchange when none is named; ``summary`` (the
  ``--exchange`` help) and ``about`` (the ``--partition`` help, from the partition's default layout).

``options`` is a checked ``search_base.SearchOptions``; parameters travel by name in
``options.params``, or as a ``SearchOptions`` field for a ``Param`` marked ``keyword`` (fanout).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Param:
    """One layout parameter, with its command-line flag, help, default and checks.

    Attributes:
        name: its name in ``options.params`` (or, ``keyword``, a ``DistEngine`` keyword and
            ``SearchOptions`` field).
        flag: its command-line flag.
        help: the flag's help.
        default: the flag's default (None leaves the value to ``check_params``).
        metavar: the flag's metavar.
        choices: the flag's choices.
        type: the flag's text -> value.
        check: ``check(value) -> value``, or InputError in the library's words.
        keyword: passed as a ``DistEngine`` keyword rather than in ``params``.

    Examples:
        >>> from breadth.distributed import registry
        >>> fanout = registry.get("1d", "butterfly").param("fanout")
        >>> fanout.flag, fanout.default, fanout.dest
        ('--fanout', 1, 'fanout')
    """

    name: str
    flag: str
    help: str
    default: object = None            # the flag's default: None leaves the value to ``check_params``
    metavar: str | None = None
    choices: tuple | None = None
    type: Callable | None = None      # the flag's text -> value
    check: Callable | None = None     # check(value) -> value, or InputError in the library's words
    keyword: bool = False

    @property
    def dest(self) -> str:
        """The attribute of the parsed command line."""
        return self.flag.lstrip("-").replace("-", "_")

    def translations(self) -> list:
        """How this parameter's messages read on the command line (``cli.messages.translate``).

        Returns:
            (API wording pattern, CLI wording) pairs.
        """
        return [(rf"^{self.name} must", f"{self.flag} must"), (rf"\b{self.name}=", f"{self.flag} ")]


@dataclass(frozen=True)
class Layout:
    """A partition + exchange pair and everything it plugs in (see the module header).

    Attributes:
        partition: the partition's name ("1d", ...).
        exchange: the exchange's name.
        search: the search class, ``search(comm, lg, options) -> DistSearch``.
        partition_type: its ``Partition`` class.
        build: distributed construction from this rank's tuples (collective).
        slice_native: this rank's share of a memory-mapped native graph (collective).
        validate: the distributed validator.
        estimate_bytes: one rank's peak memory.
        cost: its cost model for the planner.
        params: its parameters (``Param``).
        devices: its search on other devices (``{"cuda": ...}``).
        default: whether it is its partition's exchange when none is named.
        summary: the ``--exchange`` help.
        about: the ``--partition`` help.
        check_params: checks and completes ``options.params`` (optional).
        build_stream: construction from a tuple source, never held whole (optional).
        estimate_stream: the streamed build's peak memory (optional).

    Examples:
        >>> from breadth.distributed import registry
        >>> layout = registry.get("1d", "alltoall")
        >>> layout.name, layout.partition_type.__name__
        ('1d/alltoall', 'OneD')
    """

    partition: str
    exchange: str
    search: Callable
    partition_type: type
    build: Callable
    slice_native: Callable
    validate: Callable
    estimate_bytes: Callable
    cost: object = None
    params: tuple = ()
    devices: dict = field(default_factory=dict)
    default: bool = False
    summary: str = ""
    about: str = ""
    check_params: Callable | None = None
    build_stream: Callable | None = None
    estimate_stream: Callable | None = None

    @property
    def name(self) -> str:
        return f"{self.partition}/{self.exchange}"

    def param(self, name: str) -> Param | None:
        """The parameter called ``name``.

        Args:
            name: the parameter's API name.

        Returns:
            Its ``Param``, or None when the layout has none of that name.
        """
        return next((p for p in self.params if p.name == name), None)

    def engine_kwargs(self, params: dict) -> dict:
        """``DistEngine`` keyword arguments for this layout.

        Args:
            params: its parameters' values by name (names it does not declare are left out).

        Returns:
            ``partition``, ``exchange``, keyword parameters and the ``params`` dict.
        """
        out = {"partition": self.partition, "exchange": self.exchange, "params": {}}
        for key, value in params.items():
            spec = self.param(key)
            if spec is not None:
                (out if spec.keyword else out["params"])[key] = value
        return out
