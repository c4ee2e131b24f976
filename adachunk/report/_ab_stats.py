"""Statistics of an A/B comparison: paired tests, bootstrap intervals, size distributions.

Every function takes plain lists of numbers and returns plain JSON-able values, so the same
helpers serve ``summary.json``, the HTML report and the CI gate, and can be checked by hand.
Metric values enter as fractions in [0, 1] and leave as percentage points (×100), the unit of
``adachunk run``'s summary and of ``--fail-if`` thresholds.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Sequence

import numpy as np

from ..datatypes import METRIC_KEYS

#: the metrics an A/B compares: the five intrinsic ones and "score", the profile's weighted score
METRICS = (*METRIC_KEYS, "score")

MIN_NONZERO_PAIRS = 5  # below this a signed-rank p-value says nothing; report None instead
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20240607  # fixed: the same two runs always give the same interval
DIGITS = 4  # rounding of percentage-point outputs (values are 6-decimal fractions ×100)


def to_points(value: float | None) -> float | None:
    """A metric fraction as percentage points (None stays None)."""
    return None if value is None else round(100.0 * float(value), DIGITS)


def paired_deltas(a: Sequence[float | None], b: Sequence[float | None]) -> list[float]:
    """B − A for every pair where both values are defined (same units as the inputs).

    Rounded to :data:`DIGITS` so that equal inputs give an exact zero rather than float dust
    (the signed-rank test treats zero differences specially).
    """
    return [round(float(y) - float(x), DIGITS) for x, y in zip(a, b) if x is not None and y is not None]


def wilcoxon_p(deltas: Sequence[float]) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value of paired differences (``scipy.stats.wilcoxon``).

    Zero differences are kept with ``zero_method="zsplit"``: their ranks are split evenly
    between the positive and negative sides, so documents where the profiles agree pull the
    test towards "no difference" instead of being silently dropped (``"wilcox"``) — an A/B
    where most documents are unchanged should not look significant because of a few.
    scipy's ``method="auto"`` then decides how the p-value is computed, deterministically:
    the exact distribution for up to 50 distinct non-zero differences; with zeros or ties, all
    sign flips enumerated for up to 13 pairs (where flipping a zero changes nothing, so the
    zeros cannot manufacture significance) and the tie-corrected normal approximation above.

    Returns:
        The p-value in [0, 1], or None when fewer than :data:`MIN_NONZERO_PAIRS` differences
        are non-zero.
    """
    d = np.asarray(deltas, dtype=float)
    if int(np.count_nonzero(d)) < MIN_NONZERO_PAIRS:
        return None
    from scipy.stats import wilcoxon

    p = float(wilcoxon(d, zero_method="zsplit", alternative="two-sided").pvalue)
    return None if math.isnan(p) else round(min(max(p, 0.0), 1.0), 6)


def bootstrap_ci(deltas: Sequence[float], *, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
                 level: float = 0.95) -> list[float] | None:
    """Percentile bootstrap interval of the mean paired difference.

    Documents are resampled with replacement (each resample keeps A and B of a document
    together: the pairing is the point of an A/B on one corpus). A fixed seed makes the
    interval a pure function of the inputs.

    Returns:
        ``[low, high]``, or None without any pair.
    """
    d = np.asarray(deltas, dtype=float)
    if d.size == 0:
        return None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, size=(resamples, d.size))
    means = d[idx].mean(axis=1)
    tail = 100.0 * (1.0 - level) / 2.0
    lo, hi = np.percentile(means, [tail, 100.0 - tail])
    return [round(float(lo), DIGITS), round(float(hi), DIGITS)]


def mean_or_none(values: Sequence[float | None]) -> float | None:
    """Mean of the defined values (None when there is none)."""
    vals = [float(v) for v in values if v is not None]
    return round(statistics.fmean(vals), DIGITS) if vals else None


def compare_metric(a: Sequence[float | None], b: Sequence[float | None]) -> dict[str, Any]:
    """One metric's A/B record from per-document values in percentage points (aligned lists).

    ``mean_a``/``mean_b`` average each side over the documents where it is defined; ``delta``
    is the mean of the paired differences (documents where both are defined, ``n`` of them),
    which equals ``mean_b - mean_a`` whenever no value is missing.
    """
    d = paired_deltas(a, b)
    return {
        "mean_a": mean_or_none(a), "mean_b": mean_or_none(b),
        "delta": mean_or_none(d), "ci95": bootstrap_ci(d), "p_value": wilcoxon_p(d),
        "n": len(d), "nonzero": sum(1 for x in d if x != 0),
        "b_higher": sum(1 for x in d if x > 0), "a_higher": sum(1 for x in d if x < 0),
    }


def outcome(score_a: float | None, score_b: float | None) -> str:
    """Per-document verdict on the weighted score: ``b_better``, ``a_better``, ``tie`` or ``not_comparable``."""
    if score_a is None or score_b is None:
        return "not_comparable"
    diff = round(float(score_b) - float(score_a), 9)  # decision scores carry 6 decimals
    return "tie" if diff == 0 else ("b_better" if diff > 0 else "a_better")


def distribution(values: Sequence[int | float]) -> dict[str, Any]:
    """Count, mean, median, p10, p90, min and max of sizes (``{"count": 0}`` when empty).

    Percentiles use numpy's default linear interpolation.
    """
    if not values:
        return {"count": 0}
    v = np.asarray(values, dtype=float)
    p10, p50, p90 = np.percentile(v, [10, 50, 90])
    return {"count": int(v.size), "mean": round(float(v.mean()), 2), "median": round(float(p50), 2),
            "p10": round(float(p10), 2), "p90": round(float(p90), 2), "min": int(v.min()), "max": int(v.max())}


def cut_difference(cuts_a: Sequence[int], cuts_b: Sequence[int]) -> dict[str, Any]:
    """Cuts only in A, only in B, and their number (the symmetric difference)."""
    sa, sb = set(cuts_a), set(cuts_b)
    only_a, only_b = sorted(sa - sb), sorted(sb - sa)
    return {"only_a": only_a, "only_b": only_b, "differing_cuts": len(only_a) + len(only_b),
            "shared_cuts": len(sa & sb)}
