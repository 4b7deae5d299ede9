"""breadth: breadth-first search at every scale.

Quick start::

    import breadth
    g = breadth.kronecker(16)
    r = breadth.bfs(g, root=0)
    breadth.validate(g, 0, r.parent)
"""
from . import omp_env  # noqa: F401  (first: before anything can start OpenMP threads)
from . import cache  # noqa: F401  (before numba is imported: its cache folder)
from .analysis import Components, DiameterEstimate, connected_components, estimate_diameter
from .errors import BreadthError, InputError, MemoryEstimateError, ValidationError
from .graph import Graph, kronecker, kronecker_edges, uniform_random, uniform_random_edges
from .graph.io import read, write, write_result
from .graph.native import load, save
from .graph500.validate import validate
from .result import BFSResult, LevelStats, ValidationReport
from .multisource import closeness, eccentricity, harmonic_centrality, khop_reachability, multi_bfs
from .search import BFSWorkspace, bfs
from .warmup import warmup

__version__ = "0.1.0"

__all__ = [
    "Graph", "BFSResult", "BFSWorkspace", "LevelStats", "ValidationReport",
    "bfs", "validate", "kronecker", "kronecker_edges", "uniform_random", "uniform_random_edges",
    "load", "save", "read", "write", "write_result",
    "multi_bfs", "closeness", "harmonic_centrality", "eccentricity", "khop_reachability",
    "connected_components", "estimate_diameter", "Components", "DiameterEstimate",
    "BreadthError", "InputError", "MemoryEstimateError", "ValidationError", "warmup",
]
