"""The 1D layouts: every rank owns a contiguous, edge-balanced range of vertices and their whole
adjacency (O. Green, "ButterFly BFS -- An Efficient Communication Pattern for Multi Node
Traversals", Sec. 4 "Graph Partitioning"; the partition itself is ``partition.OneD``).

Two exchanges run on it:

* all-to-all (owner state): discovered (vertex, parent) pairs are routed to their owners with
  one ``Alltoallv`` a level, bottom-up levels all-gather the frontier bitmap --
  ``alltoall_exchange``, ``alltoall_search``, ``owned_steps``;
* ButterFly (replicated levels, the default): every rank keeps the whole frontier queue and
  synchronises it over a butterfly network of fanout f in log_f P rounds (Green, Alg. 2) --
  ``butterfly_exchange``, ``butterfly_search``, ``replicated_steps``.

Shared by both: ``build`` (distributed construction: block histogram -> ranges -> Alltoallv
routing -> local CSR, or a slice of a memory-mapped native graph), ``validate`` (the Graph500
rules on owned vertices) and ``layout`` (registration, memory estimate). ``owned_steps``,
``build`` and ``validate`` are reused by the 2D and delegates layouts, which extend 1D.
"""
