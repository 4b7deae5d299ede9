"""The owned rows: what every layout family stands on (1D, 2D and delegates import it; it imports
no family).

A rank owns a contiguous, 64-aligned, edge-balanced range of vertex ids (O. Green, "ButterFly
BFS", Sec. 4 "Graph Partitioning") and keeps their rows: their parent and depth, and, where the
layout keeps whole adjacency rows, their out- and in-arcs.

* ``partition`` -- the ``Partition`` interface every layout implements, its kernel-side lookups
  (``owner_of``, ``local_of``, ``global_of``) and ``Ranges``, the base of every family's partition;
* ``build`` -- ``LocalGraph`` (a rank's rows) and their construction from the tuple arrays:
  routing by owner (``pack_arcs``, ``counting_pack``, ``route_arcs``), the local CSR
  (``local_csr``), ``build_ranges``, ``slice_native``, ``tuple_share``, ``vertex_dtype``;
  ``stream_build`` -- the same rows from a streamed tuple source (``TupleShare``, ``stream_csrs``,
  ``build_ranges_stream``);
* ``steps`` -- the top-down and bottom-up steps on owner state (Buluç & Madduri's 1D algorithm);
  ``alltoall`` -- their exchange: pairs routed to owners, frontier bitmaps all-gathered;
* ``validate`` -- the Graph500 rules on owned vertices (``validate_owned``, ``verdict``);
* ``memory`` -- the per-rank peak of owned rows (``INTERPRETER_BYTES``, ``stream_round_bytes``,
  ``owned_rank_bytes``).

Invariants: ``Ranges``' (bounds non-decreasing from 0 to n, inner bounds multiples of 64 or n);
every step, on exit, has appended exactly the vertices it settled to its output queue.
"""
