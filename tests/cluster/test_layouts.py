"""Every distributed layout across namespace hosts over TCP: the drivers of tests/distributed
check that each search equals the single-node one, validates, and sends exactly its schedule's
messages."""
import pytest

from helpers import DRIVER, DRIVER_2D, DRIVER_DELEGATES, ok_lines, run

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("fixture,per_host,graphs", [
    ("cluster3", 1, ["tiny", "directed", "kron8"]),
    pytest.param("cluster4", 2, ["disconnected", "kron10"], marks=pytest.mark.slow),
], ids=["3x1", "4x2"])
def test_1d_alltoall_and_butterfly(request, fixture, per_host, graphs):
    """alltoall and butterfly with fanouts 1, 2 and 4 (driver.CONFIGS)."""
    cluster = request.getfixturevalue(fixture)
    lines = ok_lines(run(cluster, [DRIVER, "check", *graphs], ranks_per_host=per_host, ALGORITHMS="do"))
    P = len(cluster.hosts) * per_host
    assert len(lines) == 4 * len(graphs) and all(line.endswith(f"P={P}") for line in lines), lines
