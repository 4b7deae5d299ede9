"""Bounded failure of a distributed job: what ends it when a rank stalls, and what the user is told.

* ``watchdog``: a daemon thread on every rank that ends the whole job (``MPI_Abort``,
  exit code 1) when the rank has waited inside one MPI operation for longer than a
  bound, with one line naming the host, the rank, the phase and level, and the
  operation it was waiting in. The counted communicator (``distributed.comm``)
  updates the heartbeat it watches around every operation.
* ``mpilog``: the launcher side (``--ranks``): Open MPI's own messages go to a log
  file, and a failed job ends with one line in the user's terms (which rank, on
  which host, in which phase) that points to the log.
* ``reaper``: the launcher adopts the ranks an ended mpiexec left behind (a stopped rank
  cannot end itself) and kills them, so no rank outlives its launch.
"""
from .watchdog import (DEFAULT_FLOOR, DEFAULT_MULTIPLE, HEARTBEAT, STATUS_ENV, Heartbeat, check_stall_timeout,
                       start_watchdog, stop_watchdog, watchdog_bound)

__all__ = ["DEFAULT_FLOOR", "DEFAULT_MULTIPLE", "HEARTBEAT", "STATUS_ENV", "Heartbeat", "check_stall_timeout",
           "start_watchdog", "stop_watchdog", "watchdog_bound"]
