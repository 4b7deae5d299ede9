"""Layouts: the partition + exchange pairs the distributed engine runs, and what each plugs in.

A layout registers one ``Layout`` per (partition, exchange) pair; ``DistEngine``,
``breadth bfs/graph500 --partition P --exchange X`` and ``--ranks`` look pairs up
here, so adding a partition or an exchange touches no caller. A ``Layout`` names:

* ``one_d.build(comm, src, dst, num_vertices, directed, options) -> LocalGraph`` --
  distributed construction from this rank's share of the edge tuples (collective);
* ``slice_native(comm, graph, options) -> LocalGraph`` -- this rank's share of a
  memory-mapped native graph (collective);
* ``search(comm, lg, options) -> DistSearch`` -- the per-graph search state
  (``search_base.DistSearch``; its ``exchange`` implements ``exchange.Exchange``);
* ``one_d.validate(comm, lg, roots, parent, depth) -> ValidationReport`` -- the
  distributed validator (raises ``ValidationError`` on every rank alike);
* ``estimate_bytes(num_vertices, num_tuples, nprocs, options, directed) -> int`` --
  one rank's peak memory, checked before anything is allocated;
* ``build_stream(comm, source, num_vertices, directed, options) -> (LocalGraph, seconds)`` (optional) --
  construction from a ``graph.stream.TupleSource`` (a generated graph), this rank's share of its
  tuples regenerated chunk by chunk and never held whole (seconds: {"generation", "regeneration",
  "construction"}); ``estimate_stream`` (same arguments as ``estimate_bytes``) is its peak.
  Layouts without it build from the tuple arrays;
* ``default``: the exchange a partition runs when none is named (one per partition);
* ``check_params(params, nprocs) -> dict`` (optional) -- the layout's own options in
  ``options.params`` checked (InputError naming the parameter) and completed with their
  defaults for a job of ``nprocs`` ranks; ``DistEngine`` calls it before anything else.

``options`` is a checked ``search_base.SearchOptions``; layout-specific parameters
(a processor grid, a delegate threshold) travel by name in ``options.params``.

Built-in layouts live in the modules of ``BUILTIN`` and register themselves when
first imported; the registry imports them on first lookup, so importing
``breadth.distributed`` stays light (no mpi4py, no kernels compiled).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from ..errors import InputError

BUILTIN = ("breadth.distributed.one_d.layout", "breadth.distributed.two_d.layout", "breadth.distributed.delegates.layout")
DEFAULT_PARTITION = "1d"


@dataclass(frozen=True)
class Layout:
    """A partition + exchange pair and the functions the engine calls for it (see the module header).

    Attributes:
        partition: the partition's name ("1d", ...).
        exchange: the exchange's name.
        build: distributed construction from this rank's tuples.
        slice_native: this rank's share of a memory-mapped native graph.
        search: the per-graph search state.
        validate: the distributed validator.
        estimate_bytes: one rank's peak memory.
        default: the exchange the partition runs when none is named.
        summary: one line for ``--help`` and ``describe``.
        check_params: checks and completes the layout's own options (optional).
        build_stream: construction from a tuple source, never held whole (optional).
        estimate_stream: the streamed build's peak memory (optional).

    Examples:
        >>> from breadth.distributed import registry
        >>> layout = registry.get("1d", "alltoall")
        >>> layout.partition, layout.exchange
        ('1d', 'alltoall')
    """

    partition: str
    exchange: str
    build: Callable
    slice_native: Callable
    search: Callable
    validate: Callable
    estimate_bytes: Callable
    default: bool = False
    summary: str = ""
    check_params: Callable | None = None
    build_stream: Callable | None = None
    estimate_stream: Callable | None = None


_LAYOUTS: dict[tuple[str, str], Layout] = {}
_loaded = False


def register(layout: Layout) -> Layout:
    """Add ``layout`` (a pair may be registered once; one default exchange per partition).

    Args:
        layout: the ``Layout``.

    Returns:
        ``layout`` (so a module can keep what it registered).

    Raises:
        ValueError: another layout holds the pair, or the partition already has a default.

    Examples:
        >>> from breadth.distributed import registry
        >>> layout = registry.get("1d", "alltoall")
        >>> registry.register(layout) is layout
        True
    """
    key = (layout.partition, layout.exchange)
    if key in _LAYOUTS and _LAYOUTS[key] != layout:
        raise ValueError(f"layout {key} is already registered")
    if layout.default and any(lay.default for lay in _LAYOUTS.values()
                              if lay.partition == layout.partition and lay.exchange != layout.exchange):
        raise ValueError(f"partition {layout.partition!r} already has a default exchange")
    _LAYOUTS[key] = layout
    return layout


def _load():
    global _loaded
    if not _loaded:
        _loaded = True
        for name in BUILTIN:
            importlib.import_module(name)


def partitions() -> tuple[str, ...]:
    """Registered partition names, in registration order.

    Returns:
        A tuple of names.

    Examples:
        >>> from breadth.distributed import registry
        >>> "1d" in registry.partitions()
        True
    """
    _load()
    return tuple(dict.fromkeys(p for p, _ in _LAYOUTS))


def exchanges(partition: str | None = None) -> tuple[str, ...]:
    """Exchange names registered for ``partition`` (any partition: None), in registration order.

    Args:
        partition: a partition's name, or None for every exchange.

    Returns:
        A tuple of names.

    Examples:
        >>> from breadth.distributed import registry
        >>> "alltoall" in registry.exchanges("1d")
        True
    """
    _load()
    return tuple(dict.fromkeys(x for p, x in _LAYOUTS if partition is None or p == partition))


def default_exchange(partition: str) -> str:
    """The exchange ``partition`` runs when none is named.

    Args:
        partition: a partition's name.

    Returns:
        The exchange's name.

    Examples:
        >>> from breadth.distributed import registry
        >>> registry.default_exchange("1d") in registry.exchanges("1d")
        True
    """
    _load()
    for lay in _LAYOUTS.values():
        if lay.partition == partition and lay.default:
            return lay.exchange
    return exchanges(partition)[0]


def get(partition: str, exchange: str | None = None) -> Layout:
    """The layout of a pair (``exchange`` None: the partition's default).

    Args:
        partition: the partition's name.
        exchange: the exchange's name (None: the partition's default).

    Returns:
        The registered ``Layout``.

    Raises:
        InputError: an unknown partition or exchange, naming the choices.

    Examples:
        >>> from breadth.distributed import registry
        >>> registry.get("1d").exchange == registry.default_exchange("1d")
        True
    """
    _load()
    if partition not in partitions():
        raise InputError(f"unknown partition {partition!r}; choose from {', '.join(partitions())}")
    if exchange is None:
        exchange = default_exchange(partition)
    layout = _LAYOUTS.get((partition, exchange))
    if layout is None:
        raise InputError(f"unknown exchange {exchange!r} for partition {partition!r}; choose from "
                         f"{', '.join(exchanges(partition))}")
    return layout
