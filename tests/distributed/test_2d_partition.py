"""The 2D partition's grid arithmetic and options, without MPI: grids parsed and checked by API
names, the transpose sigma a bijection (the identity on 1 x P and P x 1, B2D's P(i,j) -> P(j,i) on
square grids), every arc's block in the row of its destination's owner and the column of its
source's range, and the fold schedule's message counts."""
import numpy as np
import pytest

from breadth.distributed import registry
from breadth.distributed.two_d.grid import Grid2D, check_params, default_grid, parse_grid
from breadth.distributed.owned.partition import balanced_bounds
from breadth.errors import InputError

GRIDS = [(1, 1), (1, 2), (2, 1), (1, 3), (3, 1), (2, 2), (2, 3), (3, 2), (3, 3), (4, 2)]


@pytest.mark.parametrize("P,want", [(1, (1, 1)), (2, (1, 2)), (4, (2, 2)), (6, (2, 3)), (7, (1, 7)),
                                    (9, (3, 3)), (12, (3, 4))])
def test_default_grid_is_the_most_square(P, want):
    assert default_grid(P) == want


@pytest.mark.parametrize("grid,P,message", [
    ("2x", 4, "not of the form RxC"), ("axb", 4, "not of the form RxC"), ((2,), 2, "not of the form RxC"),
    ("0x4", 4, "rows and columns must be >= 1"), ("2x3", 4, r"grid=2x3 needs 6 ranks, this job has 4"),
])
def test_grid_errors_name_the_parameter(grid, P, message):
    with pytest.raises(InputError, match=message):
        parse_grid(grid, P)


def test_grid_forms_and_params():
    assert parse_grid("2x3", 6) == parse_grid(" 2 X 3 ", 6) == parse_grid((2, 3), 6) == (2, 3)
    assert check_params({}, 6) == {"grid": "2x3"}
    assert check_params({"grid": (3, 2), "other": 1}, 6) == {"grid": "3x2", "other": 1}


def _grids(R, C, n=1000, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 50, (n + 63) // 64)
    bounds = balanced_bounds(w, n, R * C)
    return [Grid2D(bounds, r, R, C) for r in range(R * C)]


@pytest.mark.parametrize("R,C", GRIDS)
def test_transpose_is_a_bijection_onto_column_ranges(R, C):
    grids = _grids(R, C)
    g = grids[0]
    P = R * C
    sigma = [g.transposed(q) for q in range(P)]
    assert sorted(sigma) == list(range(P))
    assert all(g.transpose_source(sigma[q]) == q for q in range(P))
    for r, gr in enumerate(grids):
        q = gr.transpose_source(r)
        # the piece a rank receives lies in its column range, at its position in the column
        assert gr.col_lo <= gr.bounds[q] and gr.bounds[q + 1] <= gr.col_hi and q == gr.j * R + gr.i
        assert gr.bounds[gr.row_pieces()[0]] == gr.row_lo and gr.bounds[gr.row_pieces()[-1] + 1] == gr.row_hi
    if R == 1 or C == 1:
        assert sigma == list(range(P)) and g.transpose_senders() == 0
    if R == C:
        assert all(sigma[i * C + j] == j * C + i for i in range(R) for j in range(C))


@pytest.mark.parametrize("R,C", GRIDS)
def test_arc_blocks(R, C):
    grids = _grids(R, C, seed=3)
    g = grids[0]
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 1000, 500), rng.integers(0, 1000, 500)
    blocks = g.block_of(src, dst)
    for s, d, b in zip(src, dst, blocks):
        gb = grids[b]
        assert gb.col_lo <= s < gb.col_hi and gb.row_lo <= d < gb.row_hi
        assert gb.i == g.owner(d) // C             # the destination's owner is in the block's row


def test_scan_rounds():
    from breadth.distributed.two_d.scan_exchange import scan_rounds

    assert [scan_rounds(C) for C in range(1, 10)] == [0, 1, 2, 2, 3, 3, 3, 3, 4]


def test_the_parents_step_gathers_depths_at_the_narrowest_width():
    import numpy as np

    from breadth.distributed.two_d.scan_exchange import depth_dtype
    # every depth of a search of L levels and -1 (unreached) fit
    assert depth_dtype(6) == np.int8 and depth_dtype(127) == np.int8
    assert depth_dtype(128) == np.int16 and depth_dtype(40000) == np.int32
    assert depth_dtype(2 ** 31) == np.int64


def test_registry_has_the_2d_layouts():
    assert "2d" in registry.partitions() and registry.exchanges("2d") == ("fold", "scan")
    assert registry.get("2d", "scan").check_params is check_params
    layout = registry.get("2d")
    assert layout.exchange == "fold" and layout.check_params is check_params
    small = layout.estimate_bytes(1 << 10, 1 << 14, 4, _opts("2x2"), False)
    assert layout.estimate_bytes(1 << 20, 1 << 24, 4, _opts("2x2"), False) > small > 0
    with pytest.raises(InputError, match="needs 6 ranks"):
        layout.estimate_bytes(1 << 10, 1 << 14, 4, _opts("2x3"), False)


def _opts(grid):
    from breadth.distributed.search_base import SearchOptions

    return SearchOptions(params={"grid": grid})


def _args(**kw):
    import argparse

    base = dict(partition="auto", exchange=None, fanout=1, ranks=None, hostfile=None, grid=None)
    base.update(kw)
    return argparse.Namespace(**base)


def test_cli_grid_options(monkeypatch):
    from breadth.cli.dist_options import engine_options, partition_mode

    monkeypatch.delenv("OMPI_COMM_WORLD_SIZE", raising=False)
    assert partition_mode(_args(ranks=4, partition="2d", grid="2x2")) == "2d"
    assert partition_mode(_args(ranks=4, partition="2d", exchange="fold")) == "2d"
    assert partition_mode(_args(ranks=4, grid="2x2")) == "2d"    # under auto, a grid fixes the partition
    for kw in (dict(grid="2x2"), dict(partition="1d", grid="1x2")):
        with pytest.raises(InputError, match="--grid applies to --partition 2d"):
            partition_mode(_args(**kw))
    opts = engine_options(_args(ranks=4, partition="2d", grid="4x1", algorithm="do", alpha=14, beta=24,
                                threads=None))
    assert opts["partition"] == "2d" and opts["params"] == {"grid": "4x1"}
    assert engine_options(_args(ranks=4, partition="2d", algorithm="do", alpha=14, beta=24,
                                threads=None))["params"] == {}
