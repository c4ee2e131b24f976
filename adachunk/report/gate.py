"""The ``--fail-if`` gates of ``adachunk ab`` and ``adachunk eval``: a condition per flag, each
checked on the command's summary; one that holds makes the command exit 1.

* ``ab`` (:func:`parse_metric_condition`): ``METRIC OP NUMBER`` on a metric's mean paired delta
  B − A in percentage points (``bi < -0.5``, ``rf < -0.5``).
* ``eval`` (:func:`parse_measure_condition`): ``[delta] [RETRIEVER/]MEASURE OP NUMBER``:

  * ``recall@5 < 0.8``: the first chunking's mean (a fraction in [0, 1]; ``tokens@k`` in
    tokens) with the first retriever.
  * ``delta coverage@5 < 0``: the mean paired delta of each other chunking minus the first
    (B − A); it holds when it holds for any of them.
  * ``hybrid/mrr < 0.5``: the same with the named retriever (which must be evaluated).

OP is ``<``, ``<=``, ``>`` or ``>=`` in both; a value that is missing never holds.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any, Iterable

from ._ab_stats import METRICS

#: the comparison operators of a condition
COMPARISONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
# the tail both grammars share: OP NUMBER to the end
_OP_NUMBER = r"\s*(<=|>=|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*$"


def holds(value: float | None, op: str, threshold: float) -> bool:
    """Whether ``value OP threshold`` (a missing value never holds)."""
    return value is not None and COMPARISONS[op](value, threshold)


# --- adachunk ab: metric deltas ----------------------------------------------------------------

# the longer name first where one starts another (bi_cut before bi)
_METRIC_COND = re.compile(rf"^\s*({'|'.join(sorted(METRICS, key=len, reverse=True))}){_OP_NUMBER}")


@dataclass(frozen=True)
class MetricCondition:
    """A ``--fail-if`` condition on a metric's mean paired delta B − A (percentage points)."""

    metric: str
    op: str
    threshold: float

    def __str__(self) -> str:
        return f"{self.metric} {self.op} {self.threshold:g}"


def parse_metric_condition(expr: str) -> MetricCondition:
    """Parse ``"bi < -0.5"`` (metric, one of ``< <= > >=``, a number).

    Raises:
        ValueError: the expression does not have that shape (the message says what does).
    """
    m = _METRIC_COND.match(expr)
    if not m:
        raise ValueError(f"bad condition {expr!r}: expected METRIC OP NUMBER with METRIC one of "
                         f"{', '.join(METRICS)} and OP one of <, <=, >, >= (e.g. 'bi < -0.5')")
    return MetricCondition(m.group(1), m.group(2), float(m.group(3)))


def check_metric_gate(summary: dict[str, Any], conditions: Iterable[MetricCondition]) -> list[dict[str, Any]]:
    """Evaluate each condition on ``summary["metrics"][metric]["delta"]``.

    A condition on a metric without any paired value (e.g. RC on documents without coreference
    pairs) cannot hold: it is reported with ``holds: false`` and ``delta: null``.
    """
    results = []
    for c in conditions:
        delta = summary["metrics"][c.metric]["delta"]
        results.append({"condition": str(c), "metric": c.metric, "delta": delta, "holds": holds(delta, c.op, c.threshold)})
    return results


# --- adachunk eval: retrieval measures ---------------------------------------------------------

_MEASURE = r"(?:recall|span_recall|coverage|tokens)@\d+|mrr"
_MEASURE_COND = re.compile(rf"^\s*(delta\s+)?(?:(bm25|dense|hybrid)\s*/\s*)?({_MEASURE}){_OP_NUMBER}", re.IGNORECASE)


@dataclass(frozen=True)
class MeasureCondition:
    """One condition of ``adachunk eval``'s gate: a retrieval measure, or its paired delta."""

    measure: str
    op: str
    threshold: float
    delta: bool = False
    retriever: str | None = None

    def __str__(self) -> str:
        head = ("delta " if self.delta else "") + (f"{self.retriever}/" if self.retriever else "")
        return f"{head}{self.measure} {self.op} {self.threshold:g}"


def parse_measure_condition(expr: str) -> MeasureCondition:
    """Parse ``"recall@5 < 0.8"``, ``"delta coverage@5 < 0"`` or ``"hybrid/mrr < 0.5"``.

    Raises:
        ValueError: the expression does not have that shape (the message says what does).
    """
    m = _MEASURE_COND.match(expr)
    if not m:
        raise ValueError(f"bad condition {expr!r}: expected [delta] [RETRIEVER/]MEASURE OP NUMBER, MEASURE "
                         "one of recall@K, span_recall@K, coverage@K, tokens@K, mrr and OP one of <, <=, >, >= "
                         "(e.g. 'recall@5 < 0.8' or 'delta coverage@5 < 0')")
    return MeasureCondition(m.group(3).lower(), m.group(4), float(m.group(5)), bool(m.group(1)),
                            m.group(2).lower() if m.group(2) else None)


def check_measure_gate(report: dict[str, Any], conditions: Iterable[MeasureCondition]) -> list[dict[str, Any]]:
    """Evaluate each condition on an eval report (``results`` and ``comparisons``).

    Raises:
        ValueError: a condition names a measure, retriever or delta the report does not have.
    """
    retrievers = list(report["results"])
    labels = [c["label"] for c in report["chunkings"]]
    out = []
    for c in conditions:
        ret = c.retriever or retrievers[0]
        if ret not in report["results"]:
            raise ValueError(f"--fail-if {c}: retriever {ret!r} was not evaluated ({', '.join(retrievers)})")
        first = report["results"][ret][labels[0]]
        if c.measure not in first:
            raise ValueError(f"--fail-if {c}: no measure {c.measure!r} (--k gives {', '.join(k for k in first if '@' in k)})")
        if not c.delta:
            value = first[c.measure]
            out.append({"condition": str(c), "retriever": ret, "chunking": labels[0], "value": value,
                        "holds": value is not None and holds(value, c.op, c.threshold)})
            continue
        if len(labels) < 2:
            raise ValueError(f"--fail-if {c}: a delta needs at least two chunkings")
        for label in labels[1:]:
            d = report["comparisons"][ret]["deltas"][label][c.measure]["delta"]
            out.append({"condition": str(c), "retriever": ret, "chunking": f"{label} - {labels[0]}", "value": d,
                        "holds": d is not None and holds(d, c.op, c.threshold)})
    return out
