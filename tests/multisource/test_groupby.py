"""GroupBy rules, random grouping and the sharing degree (iBFS section 5)."""
import numpy as np
import pytest

import breadth
from breadth.multisource import msbfs
from breadth.multisource.groupby import make_groups, random_groups, rule_groups, sharing_degree


def _is_partition(groups, size, group_size):
    flat = np.concatenate(groups)
    assert np.array_equal(np.sort(flat), np.arange(size))
    assert all(len(g) == group_size for g in groups[:-1]) and 1 <= len(groups[-1]) <= group_size


@pytest.mark.parametrize("group_size", [1, 7, 64, 1000])
def test_groups_partition_the_sources(group_size):
    g = breadth.kronecker(10, seed=2)
    sources = np.random.default_rng(1).integers(0, 1024, 300)
    _is_partition(rule_groups(g, sources, group_size), 300, group_size)
    _is_partition(random_groups(300, group_size, seed=3), 300, group_size)
    a = random_groups(300, group_size, seed=3)
    b = random_groups(300, group_size, seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def _two_hubs():
    """Hub 0 (degree 200) and hub 1 (degree 150) with their own leaves; leaves 2..201 hang on hub 0,
    202..351 on hub 1; leaves 2..11 also link to 352.. (degree 3 instead of 1); 400 is isolated."""
    src = np.concatenate([np.zeros(200), np.ones(150), np.arange(2, 12), np.arange(2, 12)])
    dst = np.concatenate([np.arange(2, 202), np.arange(202, 352), np.arange(352, 362), np.arange(362, 372)])
    return breadth.Graph.from_edges(src.astype(np.int64), dst.astype(np.int64), num_vertices=401)


def test_rules_group_sources_by_shared_hub_and_degree():
    g = _two_hubs()
    rng = np.random.default_rng(0)
    leaves0 = rng.choice(np.arange(12, 202), 20, replace=False)      # degree 1, hub 0
    leaves0_deg3 = np.arange(2, 12)                                    # degree 3, hub 0
    leaves1 = rng.choice(np.arange(202, 352), 30, replace=False)      # degree 1, hub 1
    sources = np.concatenate([[400], leaves1[:15], leaves0_deg3, leaves0, [0], leaves1[15:]])
    rng.shuffle(sources)
    groups = rule_groups(g, sources, 10, p_values=(2, 4, 16), q=100)
    picked = [sources[grp] for grp in groups]
    # biggest hub first: its degree-1 leaves (p class 2), then its degree-3 leaves (p class 4)
    assert set(np.concatenate(picked[:2])) == set(leaves0)
    assert set(picked[2]) == set(leaves0_deg3)
    assert set(np.concatenate(picked[3:6])) == set(leaves1)
    # hub 0 itself (degree 200 >= max p) is grouped with the rest; the isolated source goes last
    assert sources[groups[-1][-1]] == 400
    assert 0 in set(np.concatenate(picked[6:]))


def test_rule_arguments_are_checked():
    g = _two_hubs()
    with pytest.raises(breadth.InputError):
        rule_groups(g, [1, 2], 0)
    with pytest.raises(breadth.InputError):
        rule_groups(g, [1, 2], 4, p_values=())
    with pytest.raises(breadth.InputError):
        rule_groups(g, [1, 2], 4, q=-1)
    with pytest.raises(breadth.InputError):
        make_groups(g, [1, 2], 4, method="degree")


def test_sharing_degree_bounds():
    g = breadth.kronecker(9, seed=5)
    same = msbfs(g, np.full(64, 7), words=1)          # 64 copies of one source share every frontier
    assert same.sharing_degrees[0] == pytest.approx(64.0)
    alone = msbfs(g, [7], words=1)
    assert alone.sharing_degrees[0] == pytest.approx(1.0)
    stats = np.array([[0, 0, 2, 0, 2, 2], [0, 0, 2, 9, 5, 3]])
    assert sharing_degree(stats) == pytest.approx(7 / 5)
    # equation 1: sum over instances of reached vertices / sum over levels of |JFQ|
    res = msbfs(g, np.arange(0, 512, 3), words=2)
    for r in res.group_results:
        assert r.stats[:, 4].sum() == r.hist.sum()
        assert r.sharing_degree == pytest.approx(r.hist.sum() / r.stats[:, 5].sum())


def test_rules_share_more_than_random_on_kronecker():
    g = breadth.kronecker(12, seed=1)
    sources = np.random.default_rng(0).choice(np.flatnonzero(g.degree() > 0), 1024, replace=False)
    rules = msbfs(g, sources, groupby="rules", words=1).sharing_degrees.mean()
    rand = msbfs(g, sources, groupby="random", words=1).sharing_degrees.mean()
    assert rules > 1.15 * rand
