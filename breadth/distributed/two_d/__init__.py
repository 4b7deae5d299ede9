"""The 2D layouts: a p_r x p_c processor grid, each rank holding one block of the adjacency
matrix (``grid.Grid2D``; construction in ``build``, validation in ``validate``).

Two searches run on it:

* expand/fold (S. Beamer, A. Buluc, K. Asanovic, D. Patterson, "Distributed Memory
  Breadth-First Search Revisited: Enabling Bottom-Up Search", Sec. III: 2D top-down, Alg. 3,
  and 2D bottom-up with p_c sub-steps rotating the completed set, Alg. 4; communication model
  Table I) -- ``fold_exchange``, ``fold_search``, ``fold_steps``;
* bitmap scan (Z. Fu, H. K. Dasari, M. Berzins, B. Thompson, "Parallel Breadth First Search on
  GPU Clusters", Sec. III-IV: bitmap frontiers contracted along each row with a log2 p_c
  pairwise prefix scan, broadcast down columns, predecessors computed locally from levels) --
  ``scan_exchange``, ``scan_search``, ``scan_steps``.

Each rank's vertices are owned rows of the base package ``owned`` (routing, local CSRs, the owned
steps, validation's verdict, memory constants). ``layout`` describes both layouts (``LAYOUTS``) with
their cost models (``fold_cost``, ``scan_cost``).
"""
