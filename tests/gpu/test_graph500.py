"""``breadth graph500 --device cuda``: the GPU engine through the Graph500 ``Engine`` protocol.

Same search keys, TEPS edge counts, levels and directions as the CPU engine; every tree validated.
"""
import json

import numpy as np
import pytest

from breadth.cli import main
from breadth.graph500 import Engine, Graph500Config, LocalEngine, run_benchmark


@pytest.fixture(scope="module")
def engine_cls(cuda):
    from breadth.graph500.engine_cuda import CudaEngine

    return CudaEngine


def _levels(searches):
    return [[(lv["direction"], lv["frontier"]) for lv in s["levels"]] for s in searches]


def test_cuda_engine_equals_the_cpu_engine(engine_cls):
    config = Graph500Config(scale=8, edgefactor=8, nroots=3, seed=2)
    gpu = run_benchmark(config, engine_cls(), progress=False)
    cpu = run_benchmark(config, LocalEngine(), progress=False)
    assert isinstance(engine_cls(), Engine)
    assert gpu.engine["engine"] == "cuda" and gpu.config.validate
    assert gpu.roots == cpu.roots and gpu.nedges == cpu.nedges and len(gpu.validate_times) == 3
    assert _levels(gpu.searches) == _levels(cpu.searches)
    assert gpu.graph == cpu.graph


def test_cli_graph500_device_cuda(cuda, tmp_path, capsys):
    out = tmp_path / "run.json"
    assert main(["graph500", "--scale", "7", "--edgefactor", "8", "--roots", "2", "--device", "cuda", "-q",
                 "--json", str(out)]) == 0
    assert "bfs  harmonic_mean_TEPS:" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["engine"]["engine"] == "cuda" and data["validated"] and data["NBFS"] == 2
    cpu = tmp_path / "cpu.json"
    assert main(["graph500", "--scale", "7", "--edgefactor", "8", "--roots", "2", "-q", "--json", str(cpu)]) == 0
    ref = json.loads(cpu.read_text())
    assert data["roots"] == ref["roots"] and data["nedges"] == ref["nedges"]
    np.testing.assert_array_equal([s["reached"] for s in data["searches"]], [s["reached"] for s in ref["searches"]])
