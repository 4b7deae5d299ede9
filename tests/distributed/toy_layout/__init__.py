"""A toy layout registered from outside ``breadth``: what a new layout writes, and nothing else.

Partition "toy": the owned ranges (``owned.partition.Ranges``) balanced by vertex count
(``--toy-weight vertices``, the default) or by edge count (``edges``), searched with the 1D
all-to-all search and validated with the owned-rows validator. Its cost model predicts the
compute of the levels and no communication; the planner adds the toy's own cost per level and
search as it measures it (the all-to-all search's), so the test that has ``--partition auto`` pick
it and run it end to end gives it a calibration where that cost is nil.

Registered by one line, ``BREADTH_LAYOUTS=toy_layout`` (with this folder on ``PYTHONPATH``); the
registry imports this module and reads ``LAYOUTS``.
"""
from breadth.distributed.layout import Layout, Param
from breadth.distributed.one_d.alltoall_search import AllToAllSearch
from breadth.distributed.one_d.layout import estimate_rank_bytes
from breadth.distributed.owned.build import build_ranges, slice_native
from breadth.distributed.owned.partition import Ranges
from breadth.distributed.owned.validate import validate_owned
from breadth.errors import InputError

WEIGHTS = ("vertices", "edges")


class ToyRanges(Ranges):
    """Owned ranges under the toy's name."""

    kind = "toy"


def check_weight(value):
    if value not in WEIGHTS:
        raise InputError(f"weight must be one of {', '.join(WEIGHTS)}, got {value!r}")
    return value


def check_params(params, nprocs):
    return {**params, "weight": check_weight(params.get("weight", "vertices"))}


def _ranges(comm, num_vertices, options):
    """Vertex-balanced ranges for "vertices"; None lets the build cut edge-balanced ones."""
    if options.params["weight"] == "vertices":
        return ToyRanges.even(num_vertices, comm.size, comm.rank)
    return None


def build(comm, src, dst, num_vertices, directed, options):
    part = _ranges(comm, num_vertices, options)
    return build_ranges(comm, src, dst, num_vertices, directed, partition=part, cls=ToyRanges)


def slice_rows(comm, graph, options):
    return slice_native(comm, graph, partition=_ranges(comm, graph.num_vertices, options), cls=ToyRanges)


def estimate(num_vertices, num_tuples, nprocs, options, directed):
    return estimate_rank_bytes(num_vertices, num_tuples, nprocs, "alltoall", 1, directed)


class ToyCost:
    """Every level's compute, no communication (the planner adds the layout's measured own cost)."""

    @staticmethod
    def candidates(P):
        return [{"weight": "vertices"}]

    @staticmethod
    def label(params):
        return f"toy {params['weight']}"

    @staticmethod
    def level_ops(prof, lv, P, params):
        return []

    @staticmethod
    def after_ops(prof, P, params):
        return []


WEIGHT = Param("weight", "--toy-weight", choices=WEIGHTS, check=check_weight,
               help="balance the toy's ranges by vertex count (vertices, the default) or edge count (edges)")

LAYOUTS = (
    Layout("toy", "alltoall", AllToAllSearch, ToyRanges, build, slice_rows, validate_owned, estimate,
           cost=ToyCost, params=(WEIGHT,), check_params=check_params, default=True,
           summary="the toy layout of the tests: owned ranges, the 1D all-to-all search",
           about="the toy layout of the tests (owned ranges by vertex or edge count)"),
)
