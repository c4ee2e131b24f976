"""``section.v1``: each heading with its body, up to the next heading of the same or a higher level.

A rule on sections tells the DP where the document's topics change: a cut inside a section
costs more than a cut where one starts, and nested sections stack their costs, so between two
chapters is cheaper than between two subsections, which is cheaper than between two
paragraphs of one subsection. Without it every blank line between paragraphs costs the same
and the DP fills chunks across section boundaries (fewer chunks is its only preference left).

The headings are the document's Markdown headings (the shared parse every stage reads); a
section ends where the next heading of its level or above starts, its trailing blank lines
left out, or at the end of the text.
"""

from __future__ import annotations

import numpy as np
from pydantic import Field, model_validator

from ..components.registry import detectors
from ..datatypes import SpanArrays, Structure, span_arrays
from .base import DetectContext, Detector, DetectorParams
from .markdown import shared_rows


def section_spans(text: str, headings: list[tuple[int, int]], min_level: int = 1,
                  max_level: int = 6) -> list[tuple[int, int]]:
    """``(start, end)`` of each section, in heading order.

    Args:
        text: the document text.
        headings: ``(start, level)`` of every heading, sorted by start.
        min_level: the highest heading level (smallest number) that opens a section.
        max_level: the lowest heading level that opens a section.
    """
    ends: dict[int, int] = {}
    open_: list[tuple[int, int]] = []  # the sections still open: (start, level), levels increasing
    for start, level in headings:
        while open_ and open_[-1][1] >= level:
            ends[open_.pop()[0]] = start
        open_.append((start, level))
    for start, _ in open_:
        ends[start] = len(text)
    out = []
    for start, level in headings:
        if not min_level <= level <= max_level:
            continue
        end = ends[start]
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            out.append((start, end))
    return out


@detectors.register("section.v1")
class SectionDetector(Detector):
    """A heading with its body (see the module docstring)."""

    class Params(DetectorParams):
        """Profile fields of ``section.v1``."""

        min_level: int = Field(default=1, ge=1, le=6, description="highest heading level that opens a section")
        max_level: int = Field(default=6, ge=1, le=6, description="lowest heading level that opens a section")

        @model_validator(mode="after")
        def _levels(self) -> "SectionDetector.Params":
            if self.min_level > self.max_level:
                raise ValueError(f"min_level ({self.min_level}) is larger than max_level ({self.max_level})")
            return self

    def _spans(self, ctx: DetectContext) -> list[tuple[int, int]]:
        p = self.params

        def build() -> list[tuple[int, int]]:
            heads = sorted((r[0], r[3] or 1) for r in shared_rows(ctx) if r[2] == "heading")
            return section_spans(ctx.text, heads, p.min_level, p.max_level)

        return ctx.memo(("section", p.min_level, p.max_level), build)

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """One structure per section, labelled with this structure's name."""
        return sorted((Structure(a, b, self.name) for a, b in self._spans(ctx)), key=lambda s: (s.start, s.end))

    def detect_arrays(self, ctx: DetectContext) -> SpanArrays:
        """:meth:`detect`'s spans as start and end arrays."""
        spans = sorted(self._spans(ctx))
        arr = np.array(spans, dtype=np.int64).reshape(-1, 2)
        return span_arrays((arr[:, 0].copy(), arr[:, 1].copy()))
