import math

import numpy as np
import pytest

from breadth.graph500.stats import statistics, teps_statistics


def test_quartiles_follow_the_reference_definition():
    x = [5.0, 1.0, 3.0, 2.0, 4.0]
    s = statistics(x)
    assert s["min"] == 1 and s["max"] == 5 and s["median"] == 3
    # n = 5: Q1 = (x[1] + x[1]) / 2, Q3 = (x[3] + x[3]) / 2
    assert s["firstquartile"] == 2 and s["thirdquartile"] == 4
    assert s["stddev"] == pytest.approx(np.std(x, ddof=1))
    s = statistics([1.0, 2.0, 3.0, 4.0])
    # n = 4: Q1 = (x[0] + x[1]) / 2, median = (x[1] + x[2]) / 2, Q3 = (x[2] + x[3]) / 2
    assert (s["firstquartile"], s["median"], s["thirdquartile"]) == (1.5, 2.5, 3.5)


def test_teps_uses_harmonic_mean():
    times = np.array([1.0, 2.0, 4.0])
    nedges = np.array([100, 100, 100])
    t = teps_statistics(times, nedges)
    assert t["harmonic_mean"] == pytest.approx(3 / (1 / 100 + 1 / 50 + 1 / 25))
    assert t["max"] == 100 and t["min"] == 25 and t["median"] == 50
    s = times / nedges
    assert t["harmonic_stddev"] == pytest.approx(np.std(s, ddof=1) / (s.mean() ** 2 * math.sqrt(2)))
