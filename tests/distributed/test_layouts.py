"""The engine's extension points without MPI: the layout registry, the Partition and Exchange
interfaces (kernel maps answer as the Python methods do), the runtime's thread helpers."""
import dataclasses
import inspect

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from breadth.distributed import Exchange, OneD, Partition, registry, runtime
from breadth.distributed.one_d.butterfly_exchange import Butterfly
from breadth.distributed.owned.alltoall import AllToAll
from breadth.distributed.owned.partition import balanced_bounds, global_of, local_of, owner_of
from breadth.distributed.search_base import DistSearch, SearchOptions
from breadth.errors import InputError


def test_registry_lists_the_1d_layouts():
    assert registry.partitions() == ("1d", "2d", "delegates")
    assert registry.exchanges("1d") == ("alltoall", "butterfly")
    assert registry.default_exchange("1d") == "butterfly"
    assert registry.get("1d").exchange == "butterfly"
    for exchange in registry.exchanges("1d"):
        layout = registry.get("1d", exchange)
        assert issubclass(layout.search, DistSearch)
        assert not inspect.isabstract(layout.search)
        for fn in (layout.build, layout.slice_native, layout.validate, layout.estimate_bytes):
            assert callable(fn)
        assert issubclass(layout.partition_type, OneD) and layout.cost is not None
        small = layout.estimate_bytes(1 << 10, 1 << 14, 4, SearchOptions(), False)
        assert layout.estimate_bytes(1 << 20, 1 << 24, 4, SearchOptions(), False) > small > 0


@pytest.mark.parametrize("partition,exchange,message", [
    ("2x", None, "unknown partition '2x'; choose from 1d, 2d"),
    ("1d", "fold", "unknown exchange 'fold' for partition '1d'; choose from alltoall, butterfly"),
])
def test_registry_names_the_choices(partition, exchange, message):
    with pytest.raises(InputError, match=message):
        registry.get(partition, exchange)


def test_registry_refuses_a_second_default():
    layout = registry.get("1d", "alltoall")
    twin = dataclasses.replace(layout, exchange="alltoall-copy", default=True)
    with pytest.raises(ValueError, match="default exchange"):
        registry.register(twin)
    assert "alltoall-copy" not in registry.exchanges()


def test_exchanges_implement_the_interface():
    for cls in (AllToAll, Butterfly):
        assert issubclass(cls, Exchange) and not inspect.isabstract(cls)
    assert inspect.isabstract(Exchange) and inspect.isabstract(Partition)


@pytest.mark.parametrize("kw,message", [
    (dict(algorithm="xx"), "unknown algorithm"), (dict(alpha=0), "alpha and beta must be positive"),
    (dict(fanout=0), "fanout must be a positive integer"), (dict(encoding="zip"), "unknown butterfly encoding"),
])
def test_search_options_checked_by_api_names(kw, message):
    with pytest.raises(InputError, match=message):
        SearchOptions(**kw).checked()
    assert SearchOptions(alpha=2, beta=3).checked().alpha == 2.0


@njit(cache=True)
def _ask(pmap, vs, locs):
    out = np.empty((vs.size, 2), dtype=np.int64)
    glob = np.empty(locs.size, dtype=np.int64)
    for k in range(vs.size):
        out[k, 0] = owner_of(pmap, vs[k])
        out[k, 1] = local_of(pmap, vs[k])
    for k in range(locs.size):
        glob[k] = global_of(pmap, locs[k])
    return out, glob


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 2000), P=st.integers(1, 9), seed=st.integers(0, 2**31))
def test_kernel_map_answers_as_the_partition(n, P, seed):
    rng = np.random.default_rng(seed)
    bounds = balanced_bounds(rng.integers(0, 50, (n + 63) // 64), n, P)
    v = np.arange(n, dtype=np.int64)
    for r in range(P):
        part = OneD(bounds, r)
        owners, glob = _ask(part.kernel_map(), v, np.arange(part.num_local, dtype=np.int64))
        assert np.array_equal(owners[:, 0], part.owner(v))
        mine = part.owns(v)
        assert np.array_equal(owners[mine, 1], part.to_local(v[mine]))
        assert np.all(owners[~mine, 1] == -1)
        assert np.array_equal(glob, part.to_global(np.arange(part.num_local)))
        assert part.local_counts().sum() == n and part.local_counts()[r] == part.num_local
        assert part.word_counts().sum() == (n + 63) // 64


def test_numba_threads_restores_the_setting():
    before = numba.get_num_threads()
    with runtime.numba_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before
    with runtime.numba_threads(None):
        assert numba.get_num_threads() == before


@pytest.mark.parametrize("bad", [0, -1, 2.5, "two", 10**6])
def test_thread_counts_checked_by_api_name(bad):
    with pytest.raises(InputError, match="threads must be an integer between 1 and"):
        runtime.check_threads(bad)
    assert runtime.check_threads(None) is None and runtime.check_threads(1) == 1


def test_world_from_the_launcher_environment(monkeypatch):
    for key in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_RANK",
                "PMI_RANK", "PMIX_RANK"):
        monkeypatch.delenv(key, raising=False)
    assert runtime.world_size_from_env() is None and runtime.world_rank_from_env() is None
    monkeypatch.setenv("PMI_SIZE", "5")
    monkeypatch.setenv("PMI_RANK", "3")
    assert runtime.world_size_from_env() == 5 and runtime.world_rank_from_env() == 3
    assert runtime.agree(None, None) is None
    with pytest.raises(InputError) as info:
        runtime.agree(None, InputError("alone"))
    assert info.value.collective


LIGHT = """
import sys
from numba.core.registry import CPUDispatcher
import breadth.distributed
from breadth.distributed import registry
assert registry.layouts() and registry.params()
compiled = [f"{m}.{k}" for m, mod in list(sys.modules.items()) if m.startswith("breadth.")
            for k, v in vars(mod).items() if isinstance(v, CPUDispatcher) and v.signatures]
print("mpi4py" in sys.modules, compiled)
"""


def test_describing_the_layouts_stays_light():
    """Importing breadth.distributed and reading every layout's description loads no mpi4py and
    compiles (or loads) no kernel."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", LIGHT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "[]"]
