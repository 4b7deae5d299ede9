"""Every test file under tests/ is collected by the default test run.

pytest silently skips directories matching ``norecursedirs`` (its defaults include
``dist`` and ``build``), which once hid all MPI tests from CI. This test runs the
default collection in a fresh process and fails if any ``test_*.py`` is missing.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _test_files():
    found = set()
    for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, "tests")):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            if name.startswith("test_") and name.endswith(".py"):
                found.add(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return found


def test_every_test_file_is_collected():
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    collected = {line.split("::")[0] for line in proc.stdout.splitlines() if "::" in line}
    files = _test_files()
    assert files, "no test files found"
    missing = sorted(files - collected)
    assert not missing, f"test files the default run never collects: {missing}"
