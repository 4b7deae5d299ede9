"""The 1D layouts: every rank owns a contiguous, edge-balanced range of vertices and their whole
adjacency (O. Green, "ButterFly BFS -- An Efficient Communication Pattern for Multi Node
Traversals", Sec. 4 "Graph Partitioning"; the partition is ``one_d.partition.OneD``, the owned ranges
of ``owned.partition.Ranges``).

Two exchanges run on it:

* all-to-all (owner state): discovered (vertex, parent) pairs are routed to their owners with
  one ``Alltoallv`` a level, bottom-up levels all-gather the frontier bitmap --
  ``owned.alltoall`` (the exchange, shared with the delegates layout), ``alltoall_search`` and the
  owned steps (``owned.steps``); its cost model ``alltoall_cost``;
* ButterFly (replicated levels, the default): every rank keeps the whole frontier queue and
  synchronises it over a butterfly network of fanout f in log_f P rounds (Green, Alg. 2) --
  ``butterfly_exchange``, ``butterfly_search``, ``replicated_steps``; its cost model
  ``butterfly_cost``.

What is not 1D's own -- the owned rows and their build, the owned steps, validation, memory -- is
the base package ``owned``. ``layout`` describes the two layouts (``LAYOUTS``).
"""
