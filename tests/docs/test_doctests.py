"""The examples of the API reference run: every ``>>>`` of a documented object's docstring.

The documented objects are the ``::: dotted.path`` entries of docs/api/*.md that name a
function or a class (what the site renders, see test_api_pages.py), with the methods and
properties of documented classes. Each
object's examples run as one doctest (ELLIPSIS and NORMALIZE_WHITESPACE on), inside a fresh
temporary directory so examples may write files, with ``breadth`` and ``np`` imported.
Examples of ``breadth.gpu`` run where numba-cuda can run kernels (a GPU, or
NUMBA_ENABLE_CUDASIM=1, which ./test.sh sets) and are skipped elsewhere. Examples that start
MPI (a ``Comm`` or a ``DistEngine`` of one rank, no launcher) run in a child process, so
this process never initialises MPI, and are skipped without mpi4py. Examples are kept tiny
(graphs of a few dozen vertices) so the whole file stays quick once kernels are cached.
"""
import doctest
import importlib.util
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))    # api_objects.py
from api_objects import NEEDS_CUDA, entries, resolve  # noqa: E402
from test_examples import cuda_usable  # noqa: E402

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
MPI_MARKS = ("Comm(", "DistEngine(")          # examples that initialise MPI
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def documented_paths():
    """The entries of the API pages naming a function or a class, each once, in page order."""
    seen, paths = set(), []
    for path in entries():
        if path not in seen and (needs_cuda(path) or not inspect.ismodule(resolve(path))):
            seen.add(path)
            paths.append(path)
    return paths


def doctests_of(path):
    """The doctests of one documented object (its members' too, for a class)."""
    obj = resolve(path)
    finder = doctest.DocTestFinder(recurse=inspect.isclass(obj), exclude_empty=True)
    module = inspect.getmodule(inspect.unwrap(obj)) if not inspect.ismodule(obj) else obj
    return [t for t in finder.find(obj, path, module=module, globs={}) if t.examples]


def needs_cuda(path):
    return path in NEEDS_CUDA.values() or path.startswith("breadth.gpu.")


def run_doctests(tests):
    """Run doctests here; the failure reports (empty when every example matched)."""
    import breadth

    failures = []
    for test in tests:
        test.globs.update({"breadth": breadth, "np": np})
        runner = doctest.DocTestRunner(optionflags=FLAGS, verbose=False)
        report = []
        runner.run(test, out=report.append)
        failures += report
    return failures


def starts_mpi(tests):
    return any(mark in example.source for test in tests for example in test.examples for mark in MPI_MARKS)


CHILD = """
import sys
sys.path.insert(0, {here!r})
import test_doctests as t
failures = t.run_doctests(t.doctests_of({path!r}))
sys.stdout.write("".join(failures))
sys.exit(1 if failures else 0)
"""


@pytest.mark.parametrize("path", documented_paths())
def test_examples_run(path, tmp_path, monkeypatch):
    if needs_cuda(path) and not cuda_usable():
        pytest.skip("needs numba-cuda with a GPU or NUMBA_ENABLE_CUDASIM=1")
    monkeypatch.chdir(tmp_path)
    tests = doctests_of(path)
    assert tests, f"{path} has no example (test_docstrings.py names what is missing)"
    if not starts_mpi(tests):
        failures = run_doctests(tests)
        assert not failures, "".join(failures)
        return
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip("needs mpi4py")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    code = CHILD.format(here=os.path.dirname(os.path.abspath(__file__)), path=path)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]


def test_a_wrong_example_fails(tmp_path, monkeypatch):
    """The runner above reports a mismatch (a test that could not fail would prove nothing)."""
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(">>> 1 + 1\n3\n", {}, "wrong", None, 0)
    report = []
    doctest.DocTestRunner(optionflags=FLAGS).run(test, out=report.append)
    assert report and "Expected" in "".join(report)
