"""``--fail-if`` conditions of ``adachunk eval`` (the style of ``adachunk ab``'s gate).

``[delta] [RETRIEVER/]MEASURE OP NUMBER``:

* ``recall@5 < 0.8``: the first chunking's mean (a fraction in [0, 1]; ``tokens@k`` in tokens)
  with the first retriever.
* ``delta coverage@5 < 0``: the mean paired delta of each other chunking minus the first
  (B − A); it holds when it holds for any of them.
* ``hybrid/mrr < 0.5``: the same with the named retriever (which must be evaluated).

OP is ``<``, ``<=``, ``>`` or ``>=``. A condition that holds makes the command exit 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from ..report.ab import COMPARISONS

_MEASURE = r"(?:recall|span_recall|coverage|tokens)@\d+|mrr"
_COND = re.compile(rf"^\s*(delta\s+)?(?:(bm25|dense|hybrid)\s*/\s*)?({_MEASURE})\s*(<=|>=|<|>)\s*"
                   r"([-+]?(?:\d+\.?\d*|\.\d+))\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Condition:
    """One gate condition."""

    measure: str
    op: str
    threshold: float
    delta: bool = False
    retriever: str | None = None

    def __str__(self) -> str:
        head = ("delta " if self.delta else "") + (f"{self.retriever}/" if self.retriever else "")
        return f"{head}{self.measure} {self.op} {self.threshold:g}"


def parse_condition(expr: str) -> Condition:
    """Parse ``"recall@5 < 0.8"``, ``"delta coverage@5 < 0"`` or ``"hybrid/mrr < 0.5"``.

    Raises:
        ValueError: the expression does not have that shape (the message says what does).
    """
    m = _COND.match(expr)
    if not m:
        raise ValueError(f"bad condition {expr!r}: expected [delta] [RETRIEVER/]MEASURE OP NUMBER, MEASURE "
                         "one of recall@K, span_recall@K, coverage@K, tokens@K, mrr and OP one of <, <=, >, >= "
                         "(e.g. 'recall@5 < 0.8' or 'delta coverage@5 < 0')")
    return Condition(m.group(3).lower(), m.group(4), float(m.group(5)), bool(m.group(1)),
                     m.group(2).lower() if m.group(2) else None)


def check_gate(report: dict[str, Any], conditions: Iterable[Condition]) -> list[dict[str, Any]]:
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
                        "holds": value is not None and COMPARISONS[c.op](value, c.threshold)})
            continue
        if len(labels) < 2:
            raise ValueError(f"--fail-if {c}: a delta needs at least two chunkings")
        for label in labels[1:]:
            d = report["comparisons"][ret]["deltas"][label][c.measure]["delta"]
            out.append({"condition": str(c), "retriever": ret, "chunking": f"{label} - {labels[0]}", "value": d,
                        "holds": d is not None and COMPARISONS[c.op](d, c.threshold)})
    return out
