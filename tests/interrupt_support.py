"""Shared by the interrupt load tests: wait until a job is running, signal it as a user would, bound
how long it takes to end, and find the processes it left."""
import os
import signal
import subprocess
import time

import pytest


def interrupt_when_ready(proc, ready, how, bound, what):
    """Wait (<= 180 s) until ``ready()``, send ``how`` (sigint, sigint-twice, sigterm, sigint-ignored
    counts as sigint), and fail unless ``proc`` ends within ``bound`` s; returns (output, seconds)."""
    deadline = time.monotonic() + 180
    while not ready():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate(timeout=30)[0]
        time.sleep(0.1)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
    if how == "sigint-twice":
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{how}: {what} had not ended {bound:g} s after the signal")
    return out, time.monotonic() - sent



def carrying(marker: bytes) -> list[int]:
    """The processes whose environment holds ``marker`` (a ``NAME=value`` entry the job's launcher set,
    so every process it started inherits it)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if marker in f.read().split(b"\0"):
                        out.append(int(entry))
            except OSError:
                pass
    return out
