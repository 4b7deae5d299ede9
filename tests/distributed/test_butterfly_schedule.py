"""The butterfly network of exchange_butterfly: complete, symmetric, ceil(log_(f+1) P) rounds,
P*f*log_(f+1) P messages per level for P a power of f + 1, and the documented counts for other P."""
import math

import pytest

from breadth.distributed.one_d.butterfly_exchange import (butterfly_schedule, formula_messages, messages_per_level,
                                             num_rounds)
from breadth.errors import InputError


@pytest.mark.parametrize("f", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("P", list(range(1, 41)) + [64, 81, 100, 125, 243, 256])
def test_schedule_completes_every_rank(P, f):
    rounds = butterfly_schedule(P, f)
    k = 0 if P == 1 else math.ceil(round(math.log(P, f + 1), 9))
    assert len(rounds) == k == num_rounds(P, f)
    known = [{h} for h in range(P)]
    for rnd in rounds:
        for h in range(P):
            assert h not in rnd[h]
            for p in rnd[h]:
                assert h in rnd[p]          # symmetric: every send has its receive
        known = [known[h].union(*(known[p] for p in rnd[h])) for h in range(P)]
    assert all(len(s) == P for s in known)


@pytest.mark.parametrize("f,P", [(1, 2), (1, 4), (1, 8), (1, 16), (1, 64), (2, 3), (2, 9), (2, 27), (3, 4),
                                 (3, 16), (3, 64), (4, 5), (4, 25), (4, 125)])
def test_paper_formula_for_powers(f, P):
    k = round(math.log(P, f + 1))
    assert formula_messages(P, f) == P * f * k == messages_per_level(P, f)
    assert all(len(p) == f for rnd in butterfly_schedule(P, f) for p in rnd)


def test_paper_examples():
    assert messages_per_level(16, 1) == 64      # Green, Sec. 3: fanout one, 16 nodes
    assert messages_per_level(16, 3) == 96      # the paper's radix-4 network: 128 counting each node's own block
    assert messages_per_level(16, 3) + 16 * 2 == 128


def test_counts_for_other_P_as_documented():
    assert [messages_per_level(P, 1) for P in (3, 5, 6, 7, 9)] == [6, 14, 18, 22, 32]
    assert [messages_per_level(P, 2) for P in (2, 4, 5, 8)] == [2, 12, 16, 32]
    assert [messages_per_level(P, 4) for P in (2, 3, 4, 8)] == [2, 6, 12, 44]
    for P in range(2, 60):
        for f in (1, 2, 4):
            assert formula_messages(P, f) in (None, messages_per_level(P, f))
            assert messages_per_level(P, f) <= P * (P - 1) * num_rounds(P, f)


def test_no_rank_is_a_hot_spot_going_from_8_to_9():
    # the paper's fanout-one network puts one rank against eight others at P = 9; hosting spreads them
    worst = max(len(p) for rnd in butterfly_schedule(9, 1) for p in rnd)
    assert worst <= 2


@pytest.mark.parametrize("P,f", [(0, 1), (4, 0), (4, -1)])
def test_bad_arguments(P, f):
    with pytest.raises(InputError):
        butterfly_schedule(P, f)
