"""Degree separation with delegates (Pan, Pearce, Owens, IPDPS'18, Sec. III-B "edge distributor",
III-C "efficient graph storage"): one rank's four subgraphs.

Every arc u->v of the graph lands in exactly one subgraph of exactly one rank (so nn + nd +
dn + dd over all ranks = the graph's arcs, tested):

* nn (normal -> normal): with the source's owner; rows = its local normals, columns =
  global ids (the only destinations that may be remote: the vertex id type of the graph);
* nd (normal -> delegate): with the source's owner; columns = delegate numbers (int32);
* dn (delegate -> normal): with the *destination's* owner, so a delegate's neighbour list
  is scattered over the ranks that own its neighbours; rows = delegate numbers, columns =
  local normal ids (int32);
* dd (delegate -> delegate): undirected, both arcs of an edge {a, b} with the range owner
  of its smaller end if a + b is even, of its larger end if odd (balanced even when hubs
  cluster in low ids; the paper's "symmetric" subgraphs: dd is its own transpose); directed,
  with the owner of the source's range; rows and columns delegate numbers (int32).

They are cut from the rank's 1D rows (``owned.build.build_ranges`` routes every arc to its source's
owner and, for a directed graph, every in-arc to its destination's owner): nn, nd and dd
from the out-rows, dn from the in-rows of the owned normal vertices. The bottom-up
(reverse) visits of Sec. IV-B need the transposes of nd, dn and dd on the same rank; for
an undirected graph the transposes of nd and dn are dn and nd themselves (an undirected
edge's two arcs meet at the normal endpoint's owner) and dd is symmetric by placement (the
paper's "symmetric" property), so no transpose is stored; a directed graph stores all three. nn has no reverse: the paper runs it top-down only.

CSR everywhere, int64 row offsets. Construction is vectorised numpy over the rank's arcs.
"""
from __future__ import annotations

import numpy as np

_NAMES = ("nn", "nd", "dn", "dd")


def _indptr(sorted_rows, nrows) -> np.ndarray:
    ip = np.zeros(nrows + 1, dtype=np.int64)
    np.cumsum(np.bincount(sorted_rows, minlength=nrows), out=ip[1:])
    return ip


def _csr(rows, cols, nrows, dtype):
    """CSR of arcs (rows[i], cols[i]) in any order (stable: columns stay in input order per row)."""
    order = np.argsort(rows, kind="stable")
    return _indptr(rows[order], nrows), np.ascontiguousarray(cols[order], dtype=dtype)


def _transpose(ip, ix, ncols, dtype):
    rows = np.repeat(np.arange(ip.size - 1, dtype=np.int64), np.diff(ip))
    return _csr(np.asarray(ix, dtype=np.int64), rows, ncols, dtype)


class Subgraphs:
    """nn/nd/dn/dd CSRs of one rank (``*_ip`` row offsets, ``*_ix`` columns) and the reverse CSRs the
    bottom-up visits read (``ndT``, ``dnT``, ``ddT``); see the module header."""

    def __init__(self, lg1, part):
        nr, lo, d = part.num_local, part.lo, part.num_delegates
        self.nrows, self.lo, self.hi, self.num_delegates = nr, lo, part.hi, d
        self.directed = lg1.directed
        row_del = part.delegate_index(np.arange(lo, lo + nr, dtype=np.int64))
        rows = np.repeat(np.arange(nr, dtype=np.int64), np.diff(lg1.indptr))
        cols = lg1.indices
        cdel = part.delegate_index(cols)
        rdel = row_del[rows] >= 0
        isd = cdel >= 0
        sel = ~rdel & ~isd
        self.nn_ip, self.nn_ix = _indptr(rows[sel], nr), np.ascontiguousarray(cols[sel])
        sel = ~rdel & isd
        self.nd_ip, self.nd_ix = _indptr(rows[sel], nr), cdel[sel].astype(np.int32)
        sel = rdel & isd
        a, b = row_del[rows[sel]], cdel[sel]
        if self.directed:
            self.dd_ip, self.dd_ix = _indptr(a, d), b.astype(np.int32)
        else:               # both arcs of a dd edge on one rank: dd is its own transpose
            ga, gb = part.delegates[a], part.delegates[b]
            keep = (ga < gb) == ((ga + gb) % 2 == 0)         # the smaller end's rank for an even id sum
            a, b = a[keep], b[keep]
            self.dd_ip, self.dd_ix = _csr(np.concatenate([a, b]), np.concatenate([b, a]), d, np.int32)
        del rows, cdel, rdel, isd, sel
        irows = np.repeat(np.arange(nr, dtype=np.int64), np.diff(lg1.in_indptr))
        idel = part.delegate_index(lg1.in_indices)
        sel = (idel >= 0) & (row_del[irows] < 0)
        self.dn_ip, self.dn_ix = _csr(idel[sel], irows[sel], d, np.int32)
        del irows, idel, sel
        if self.directed:
            self.ddT_ip, self.ddT_ix = _transpose(self.dd_ip, self.dd_ix, d, np.int32)
            self.ndT_ip, self.ndT_ix = _transpose(self.nd_ip, self.nd_ix, d, np.int32)
            self.dnT_ip, self.dnT_ix = _transpose(self.dn_ip, self.dn_ix, nr, np.int32)
        else:
            self.ddT_ip, self.ddT_ix = self.dd_ip, self.dd_ix
            self.ndT_ip, self.ndT_ix = self.dn_ip, self.dn_ix
            self.dnT_ip, self.dnT_ix = self.nd_ip, self.nd_ix
        self.cut_nn = int(np.count_nonzero((self.nn_ix < lo) | (self.nn_ix >= self.hi)))

    def arc_counts(self) -> np.ndarray:
        """This rank's arcs in nn, nd, dn, dd (int64[4])."""
        return np.array([self.nn_ix.size, self.nd_ix.size, self.dn_ix.size, self.dd_ix.size], dtype=np.int64)

    @property
    def forward_nbytes(self) -> int:
        """Bytes of the four subgraphs (the paper's Table I storage)."""
        return sum(getattr(self, f"{s}_ip").nbytes + getattr(self, f"{s}_ix").nbytes for s in _NAMES)

    @property
    def nbytes(self) -> int:
        """Bytes of everything the search reads: the four subgraphs and the stored transposes."""
        extra = 0
        if self.directed:
            extra += self.ddT_ip.nbytes + self.ddT_ix.nbytes + self.ndT_ip.nbytes + self.ndT_ix.nbytes + self.dnT_ip.nbytes + self.dnT_ix.nbytes
        return self.forward_nbytes + extra
