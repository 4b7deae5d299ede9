"""The degree distribution at the target scale, and the shares the delegates layout depends on.

Pan, Pearce, Owens ("Scalable Breadth-First Search on a GPU Cluster", Sec. III-A, VI-B) make
the vertices of degree > TH delegates; what their layout sends depends on the number of
delegates d(TH) and on the share of edges between two normal vertices (the nn share, the only
edges whose discoveries cross ranks point to point). Both change with the graph's scale (Pan
report 6.3% nn edges and 1.75% delegates at scale 33, Sec. VI-B), so a small sample taken as
is misprices them. ``DegreeModel`` gives them at the target scale:

* ``kronecker(scale, edgefactor)`` -- closed form. A Graph500 tuple descends ``scale`` levels of
  the initiator [[a, b], [c, d]] = [[0.57, 0.19], [0.19, 0.05]]; a vertex whose label has j one
  bits is an endpoint of a tuple with probability p_j = (a+b)^(s-j) (c+d)^j per side, so its
  degree is Poisson with mean lambda_j = 2 M p_j (M = edgefactor 2^s tuples; the reference's
  clip-and-flip swaps which endpoint takes a bit, not the unordered pair, and the scrambling of
  labels keeps popcounts' counts). Duplicates are removed as construction does: a label pair
  (x, y) whose bits pair up as (0,0) s-j-k0 times, (0,1) k0, (1,0) j-k1, (1,1) k1 times expects
  2 M a^(s-j-k0) b^k0 c^(j-k1) d^k1 tuples and holds an edge with probability 1 - exp(-that);
  summing over the classes (j, k0, k1) gives each class's mean distinct degree lambda_j and the
  joint class distribution (j, k0 + k1) of an edge's endpoints (k0 = 0, k1 = j is y = x, a
  self loop, which construction removes too). An endpoint of class j has
  degree 1 + Poisson(lambda_j) (it holds this edge).
* ``uniform(scale, edgefactor)`` -- every vertex Poisson(2 M / n), independent endpoints.
* ``measured(graph)`` -- a graph at hand: its own degrees and edges, exactly.

Invariants: ``nn_share`` + ``delegate_share`` = 1; ``delegates`` and ``nn_share`` fall and rise
monotonically with TH.
"""
from __future__ import annotations

import math

import numpy as np

from ...graph.generators import A, B, C

D = 1.0 - A - B - C

ROOT_BUCKET = 2.0     # ``root_degrees``: a bucket's upper degree over its lower one


def poisson_cdf(k: float, lam: np.ndarray) -> np.ndarray:
    """P(Poisson(lam) <= k) for each lam: the regularized upper incomplete gamma Q(k + 1, lam)."""
    from scipy.special import gammaincc

    lam = np.asarray(lam, dtype=np.float64)
    k = int(math.floor(k))
    if k < 0:
        return np.zeros_like(lam)
    return np.where(lam > 0, gammaincc(k + 1, np.maximum(lam, 1e-300)), 1.0)


class DegreeModel:
    """Degree classes (share of vertices ``weight[j]``, Poisson mean ``lam[j]``) and the joint
    class distribution ``joint[ju, jv]`` of an edge's endpoints (module header)."""

    def __init__(self, n: float, m: float, weight, lam, joint, source: str):
        self.n, self.m, self.source = float(n), float(m), source
        self.weight = np.asarray(weight, dtype=np.float64)
        self.lam = np.asarray(lam, dtype=np.float64)
        self.joint = np.asarray(joint, dtype=np.float64)
        self._exact = None            # a measured graph's {k: (delegates, nn share)} at TH = 2^k
        self._memo = {}

    def isolated(self) -> float:
        """Vertices of degree 0 (never reached, but counted among a level's unvisited)."""
        return self.n * float(self.weight @ np.exp(-self.lam))

    def normal_vertex(self, th: float) -> np.ndarray:
        """Per class: the probability that a vertex has degree <= TH (it is normal)."""
        return poisson_cdf(th, self.lam)

    @property
    def is_measured(self) -> bool:
        """Counted on a graph (``measured``): exact at powers of two, no degree classes to integrate."""
        return self._exact is not None

    def delegates(self, th: float) -> float:
        """Vertices of degree > TH."""
        if self._exact is not None:
            return self._measured(th)[0]
        key = ("d", th)
        if key not in self._memo:
            self._memo[key] = self.n * float(self.weight @ (1.0 - self.normal_vertex(th)))
        return self._memo[key]

    def nn_share(self, th: float) -> float:
        """Share of edges with both endpoints of degree <= TH."""
        if self._exact is not None:
            return self._measured(th)[1]
        key = ("nn", th)
        if key not in self._memo:
            q = poisson_cdf(th - 1, self.lam)           # an endpoint's other edges: Poisson(lam)
            self._memo[key] = float(q @ self.joint @ q)
        return self._memo[key]

    def _measured(self, th: float) -> tuple:
        """A measured graph's numbers at the largest power of two <= TH."""
        k = max(0, int(math.floor(math.log2(max(th, 1)))))
        return self._exact[min(k, max(self._exact))]

    def delegate_share(self, th: float) -> float:
        """Share of edges touching a delegate."""
        return 1.0 - self.nn_share(th)

    def auto_threshold(self, P: int) -> int:
        """The delegates layout's rule (``delegates.partition.auto_threshold``): the smallest power
        of two TH with d(TH) <= n / P."""
        key = ("auto", int(P))
        if key not in self._memo:
            limit = max(1.0, self.n / max(1, P))
            self._memo[key] = next((1 << k for k in range(63) if self.delegates(1 << k) <= limit), 1 << 62)
        return self._memo[key]

    def endpoint_share(self, vertices: float) -> float:
        """Share of edge endpoints on the ``vertices`` highest-degree vertices: the share of random
        per-edge accesses a cache holding those vertices' state serves. A vertex of degree D is
        D endpoints, and E[D; D > th] = lambda P(Poisson(lambda) >= th); between two thresholds
        the share is interpolated by vertex count."""
        if vertices <= 0:
            return 0.0
        if vertices >= self.n:
            return 1.0
        arcs = float(self.weight @ self.lam)

        def above(th):                        # (vertices of degree > th, their endpoint share)
            d = float(self.weight @ (1.0 - poisson_cdf(th, self.lam)))
            e = float(self.weight @ (self.lam * (1.0 - poisson_cdf(th - 1, self.lam)))) / arcs if arcs else 0.0
            return d * self.n, e
        lo, hi = 0, 1
        while above(hi)[0] > vertices:
            lo, hi = hi, hi * 2
        while hi - lo > 1:                    # the smallest th with at most ``vertices`` above it
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if above(mid)[0] > vertices else (lo, mid)
        (d1, e1), (d0, e0) = above(hi), above(hi - 1)
        w = (vertices - d1) / (d0 - d1) if d0 > d1 else 0.0
        return e1 + w * (e0 - e1)

    def root_degrees(self) -> list:
        """The degree of a root drawn as Graph500 draws them (any vertex of degree >= 1), in buckets
        [2^k, 2^(k+1)) (``ROOT_BUCKET``): [(probability, mean degree in the bucket)]. The expected
        count of a quantity that bends with the root's degree is its mean over these, not its value
        at the mean degree (which, on a heavy-tailed graph, a few hubs set). For a bucket [a, b):
        P(a <= D < b) = sum w (F(b - 1) - F(a - 1)) and
        E[D; a <= D < b] = sum w lam (F(b - 2) - F(a - 2)), F the classes' Poisson CDFs; the last
        bucket is open above."""
        key = ("roots",)
        if key in self._memo:
            return self._memo[key]
        w, lam = self.weight, self.lam
        live = float(w @ -np.expm1(-lam))
        if live <= 0:
            return [(1.0, 1.0)]

        def mass(a):                          # (P(D >= a), E[D; D >= a]) for a >= 1
            return float(w @ (1.0 - poisson_cdf(a - 1, lam))), float(w @ (lam * (1.0 - poisson_cdf(a - 2, lam))))
        out, a, step = [], 1, 0
        while True:
            b = max(a + 1, int(math.floor(ROOT_BUCKET ** (step + 1))))
            pa, ea = mass(a)
            pb, eb = mass(b)
            last = pb < 1e-9 * live
            p, e = (pa, ea) if last else (pa - pb, ea - eb)
            if p > 1e-9 * live:
                out.append((p, e / p))
            if last:
                break
            a, step = b, step + 1
        total = sum(p for p, _ in out)
        out = [(p / total, d) for p, d in out]
        self._memo[key] = out
        return out

    def mixed(self, unvisited: float) -> tuple:
        """The unreached per class when ``unvisited`` (share of n) is unreached: (a, mu). Every edge
        end is reached with the same probability y (a random graph's mixing), so a class of
        Poisson(lam) degrees keeps a = weight exp(-lam y) of the graph unreached, with degrees
        Poisson(mu = lam (1 - y)); y solves ``unvisited``."""
        lo, hi = 0.0, 1.0                    # y: the unvisited share falls as y grows
        for _ in range(60):
            y = 0.5 * (lo + hi)
            lo, hi = (y, hi) if float(self.weight @ np.exp(-self.lam * y)) > unvisited else (lo, y)
        return self.weight * np.exp(-self.lam * y), self.lam * (1.0 - y)

    def unreached_above(self, unvisited: float, th: float) -> float:
        """Vertices of degree > TH still unreached when ``unvisited`` (share of n) is (``mixed``):
        a class keeps a P(Poisson(mu) > TH) of the graph. At ``unvisited`` = 1 it is
        ``delegates(th)``; the high-degree vertices go first."""
        if unvisited >= 1.0:
            return self.delegates(th)
        if unvisited <= 0.0:
            return 0.0
        a, mu = self.mixed(unvisited)
        return self.n * float(a @ (1.0 - poisson_cdf(th, mu)))

    def bottom_up_classes(self, unvisited: float, examined: float) -> tuple:
        """The unreached of a bottom-up level and its frontier, per class: (a, mu, p, one).
        ``unvisited`` is the share of n not yet reached, ``examined`` the level's edges per vertex of
        the graph, one scan per unreached vertex to its first frontier neighbour.

        The unreached classes are ``mixed``'s. Each open edge leads into the frontier
        with probability p, which solves ``examined``: a scan of D edges examines
        (1 - (1 - p)^D) / p, so the classes examine one = sum a (1 - exp(-mu p)) / p (``examined``
        itself, but where it lies outside what the unreached can examine)."""
        a, mu = self.mixed(unvisited)

        def one_scan(p):                     # falls as p grows, from the open edges (p -> 0) to the vertices
            return float(a @ -np.expm1(-mu * p)) / p
        lo, hi = 1e-12, 1.0
        for _ in range(60):
            p = math.sqrt(lo * hi)
            lo, hi = (p, hi) if one_scan(p) > examined else (lo, p)
        return a, mu, p, one_scan(p)

    def split_scans(self, unvisited: float, examined: float, pieces: int) -> float:
        """Edges per vertex of the graph that a bottom-up level examines when each unreached vertex's
        arcs are cut into ``pieces`` equal parts, each scanned alone to its own first frontier
        neighbour (the ranks of a 2D processor row, none told of another's find): a vertex of D arcs
        examines pieces (1 - (1 - p)^(D / pieces)) / p, and E[z^D] = exp(-mu (1 - z)) for
        Poisson(mu) degrees (``bottom_up_classes``), in proportion to ``examined``: one piece gives
        ``examined`` back."""
        if unvisited <= 0 or examined <= 0:
            return 0.0
        a, mu, p, one = self.bottom_up_classes(unvisited, examined)
        k = max(1, int(pieces))
        split = k * float(a @ -np.expm1(-mu * (1.0 - (1.0 - p) ** (1.0 / k)))) / p
        return examined * split / one if one > 0 else examined

    def summary(self, th: float) -> dict:
        return {"threshold": th, "delegates": self.delegates(th), "delegate_fraction": self.delegates(th) / self.n,
                "nn_share": self.nn_share(th), "source": self.source}


def kronecker(scale: int, edgefactor: int = 16) -> DegreeModel:
    """The Graph500 Kronecker graph's degree model in closed form, duplicates removed (module header)."""
    s = int(scale)
    M = float(edgefactor) * 2.0 ** s
    lg = np.array([math.lgamma(x + 1) for x in range(s + 1)])
    j = np.arange(s + 1)[:, None, None]              # one bits of vertex x
    k0 = np.arange(s + 1)[None, :, None]             # x's zero bits where y has a one
    k1 = np.arange(s + 1)[None, None, :]             # x's one bits where y has a one
    ok = (k0 <= s - j) & (k1 <= j) & ~((k0 == 0) & (k1 == j))       # y = x: a self loop, removed
    jj, kk0, kk1 = (np.broadcast_to(x, ok.shape).astype(np.float64) for x in (j, k0, k1))
    # log of the number of (x, y) label pairs of the class, and of one pair's tuple probability
    safe = lambda x: np.where(ok, x, 0.0)          # noqa: E731
    log_pairs = safe(lg[s] - lg[j] - lg[np.where(ok, s - j, 0)] + lg[np.where(ok, s - j, 0)] - lg[np.where(ok, k0, 0)]
                     - lg[np.where(ok, s - j - k0, 0)] + lg[j] - lg[np.where(ok, k1, 0)] - lg[np.where(ok, j - k1, 0)])
    log_p = safe((s - jj - kk0) * math.log(A) + kk0 * math.log(B) + (jj - kk1) * math.log(C) + kk1 * math.log(D))
    # an undirected pair {x, y} holds an edge once at least one of its 2 M p(x, y) expected tuples falls on it
    present = np.where(ok, -np.expm1(-2.0 * M * np.exp(log_p)), 0.0)
    mass = np.where(ok, np.exp(log_pairs) * present, 0.0)
    weight = np.exp(lg[s] - lg[np.arange(s + 1)] - lg[s - np.arange(s + 1)] - s * math.log(2.0))
    lam = mass.sum(axis=(1, 2)) / (weight * 2.0 ** s)          # distinct neighbours of a class-j vertex
    jv = (kk0 + kk1).astype(np.int64)
    joint = np.zeros((s + 1, s + 1))
    np.add.at(joint, (np.broadcast_to(j, ok.shape)[ok], jv[ok]), mass[ok])
    joint /= joint.sum()
    return DegreeModel(2.0 ** s, M, weight, lam, joint, f"Kronecker closed form, scale {s}, duplicates removed")


def uniform(scale: int, edgefactor: int = 16) -> DegreeModel:
    """A uniform random graph: one class, Poisson(2 edgefactor) degrees, independent endpoints."""
    n = 2.0 ** int(scale)
    return DegreeModel(n, edgefactor * n, [1.0], [2.0 * edgefactor], [[1.0]], f"uniform, scale {int(scale)}")


def measured(graph) -> DegreeModel:
    """A graph's own degrees and edges, counted at every power-of-two TH (exact there; a TH in
    between is priced at the power of two below it)."""
    indptr = np.asarray(graph.indptr)
    deg = np.diff(indptr)
    src = np.repeat(np.arange(deg.size), deg)
    top = np.sort(np.maximum(deg[src], deg[np.asarray(graph.indices)]))       # an edge is nn iff this <= TH
    sdeg = np.sort(deg)
    out = DegreeModel(deg.size, indptr[-1] / 2.0, [1.0], [float(deg.mean()) if deg.size else 0.0], [[1.0]],
                      "measured degrees")
    out._exact = {}
    for k in range(int(deg.max()).bit_length() + 1 if deg.size else 1):
        th = 1 << k
        nn = np.searchsorted(top, th, side="right") / top.size if top.size else 1.0
        out._exact[k] = (float(sdeg.size - np.searchsorted(sdeg, th, side="right")), float(nn))
    return out
