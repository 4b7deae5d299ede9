"""Checked entry points of the GPU path (what ``breadth.bfs(..., device="cuda")`` calls)."""
from __future__ import annotations

from ..checks import as_roots, check_algorithm, check_alpha_beta, check_max_depth, check_to_host
from ..kernels.policy import ALPHA, BETA
from ..result import BFSResult
from . import device
from .graph import as_device_graph
from .search import bfs as _bfs


def bfs(graph, root, algorithm: str = "do", max_depth: int | None = None, alpha: float = ALPHA,
        beta: float = BETA, launch: device.Launch | None = None, by_label: bool = False,
        to_host: bool = True) -> BFSResult:
    """``breadth.bfs`` on the GPU: ``graph`` is a DeviceGraph (reused) or a graph to upload.

    Same arguments, checks and result as the CPU search (``engine`` is "cuda");
    ``breadth.bfs(..., device="cuda")`` calls it.

    Args:
        graph: a ``DeviceGraph``, or a ``breadth.Graph``/scipy matrix uploaded for this search.
        root: a vertex id, or a list, range or numpy array of seeds searched as one.
        algorithm: "do" direction-optimizing (default), "td" top-down, "bu" bottom-up.
        max_depth: stop after this many levels.
        alpha: the top-down to bottom-up switch (see ``breadth.bfs``).
        beta: the bottom-up to top-down switch.
        launch: threads per block of each kernel family (``device.Launch``; default tuned values).
        by_label: ``root`` is given in the graph's labels.
        to_host: True (default): parent and depth come back in host memory (pinned, reused);
            False: they stay on the device as numba device arrays (``result.to_host()`` copies).

    Returns:
        A ``BFSResult`` (parent, depth, per-level statistics) in host or device memory.

    Raises:
        InputError: no GPU (and no simulator), a root out of range, a bad option.

    Examples:
        >>> from breadth.gpu import bfs
        >>> r = bfs(breadth.Graph.from_edges([0, 1, 2], [1, 2, 3]), 0)
        >>> r.depth, r.parent, r.engine
        (array([0, 1, 2, 3]), array([0, 0, 1, 2]), 'cuda')
    """
    device.require_cuda()
    to_host = check_to_host(to_host)
    mode = check_algorithm(algorithm)
    depth_limit = check_max_depth(max_depth)
    alpha, beta = check_alpha_beta(alpha, beta)
    dg = as_device_graph(graph)
    roots = as_roots(dg.graph, dg.graph.index_of(root) if by_label else root)
    return _bfs(dg, roots, mode, alpha, beta, depth_limit, algorithm, launch, to_host)
