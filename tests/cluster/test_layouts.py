"""Every distributed layout across namespace hosts over TCP: the drivers of tests/distributed
check on every rank that each search equals the single-node one, that the tree validates
(distributed and gathered), and that the messages are exactly the layout's schedule.
The fast set runs 3 hosts with 1 rank each; the larger ones (4 hosts, 2 ranks each) are slow."""
import pytest

from helpers import DRIVER, DRIVER_2D, DRIVER_DELEGATES, ok_lines, run

pytestmark = pytest.mark.mpi


def _cluster(request, hosts):
    return request.getfixturevalue({3: "cluster3", 4: "cluster4"}[hosts])


@pytest.mark.parametrize("hosts,per_host,graphs", [
    (3, 1, ["tiny", "directed", "kron8"]),
    pytest.param(4, 2, ["disconnected", "kron10"], marks=pytest.mark.slow),
], ids=["3x1", "4x2"])
def test_1d_alltoall_and_butterfly(request, warm, hosts, per_host, graphs):
    """alltoall, and butterfly with fanouts 1, 2 and 4 (driver.CONFIGS)."""
    lines = ok_lines(run(_cluster(request, hosts), [DRIVER, "check", *graphs], ranks_per_host=per_host,
                         ALGORITHMS="do", THREADS=1))
    P = hosts * per_host
    assert len(lines) == 4 * len(graphs) and all(line.endswith(f"P={P}") for line in lines), lines
    assert sum(" f=4 " in line for line in lines) == len(graphs)


@pytest.mark.parametrize("hosts,per_host,grid,graphs", [
    (3, 1, "1x3", ["tiny", "kron8"]),
    pytest.param(3, 1, "3x1", ["directed", "kron8"], marks=pytest.mark.slow),
    pytest.param(4, 1, "2x2", ["disconnected", "kron8"], marks=pytest.mark.slow),
    pytest.param(4, 2, "2x4", ["tiny", "kron8"], marks=pytest.mark.slow),
], ids=["1x3", "3x1", "2x2", "2x4"])
def test_2d_fold_and_scan(request, warm, hosts, per_host, grid, graphs):
    lines = ok_lines(run(_cluster(request, hosts), [DRIVER_2D, "check", grid, *graphs], ranks_per_host=per_host))
    assert len(lines) == 2 * len(graphs), lines
    assert {line.split()[3] for line in lines} == {"fold", "scan"}
    assert all(line.endswith(f"P={hosts * per_host}") and f" {grid} " in line for line in lines), lines


@pytest.mark.parametrize("hosts,per_host,thresholds,graphs", [
    (3, 1, "big,auto,4,0", ["star", "kron10"]),
    pytest.param(4, 2, "auto,16,64", ["directed", "kron10"], marks=pytest.mark.slow),
], ids=["3x1", "4x2"])
def test_delegates_thresholds(request, warm, hosts, per_host, thresholds, graphs):
    lines = ok_lines(run(_cluster(request, hosts), [DRIVER_DELEGATES, "check", *graphs], ranks_per_host=per_host,
                         THRESHOLDS=thresholds, ALGORITHMS="do", THREADS=1))
    assert len(lines) == len(graphs) * len(thresholds.split(",")), lines
    asked = [int(line.split(" asked=")[1].split()[0]) for line in lines]
    assert sum(asked) > 0, lines          # parents of nn vertices were asked across hosts
