"""``--partition auto``: probe the machine, estimate the graph, predict every layout, pick one.

``choose_layout(comm, make_profile, threads)`` is collective: every rank probes (``probe.probe``),
rank 0 builds the profile (``make_profile()``, e.g. ``graph.generated``) and predicts every
candidate (``choose.predict_all``), and every rank gets the same ``Choice``. ``Choice.report``
adds, after the run, the measured time of the chosen layout next to its prediction.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from . import choose
from .probe import probe

log = logging.getLogger("breadth.planner")


@dataclass
class Choice:
    best: choose.Prediction
    ranked: list                   # the fastest candidate of each layout, fastest first
    machine: object
    profile: object
    seconds: float                 # what probing and predicting took

    def engine_kwargs(self) -> dict:
        return self.best.engine_kwargs()

    def why(self) -> str:
        return choose.why(self.ranked)

    def text(self) -> str:
        return (f"auto layout: {self.why()} (probe and prediction {self.seconds:.2f} s; profile: "
                f"{self.profile.source})\n" + choose.table(self.ranked))

    def report(self, measured_seconds: float | None = None) -> dict:
        m = self.machine
        out = {"chosen": self.best.label, "partition": self.best.partition, "exchange": self.best.exchange,
               "params": self.best.params, "why": self.why(), "seconds": self.seconds,
               "predicted_seconds_per_search": self.best.seconds,
               "predicted_comm_seconds_per_search": self.best.comm_seconds,
               "candidates": [{"layout": p.label, "seconds": p.seconds, "compute_seconds": p.compute_seconds,
                               "comm_seconds": p.comm_seconds, "messages": p.messages, "bytes": p.bytes}
                              for p in self.ranked],
               "machine": {"hosts": len(set(m.hosts)), "ranks": m.size, "alpha_local": m.alpha_local,
                           "alpha_remote": m.alpha_remote, "beta_local": m.beta_local,
                           "beta_remote": m.beta_remote, "rate_td": m.rate_td, "rate_bu": m.rate_bu,
                           "threads": m.threads, "cores_per_host": m.cores_per_host,
                           "memory_bandwidth": m.memory_bandwidth, "cpu_share": m.cpu_share,
                           "late_step": m.late_step, "engine": m.engine},
               "profile": self.profile.source}
        if measured_seconds is not None:
            out["measured_seconds_per_search"] = measured_seconds
            out["measured_over_predicted"] = measured_seconds / self.best.seconds if self.best.seconds else None
        return out


def choose_layout(comm, make_profile, threads: int = 1, only=None) -> Choice:
    """The layout to run on ``comm`` (module header). Collective."""
    from ...errors import BreadthError
    from ..runtime import collective_error, mpi_comm

    mpi = mpi_comm(comm)
    t0 = time.perf_counter()
    machine = probe(comm, threads)
    choice = error = None
    if mpi.Get_rank() == 0:
        try:                              # bad input (a missing file) fails every rank alike
            prof = make_profile()
            preds = choose.predict_all(prof, machine, only)
            choice = Choice(preds[0], choose.best_per_layout(preds), machine, prof, 0.0)
        except BreadthError as exc:
            error = exc
    req = mpi.Ibarrier()                  # the other ranks wait idle while rank 0 estimates
    while not req.Test():
        time.sleep(0.002)
    choice, error = mpi.bcast((choice, error), root=0)
    if error is not None:
        raise collective_error(error)
    choice.seconds = time.perf_counter() - t0
    log.info("%s", choice.why())
    return choice
