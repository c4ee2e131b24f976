"""What the profile marks for metadata (``emit:``), and the spans of those structures.

The spans come from the document's analysis (:meth:`DocumentAnalysis.spans`): the very spans
the DP was given, detected once per document and never again here.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

from ..analysis import analysis_of
from ..detect.base import DetectContext
from ..datatypes import Document


def emitted(policy: Any) -> dict[str, list[str]]:
    """emit kind → structure labels (profile order) of the policy's detectors."""
    out: dict[str, list[str]] = {}
    for label, det in (getattr(policy, "detectors", None) or {}).items():
        kind = getattr(getattr(det, "params", None), "emit", None)
        if kind:
            out.setdefault(kind, []).append(label)
    return out


def spans_of(doc: Document, policy: Any, labels: list[str], ctx: Any = None) -> dict[str, list[tuple[int, int]]]:
    """label → sorted ``(start, end)`` spans of the named structures in ``doc``."""
    if not labels:
        return {}
    if not isinstance(ctx, DetectContext) or ctx.doc is not doc:
        # the detectors' own context; the spans are the analysis's, detected once per document
        ctx = DetectContext(doc.text, doc, metrics=getattr(policy, "metrics", None))
    analysis = analysis_of(doc)
    out = {}
    for label in labels:
        starts, ends = analysis.spans(policy.detectors[label], ctx)
        out[label] = [(int(a), int(b)) for a, b in zip(starts, ends)]
    return out


@dataclass(frozen=True)
class ChunkLocator:
    """Which chunk holds a document position (by the chunks' core spans, which tile the text)."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def of(cls, records: list[dict[str, Any]]) -> "ChunkLocator":
        """The locator of one document's chunk records (in index order)."""
        return cls(tuple(core_start(r) for r in records), tuple(int(r["end"]) for r in records))

    def at(self, pos: int) -> int | None:
        """Position in ``records`` of the chunk whose core span holds ``pos`` (None: outside)."""
        i = bisect.bisect_right(self.starts, pos) - 1
        if i < 0 or pos >= self.ends[i]:
            return None
        return i


def core_start(record: dict[str, Any]) -> int:
    """Start of a record's core span (its own text, without overlap copied from the previous chunk)."""
    return int(record.get("core_start", record["start"]))
