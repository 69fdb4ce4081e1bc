"""jaxtheory.sims.functional.kdtree_bound: the authors' deepening bound against depth."""

import math

import pytest

from jaxtheory.sims.functional.kdtree_bound import bound_at_depth


def test_bound_formula():
    # k ≤ 1 caps the mass at 1: at depth 12 the bound exceeds 1/3 whatever the data
    assert bound_at_depth(12, 100.0, 1.0) > 1 / 3
    assert bound_at_depth(16, 100.0, 1.0) < 1 / 3
    assert bound_at_depth(16, 100.0, 0.5) == pytest.approx(2 * bound_at_depth(16, 100.0, 1.0))
    # depth 0: the unit cube's half-diagonal sqrt(3)/2
    assert bound_at_depth(0, 100.0, 1.0) == pytest.approx(math.sqrt(200 / math.e) * math.sqrt(3) / 2)
