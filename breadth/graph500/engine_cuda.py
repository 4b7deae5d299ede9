"""The Graph500 engine of one process searching on one GPU (``breadth graph500 --device cuda``).

Implements the ``Engine`` protocol (``graph500/engine.py``) with breadth's GPU path
(``breadth.gpu``): kernel 0 and the TEPS edge count are the single-node engine's
(``LocalEngine``); kernel 1 builds the CSR on the host and uploads it
(``gpu.DeviceGraph``: the timed construction ends with the graph on the GPU, its
size checked against free GPU memory first); kernel 2 is ``gpu.bfs`` on that
DeviceGraph with ``to_host=False``: the clock stops when the parent array is complete
in device memory, as the specification times a search ("until the output has been
written to memory"); the copy back to the host happens after the clock, once per
search (``BFSResult.to_host``), the TEPS edge count reads that copy; validation runs the
Graph500 rules on the device (``gpu.validate``), untimed. Everything is decided by the one
direction policy, so a search takes the CPU engine's directions.

Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the same code runs on the
CPU for tests; its times mean nothing.
"""
from __future__ import annotations

import numpy as np

from ..graph.types import Graph
from ..kernels.policy import ALPHA, BETA
from ..result import BFSResult
from .engine import LocalEngine


class CudaEngine(LocalEngine):
    """One process, one GPU: breadth's numba-cuda kernels (``device="cuda"``)."""

    name = "cuda"

    def __init__(self, algorithm="do", alpha=ALPHA, beta=BETA, directed=False, launch=None, streaming=None):
        from ..gpu import device

        device.require_cuda()                  # one clear line before any work when there is no GPU
        super().__init__(algorithm, alpha, beta, directed, streaming)
        self.launch = launch
        self.device_graph = None

    def warm_up(self):
        """Load the host builder and run every GPU search path once on a tiny graph (JIT before timing)."""
        from ..gpu.api import bfs

        super().warm_up()
        src = np.array([0, 0, 1, 2, 2], dtype=np.int64)
        dst = np.array([1, 1, 2, 2, 3], dtype=np.int64)
        g = Graph.from_edges(src, dst, num_vertices=4, directed=self.directed)
        for algorithm in {self.algorithm, "do", "td", "bu"}:
            bfs(g, 0, algorithm, launch=self.launch)

    def construct(self):
        from ..gpu.graph import DeviceGraph

        super().construct()
        self.device_graph = DeviceGraph(self.graph)

    def search(self, root) -> BFSResult:
        from ..gpu.api import bfs

        return bfs(self.device_graph, root, self.algorithm, alpha=self.alpha, beta=self.beta, launch=self.launch,
                   to_host=False)

    def validate(self, root, result: BFSResult):
        """The Graph500 rules on the device (``gpu.validate.validate_device``; untimed), plus the
        tuple rules on the host copy when ``validate_tuples`` asks for them."""
        from ..gpu.validate import validate_device

        report = validate_device(self.device_graph, result.roots, result.parent, result.depth)
        if self.validate_tuples:
            super().validate(root, result.to_host())
        return report

    def nedge(self, result: BFSResult) -> int:
        """The Graph500 TEPS edge count of a device result (its host copy; see ``LocalEngine.nedge``)."""
        return super().nedge(result.to_host())

    def describe(self) -> dict:
        from ..gpu import device

        return {"engine": self.name, "device": device.device_name(), "simulator": device.simulated(),
                "algorithm": self.algorithm, "alpha": self.alpha, "beta": self.beta}
