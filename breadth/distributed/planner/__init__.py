"""The layout planner: predicts every registered layout's search time from measured machine
parameters and a graph's level profile, and picks the fastest (``--partition auto``, ``breadth plan``).

* ``words``: the shared counted words and messages of the papers' models (B2D Table I and eq. 2,
  ButterFly's P f log P, MapGraph's ceil(log2 C) rounds, Pan's mask all-reduce);
* ``network``: the alpha-beta machine (latency per message, bandwidth per byte, on one host and
  across hosts, per collective kind; local kernel rates) and the cost of one operation;
* ``probe``: measures that machine at job start; ``graph``: the graph's level profile;
* ``choose``: predicts every registered layout with a cost model (``Layout.cost``, which travels
  with its layout: ``one_d.alltoall_cost``, ``one_d.butterfly_cost``, ``two_d.fold_cost``,
  ``two_d.scan_cost``, ``delegates.cost``) over its candidate grids / fanouts / thresholds, and
  picks the fastest.
"""
