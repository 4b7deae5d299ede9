"""An MPI job's ranks on a namespace cluster record their exit statuses, so that ``Cluster.exec``
can end an mpiexec that outlives them: Open MPI 5's runtime sometimes hangs after every rank
has exited (openpmix/prrte#1839), and then nothing else would end the command before its timeout."""
from __future__ import annotations

import subprocess
import time


# Runs a rank's command, then records its exit status where ``communicate`` looks (atomic rename).
RECORD_EXIT = ('"$@"; s=$?; d={folder}; r="$OMPI_COMM_WORLD_RANK"; '
               'printf \'{{"rank": %s, "size": %s, "exit": %s}}\' "$r" "$OMPI_COMM_WORLD_SIZE" "$s" '
               '> "$d/rank$r.tmp" && mv "$d/rank$r.tmp" "$d/rank$r.json"; exit $s')


class Outlived(Exception):
    """The launcher outlived its ranks (``exec``): ``code`` is theirs, ``note`` says what happened."""

    def __init__(self, code: int, note: str):
        super().__init__(note)
        self.code, self.note = code, note


def communicate(proc, timeout, exits):
    """``proc.communicate(timeout)``, watching ``exits`` (``exec``) every quarter second."""
    if exits is None:
        return proc.communicate(timeout=timeout)
    from ..distributed.faults.mpilog import ExitWatch
    from ..distributed.launch import EXIT_GRACE

    start = time.monotonic()
    watch = ExitWatch(exits, EXIT_GRACE)
    while True:
        left = None if timeout is None else timeout - (time.monotonic() - start)
        if left is not None and left <= 0:
            return proc.communicate(timeout=0)
        try:
            return proc.communicate(timeout=0.25 if left is None else min(0.25, left))
        except subprocess.TimeoutExpired:
            pass
        if watch.outlived(time.monotonic()):
            raise Outlived(watch.code, watch.note("breadth cluster"))
