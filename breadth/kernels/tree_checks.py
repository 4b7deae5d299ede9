"""The Graph500 edge rules for one vertex, shared by the single-node and distributed validators.

For vertex v (in-edge CSR row ``row``, whose in-neighbours carry global ids) every
in-edge (u, v) is checked against the depths derived from the BFS tree:

* span  -- undirected: u and v are both reached or both unreached; directed: a reached
  u means a reached v (everything reachable is in the tree);
* level -- undirected: |depth[u] - depth[v]| <= 1; directed: depth[v] <= depth[u] + 1.

``check_vertex`` holds the vertex rules of an owned vertex v with parent ``p``:

* root  -- a seed is its own parent at depth 0;
* depth -- reached iff it has a parent; only seeds at depth 0; depth[p] = depth[v] - 1;
* tree  -- a non-seed's parent is another vertex, and a reached one.

Violations record the smallest offending vertex per rule in ``first_bad[b, rule]``
(``b`` the caller's parallel block, so no two threads write one row). Whether v's
parent ``p`` is among its in-neighbours (the "edge" rule) is returned for the caller,
which knows whether v needs one.
"""

from ..jit import njit

RULES = ("range", "root", "tree", "edge", "span", "level", "depth")
RANGE, ROOT, TREE, EDGE, SPAN, LEVEL, DEPTH = range(len(RULES))


@njit(inline="always", cache=True)
def check_vertex(v, p, dv, is_seed, depth, first_bad, b):
    if is_seed:
        if p != v or dv != 0:
            first_bad[b, ROOT] = min(first_bad[b, ROOT], v)
    elif (p < 0) != (dv < 0) or dv == 0:
        first_bad[b, DEPTH] = min(first_bad[b, DEPTH], v)
    elif p >= 0:
        if p == v or depth[p] < 0:
            first_bad[b, TREE] = min(first_bad[b, TREE], v)
        elif depth[p] != dv - 1:
            first_bad[b, DEPTH] = min(first_bad[b, DEPTH], v)


@njit(inline="always", cache=True)
def check_in_edges(in_indptr, in_indices, row, v, p, depth, directed, first_bad, b):
    dv = depth[v]
    found = False
    for j in range(in_indptr[row], in_indptr[row + 1]):
        u = in_indices[j]
        du = depth[u]
        if u == p:
            found = True
        if directed:
            if du >= 0 and dv < 0:
                first_bad[b, SPAN] = min(first_bad[b, SPAN], v)
            elif du >= 0 and dv > du + 1:
                first_bad[b, LEVEL] = min(first_bad[b, LEVEL], v)
        else:
            if (du >= 0) != (dv >= 0):
                first_bad[b, SPAN] = min(first_bad[b, SPAN], v if dv < 0 else u)
            elif dv >= 0 and abs(du - dv) > 1:
                first_bad[b, LEVEL] = min(first_bad[b, LEVEL], v)
    return found
