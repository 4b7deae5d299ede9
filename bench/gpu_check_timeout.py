"""pytest plugin of bench/gpu_check.py: a time limit on every test without pytest-timeout.

Loaded with ``-p gpu_check_timeout`` (bench/ on PYTHONPATH). ``GPU_CHECK_TEST_TIMEOUT``
seconds (0 or unset: no limit) bound each of a test's setup, call and teardown: a
SIGALRM in the main thread fails the test with a one-line reason, and pytest goes on
with the next one. Code stuck inside a C call (a kernel launch that never returns)
does not see the signal; the run's own time limit in bench/gpu_check.py ends that.
"""
from __future__ import annotations

import os
import signal

import pytest


def _limit() -> float:
    try:
        return float(os.environ.get("GPU_CHECK_TEST_TIMEOUT", "0"))
    except ValueError:
        return 0.0


def _bounded(item, when):
    limit = _limit()
    if limit <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(signum, frame):
        pytest.fail(f"{item.nodeid} {when}: over the per-test limit of {limit:g} s (GPU_CHECK_TEST_TIMEOUT)",
                    pytrace=False)

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _bounded(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _bounded(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from _bounded(item, "teardown")
