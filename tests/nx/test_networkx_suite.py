"""networkx's own tests for the backend's functions pass when run through the backend.

Both configurations of networkx's backend test mode (see ``networkx_suite``): zero
failures and errors, and breadth's functions were called (all of them with fallback).
"""
import pytest

import networkx_suite
from breadth.nx.interface import FUNCTIONS   # the interface module registers every function

pytestmark = pytest.mark.skipif(not networkx_suite.available(), reason="networkx's test modules are not installed")


@pytest.mark.parametrize("fallback", [False, True], ids=["no-fallback", "fallback-to-nx"])
def test_networkx_suite_through_breadth(fallback):
    res = networkx_suite.run(fallback)
    c = res["counts"]
    assert res["returncode"] == 0 and c["failed"] == 0 and c["errors"] == 0, res["tail"]
    assert c["passed"] >= (700 if fallback else 50), c
    assert sum(res["calls"].values()) > 0 and res["conversions"].get("networkx", 0) > 0
    if fallback:
        assert set(res["calls"]) == set(FUNCTIONS), set(FUNCTIONS) - set(res["calls"])
