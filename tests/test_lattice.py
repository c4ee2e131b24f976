"""Punishment shapes and the cost lattice."""

from __future__ import annotations

import numpy as np
import pytest

from adachunk.cost.lattice import CostRule, breakdown, build_costs, rule_cost
from adachunk.cost.punishments import make_shape
from adachunk.errors import ProfileError
from adachunk.datatypes import Structure

P = np.arange(21, dtype=np.int64)
SPANS = [Structure(2, 12, "p"), Structure(15, 19, "p")]


def on(shape, scale=10, width=None):
    return rule_cost(P, SPANS, CostRule("r", "p", on=make_shape(shape, scale, width)), 20)[0].tolist()


def off(shape, scale=10, width=None):
    return rule_cost(P, SPANS, CostRule("r", "p", off=make_shape(shape, scale, width)), 20)[1].tolist()


def test_const_is_strictly_inside():
    v = on("const")
    assert [i for i, x in enumerate(v) if x] == [3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18]
    assert set(x for x in v if x) == {10}


def test_off_covers_gap_until_next_structure():
    v = off("const")
    assert [i for i, x in enumerate(v) if x] == [12, 13, 14, 19]


def test_linear_shapes():
    assert on("linear")[3:12] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert on("reverse_linear")[3:12] == [9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert on("triangular")[3:12] == [2, 4, 6, 8, 10, 8, 6, 4, 2]
    assert on("inverse_triangular")[3:12] == [8, 6, 4, 2, 0, 2, 4, 6, 8]


def test_width_makes_decay_absolute():
    assert off("reverse_linear", 50, width=50)[12:15] == [50, 49, 48]
    assert on("linear", 10, width=2)[3:6] == [5, 10, 10]


def test_nested_const_uses_difference_array():
    nested = [Structure(i, 100 - i, "n") for i in range(40)]
    P2 = np.arange(101, dtype=np.int64)
    v = rule_cost(P2, nested, CostRule("r", "n", on=make_shape("const", 1)), 100)[0]
    assert v[50] == 40 and v[1] == 1 and v[0] == 0


def test_breakdown_sums_to_cost():
    rules = [CostRule("a", "p", on=make_shape("const", 7)), CostRule("b", "p", on=make_shape("triangular", 9)),
             CostRule("c", "p", off=make_shape("reverse_linear", 5))]
    total = build_costs(P, {"p": SPANS}, rules, 20)
    idx = [4, 8, 13, 17]
    for i, parts in zip(idx, breakdown(P, idx, {"p": SPANS}, rules, 20)):
        assert sum(c.value for c in parts) == total[i]


def test_unknown_shape_is_coded_error():
    with pytest.raises(ProfileError) as exc:
        make_shape("triangle", 1)
    assert exc.value.code == "ADA205" and "triangular" in exc.value.render()
