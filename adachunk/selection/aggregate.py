"""One score per candidate chunking: the weighted mean of its metrics, and a deterministic winner.

What to do with a metric that is None (undefined for this input) is the profile's
``metrics.none_policy``:

* ``drop`` (the paper, §1.7/§5): ignore it and renormalise the remaining weights.
* ``neutral`` (the default): count it as 0.5. Dropping rewards degenerate outputs: a document
  under the size limit chunked into ONE chunk gets RC = BI = SC = 1 and DCC = None, so the
  paper's rule scores it on the three perfect metrics alone and it beats every real chunking of
  small documents (paper-spec §5). A neutral 0.5 neither rewards nor punishes what could not
  be measured.
* ``penalise``: count it as 0, for users who want every metric to be earned.

Ties go to the earliest candidate in profile order (the paper's pandas pivot broke ties by the
alphabetical order of method names, an accident of its storage).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

# the presets are policy data (``metrics.weights: finance``), kept with the policy types; still importable here
from ..policy_types import WEIGHT_PRESETS  # noqa: F401

NONE_POLICIES = ("drop", "neutral", "penalise")
_FILL = {"neutral": 0.5, "penalise": 0.0}
# Scores are rounded before comparison so that sums of the same values in a different order
# (last-bit float noise) still tie.
_TIE_DIGITS = 12


@dataclass(frozen=True)
class Aggregate:
    """A candidate's combined score.

    Attributes:
        score: the weighted mean in [0, 1], or None when no weighted metric has a value
            (``drop``) or the weights sum to 0.
        used: metric key → (value counted, weight) for every metric that entered the mean.
        filled: keys whose None was replaced (``neutral``/``penalise``) or dropped (``drop``).
    """

    score: float | None
    used: dict[str, tuple[float, float]] = field(default_factory=dict)
    filled: tuple[str, ...] = ()


def _value(v: Any) -> float | None:
    """A metric value from a MetricResult, a number or None."""
    v = getattr(v, "value", v)
    return None if v is None else float(v)


def aggregate(results: Mapping[str, Any], weights: Mapping[str, float], none_policy: str = "neutral") -> Aggregate:
    """Weighted mean of the metric values in ``results`` with the profile's ``weights``.

    Args:
        results: metric key → :class:`~adachunk.metrics.base.MetricResult` (or a float/None).
            A weighted key absent from ``results`` counts as None.
        weights: metric key → weight (non-negative); keys with weight 0 are ignored.
        none_policy: ``drop``, ``neutral`` or ``penalise`` (see module docstring).

    Raises:
        ValueError: unknown ``none_policy`` or a negative weight.
    """
    if none_policy not in NONE_POLICIES:
        raise ValueError(f"none_policy must be one of {NONE_POLICIES}, not {none_policy!r}")
    used: dict[str, tuple[float, float]] = {}
    filled = []
    for key, w in weights.items():
        w = float(w)
        if w < 0:
            raise ValueError(f"weight of {key} is negative ({w})")
        if w == 0:
            continue
        v = _value(results.get(key))
        if v is None:
            filled.append(key)
            if none_policy == "drop":
                continue
            v = _FILL[none_policy]
        used[key] = (v, w)
    total = sum(w for _, w in used.values())
    score = sum(v * w for v, w in used.values()) / total if total > 0 else None
    return Aggregate(score, used, tuple(filled))


def best_index(scores: Sequence[float | None], gap: float = 0.0) -> int | None:
    """Index of the winning candidate: the highest score, ties to the earliest in profile order.

    A later candidate wins only when it beats the best so far by more than ``gap`` (differences
    rounded to ``_TIE_DIGITS`` digits, so float noise ties); None scores lose to any number, and when every
    score is None the first candidate wins (a deterministic fallback). Returns None only for an
    empty sequence. ``select.choose`` applies this rule to the eligible candidates.
    """
    if not scores:
        return None
    best = 0
    for i in range(1, len(scores)):
        a, b = scores[i], scores[best]
        if a is not None and (b is None or round(a - b, _TIE_DIGITS) > gap):
            best = i
    return best
