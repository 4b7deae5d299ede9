"""Degree separation with delegates (Y. Pan, R. Pearce, J. D. Owens, "Scalable Breadth-First
Search on a GPU Cluster", IPDPS'18).

Vertices of degree above a threshold TH are delegates, replicated on every rank; the rest keep
the owned ranges of the base package ``owned`` (``partition.Delegates``, Sec. III). Each rank's edges split into the
nn, nd, dn and dd subgraphs (``subgraphs``, Sec. IV-A), each visited in its own direction
(``steps``, ``search``, Sec. IV-B); per level the nn ids go to their owners point to point and
the delegate mask is OR-reduced across ranks (``exchange``, Sec. V); parents of remote
discoveries are settled once after the last level (``parents``, Sec. VI-A3). ``layout``
describes the layout (``LAYOUTS``), chooses TH and estimates its memory; ``cost`` is its cost model.
"""
