"""Weighted aggregation of metric values and the deterministic tie-break."""

from __future__ import annotations

import pytest

from adachunk.selection.aggregate import aggregate, best_index
from adachunk.metrics.base import MetricResult

W = {"sc": 0.2, "bi": 0.2, "rc": 0.2, "icc": 0.2, "dcc": 0.2}
# paper-spec §5: a single chunk on a small document gets RC = BI = SC = 1 and DCC = None
SINGLE = {"sc": 1.0, "bi": 1.0, "rc": 1.0, "icc": 0.7, "dcc": None}
REAL = {"sc": 1.0, "bi": 0.99, "rc": 0.98, "icc": 0.7, "dcc": 0.88}


@pytest.mark.parametrize("policy, expected", [
    ("drop", 3.7 / 4),          # the weights renormalise over the four present metrics
    ("neutral", (3.7 + 0.5) / 5),
    ("penalise", 3.7 / 5),
])
def test_none_policies(policy, expected):
    agg = aggregate(SINGLE, W, policy)
    assert agg.score == pytest.approx(expected)
    assert agg.filled == ("dcc",)
    assert ("dcc" in agg.used) == (policy != "drop")


def test_drop_favours_the_degenerate_single_chunk_and_neutral_does_not():
    real = aggregate(REAL, W, "drop").score
    assert real == pytest.approx(4.55 / 5)
    assert aggregate(SINGLE, W, "drop").score > real
    assert aggregate(SINGLE, W, "neutral").score < aggregate(REAL, W, "neutral").score


def test_accepts_metric_results_and_treats_absent_keys_as_none():
    results = {"sc": MetricResult(0.5), "bi": MetricResult(None, "no chunks")}
    assert aggregate(results, {"sc": 1, "bi": 1, "rc": 2}, "penalise").score == pytest.approx(0.5 / 4)
    assert aggregate(results, {"sc": 1, "bi": 1, "rc": 2}, "drop").score == pytest.approx(0.5)


def test_unequal_weights():
    assert aggregate({"sc": 1.0, "bi": 0.0}, {"sc": 3, "bi": 1}, "drop").score == pytest.approx(0.75)


def test_degenerate_inputs():
    assert aggregate({"sc": None}, {"sc": 1}, "drop").score is None  # nothing measured
    assert aggregate({"sc": 1.0}, {"sc": 0, "bi": 0}, "neutral").score is None  # no weight at all
    assert aggregate({"sc": 1.0, "bi": 0.0}, {"sc": 1, "bi": 0}, "drop").score == 1.0  # zero weight ignored
    with pytest.raises(ValueError, match="none_policy"):
        aggregate({}, W, "ignore")
    with pytest.raises(ValueError, match="negative"):
        aggregate({"sc": 1.0}, {"sc": -1}, "drop")


def test_best_index_tie_breaks_to_profile_order():
    assert best_index([0.8, 0.9, 0.9]) == 1
    assert best_index([0.1 + 0.2, 0.3]) == 0  # float noise still ties
    assert best_index([None, 0.1]) == 1
    assert best_index([None, None]) == 0
    assert best_index([]) is None
    assert best_index([0.80, 0.805], gap=0.01) == 0 and best_index([0.80, 0.82], gap=0.01) == 1  # min_score_gap
