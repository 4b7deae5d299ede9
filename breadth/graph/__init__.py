"""Graphs: the CSR type, builders, generators and native storage."""
from .build import BuildInfo
from .generators import kronecker, kronecker_edges, uniform_random, uniform_random_edges
from .types import Graph

__all__ = ["Graph", "BuildInfo", "kronecker", "kronecker_edges", "uniform_random", "uniform_random_edges"]
