"""Concurrent BFS: many sources at once with bitwise status arrays (iBFS, Liu, Huang, Hu, SIGMOD'16).

``multi_bfs`` returns the depth matrix; ``closeness``, ``harmonic_centrality``,
``eccentricity`` and ``khop_reachability`` reduce per group without building
it; ``msbfs`` returns per-source summaries and per-group statistics (sharing
degree, levels, times). Modules: ``status`` (bitwise status array, frontier
identification), ``ibfs`` (joint top-down/bottom-up traversal of a group),
``groupby`` (GroupBy rules, random grouping, sharing degree), ``plan``
(argument checks, sizing W, grouping), ``runner`` (executing the groups),
``results`` (result types, the depth matrix), ``checkpoint`` and ``mpi``
(resumable and multi-rank runs), ``reducers`` (the public functions).
"""
from .groupby import make_groups, random_groups, rule_groups, sharing_degree
from .reducers import closeness, eccentricity, harmonic_centrality, khop_reachability, msbfs, multi_bfs
from .plan import choose_words
from .results import MultiResult, unreachable
from .runner import release_workspaces

__all__ = ["multi_bfs", "msbfs", "closeness", "harmonic_centrality", "eccentricity", "khop_reachability",
           "MultiResult", "make_groups", "rule_groups", "random_groups", "sharing_degree", "choose_words",
           "unreachable", "release_workspaces"]
