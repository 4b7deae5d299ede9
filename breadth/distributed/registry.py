"""The registered layouts: the engine, ``breadth bfs/graph500 --partition P --exchange X``, ``--ranks``,
the planner (``--partition auto``) and ``breadth plan`` find every layout here.

A layout is one package that describes itself (``layout.Layout``: its search class, partition,
construction, validator, memory estimate, parameters with their flags and checks, cost model and
device variants) and one registration line:

* built in: one line in ``_builtin`` below (its package's ``LAYOUTS``);
* from elsewhere: ``register(layout)`` from a program, or the module that defines it named in the
  environment variable ``BREADTH_LAYOUTS`` (comma-separated module names, each with a ``LAYOUTS``
  tuple), which every rank of a job reads when it first looks a layout up.

Layouts load on the first lookup, so importing ``breadth.distributed`` stays light (no mpi4py,
no kernels compiled).
"""
from __future__ import annotations

import importlib
import os

from ..errors import InputError
from .layout import Layout, Param
from .owned.partition import Partition

__all__ = ["DEFAULT_PARTITION", "ENV", "Layout", "Param", "default_exchange", "exchanges", "get", "layouts",
           "params", "partitions", "register", "translations"]

DEFAULT_PARTITION = "1d"
ENV = "BREADTH_LAYOUTS"


def _builtin() -> tuple:
    from .delegates.layout import LAYOUTS as delegates
    from .one_d.layout import LAYOUTS as one_d
    from .two_d.layout import LAYOUTS as two_d

    return one_d + two_d + delegates


_LAYOUTS: dict[tuple[str, str], Layout] = {}
_loaded = False


def register(layout: Layout) -> Layout:
    """Add ``layout`` (a pair may be registered once; one default exchange per partition; its
    ``partition_type`` a ``Partition``).

    Args:
        layout: the ``Layout``.

    Returns:
        ``layout``.

    Raises:
        ValueError: another layout holds the pair, the partition already has a default, or
            ``partition_type`` is not a Partition class.

    Examples:
        >>> from breadth.distributed import registry
        >>> layout = registry.get("1d", "alltoall")
        >>> registry.register(layout) is layout
        True
    """
    key = (layout.partition, layout.exchange)
    if not (isinstance(layout.partition_type, type) and issubclass(layout.partition_type, Partition)):
        raise ValueError(f"layout {key}: partition_type must be a Partition class, got {layout.partition_type!r}")
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
        extra = [_external(name.strip()) for name in os.environ.get(ENV, "").split(",") if name.strip()]
        for layout in _builtin() + tuple(lay for group in extra for lay in group):
            register(layout)
        _loaded = True


def _external(name: str) -> tuple:
    """The ``LAYOUTS`` of module ``name`` (named in ``BREADTH_LAYOUTS``); InputError when it has none."""
    try:
        return tuple(importlib.import_module(name).LAYOUTS)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"{ENV}: {name} is not a module with a LAYOUTS tuple ({exc})") from None


def loaded() -> bool:
    """Whether the layouts have been loaded (``translations`` looks only then)."""
    return _loaded


def layouts() -> tuple[Layout, ...]:
    """Every registered layout, in registration order.

    Returns:
        A tuple of ``Layout``.

    Examples:
        >>> from breadth.distributed import registry
        >>> "1d/alltoall" in [layout.name for layout in registry.layouts()]
        True
    """
    _load()
    return tuple(_LAYOUTS.values())


def params() -> tuple[Param, ...]:
    """Every registered layout's parameters, one per flag, in registration order.

    Returns:
        A tuple of ``Param`` (a flag shared by several layouts appears once).

    Examples:
        >>> from breadth.distributed import registry
        >>> fanout = next(p for p in registry.params() if p.flag == "--fanout")
        >>> fanout.name, fanout.default, fanout.keyword
        ('fanout', 1, True)
    """
    out = {}
    for lay in layouts():
        for p in lay.params:
            out.setdefault(p.flag, p)
    return tuple(out.values())


def translations() -> list:
    """(API wording, CLI wording) of the registered layouts' parameters' messages (none before the
    layouts are loaded: no layout has spoken then)."""
    if not _loaded:
        return []
    return [t for p in params() for t in p.translations()]


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
