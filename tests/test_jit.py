"""breadth.jit: compiling is done before the clock starts, or left out of it, announced once, and with an
empty cache partly in a second process."""
import json
import logging
import os
import subprocess
import sys

import numpy as np
from numba import njit

from breadth import jit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _fresh_kernel(module="tests.fresh"):
    """A new numba function (never cached): its first call compiles."""
    def add_one(a):
        out = np.empty_like(a)
        for i in range(a.size):
            out[i] = a[i] + 1
        return out

    add_one.__module__ = module
    return njit(add_one)


def test_stopwatch_leaves_compiling_out():
    f = _fresh_kernel()
    with jit.Stopwatch() as clock:
        f(np.arange(4))
    assert clock.compile_seconds > 0.02              # compiling happened inside the block
    assert clock.seconds < clock.compile_seconds / 4  # and is not in the work's time
    with jit.Stopwatch() as again:
        f(np.arange(4))
    assert again.compile_seconds == 0.0


def test_prepare_compiles_the_overload_the_call_uses():
    f = _fresh_kernel()
    a = np.arange(5, dtype=np.int32)
    assert jit.prepare(f, a) > 0
    assert jit.is_ready(f, jit.signature(f, (a,)))
    assert jit.prepare(f, a) == 0.0
    with jit.Stopwatch() as clock:
        f(a)
    assert clock.compile_seconds == 0.0              # the call found its overload ready
    assert jit.prepare(f, a.astype(np.float64)) > 0  # another type: another overload


def test_announces_the_first_compilation_of_a_breadth_kernel_once(caplog, monkeypatch):
    monkeypatch.setattr(jit, "_announced", [False])
    with caplog.at_level(logging.INFO, logger="breadth.jit"):
        _fresh_kernel("tests.fresh")(np.arange(3))           # not breadth's: no note
        assert not caplog.records
        _fresh_kernel("breadth.fresh")(np.arange(3))
        _fresh_kernel("breadth.fresh")(np.arange(3))
    notes = [r.getMessage() for r in caplog.records]
    assert len(notes) == 1 and notes[0].startswith("compiling breadth's kernels for this machine (first run only")


def test_compile_events_records_nesting():
    inner = _fresh_kernel()

    def outer(a):
        return inner(a)

    outer.__module__ = "tests.fresh"
    outer = njit(outer)
    with jit.compile_events() as rows:
        outer(np.arange(3))
    names = [r[0] for r in rows]
    assert names[0].endswith("outer") and any(n.endswith("add_one") for n in names[1:])
    assert rows[0][3] == 0 and all(r[3] >= 1 for r in rows[1:])
    assert rows[0][2] >= max(r[2] for r in rows[1:])


KERNELS = '''
import numpy as np
from breadth.jit import njit


@njit(cache=True)
def inner(a):
    s = 0
    for x in a:
        s += x * x
    return s


@njit(cache=True)
def outer(a):
    return inner(a) + 1
'''

ASIDE = '''
import json, sys
import numpy as np
import breadth.jit as jit
import kernels
a = np.arange(10, dtype=np.int64)
aside = lambda: (kernels.inner, (np.arange(3, dtype=sys.argv[1]),), [])
jit.prepare(kernels.outer, a, aside=aside)
print(json.dumps({"result": int(kernels.outer(a)), "inner_loaded": sum(kernels.inner.stats.cache_hits.values()),
                  "inner_compiled": sum(kernels.inner.stats.cache_misses.values())}))
'''


def _aside_run(tmp_path, dtype):
    """``prepare(outer, aside=inner)`` in a fresh process on an empty cache; the second process
    compiles ``inner`` for ``dtype``."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]),
               NUMBA_CACHE_DIR=str(tmp_path / f"cache-{dtype}"))
    out = subprocess.run([sys.executable, "-c", ASIDE, dtype], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_kernel_compiled_aside_is_loaded_by_its_caller(tmp_path):
    got = _aside_run(tmp_path, "int64")
    assert got == {"result": 286, "inner_loaded": 1, "inner_compiled": 0}


def test_an_aside_for_other_types_leaves_the_caller_to_compile_its_own(tmp_path):
    got = _aside_run(tmp_path, "float64")          # the second process compiles an overload outer never calls
    assert got == {"result": 286, "inner_loaded": 0, "inner_compiled": 1}


def test_no_second_process_on_one_core_or_for_a_cached_kernel(monkeypatch):
    f = _fresh_kernel("breadth.fresh")           # no on-disk cache: counts as cached
    assert not jit._may_go_aside(f, jit.signature(f, (np.arange(3),)))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert not jit._may_go_aside(f, jit.signature(f, (np.arange(3),)))


def test_the_first_search_loads_the_thin_run_a_second_process_compiled(tmp_path):
    code = ("import collections, json, breadth\n"
            "from breadth.jit import compile_events\n"
            "from breadth.kernels.thin_levels import run_region\n"
            "g = breadth.kronecker(10, seed=1)\n"
            "with compile_events() as rows:\n"
            "    r = breadth.bfs(g, 0)\n"
            "breadth.validate(g, 0, r.parent)\n"
            "names = collections.Counter(row[0].rsplit('.', 1)[1] for row in rows)\n"
            "print(json.dumps([sum(run_region.stats.cache_hits.values()), sum(run_region.stats.cache_misses.values()),"
            " names['td_step'], names['mark_unvisited']]))")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    loaded, compiled, td_step, mark_unvisited = json.loads(out.stdout.strip().splitlines()[-1])
    assert td_step == mark_unvisited == 1          # compiled once: the meanwhile list has the search's types
    if len(os.sched_getaffinity(0)) >= 2:
        assert (loaded, compiled) == (1, 0)        # the search's types, as compile_aside said
