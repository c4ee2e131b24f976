"""``semantic.shift.v1``: cutting between two similar neighbours costs more than at a topic shift.

The junction between two adjacent units (the document's blocks, or its sentences) is reported as
a small structure spanning the positions between them, *stacked* ``k`` times where ``k`` grows
with the cosine similarity of the two units' embeddings:

``k = round(levels * clip((cos - floor) / (1 - floor), 0, 1))``

so a ``const`` rule on it costs ``k × scale`` at that junction: 0 where the neighbours are no
more similar than ``floor`` (a topic shift, a good place to cut), ``levels × scale`` where they
are identical. Positions inside a unit get nothing (other rules price them).

The embeddings come from the document's span cache (:mod:`adachunk.models.embedders.spans`),
the same one ICC and DCC read; with ``units: blocks`` the units are exactly the block pieces
ICC embeds, so in ``adachunk run`` the vectors are computed once for both. The embedder is the
profile's ``metrics.embedder`` unless this structure names one.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from pydantic import Field

from ..components.registry import detectors
from ..datatypes import SpanArrays, Structure
from .base import DetectContext, Detector, DetectorParams


def unit_spans(ctx: DetectContext, units: str) -> list[tuple[int, int]]:
    """Adjacent units tiling the text from the first unit's start: ``[s_k, s_{k+1})``."""
    if units == "blocks":
        from ..models.embedders.blocks import block_starts

        starts = block_starts(ctx.document(), "auto", ctx.memo)[0]
    else:
        from .text_units import split_sentences

        starts = [a for a, _ in ctx.memo(("sentence.v1", ()), lambda: split_sentences(ctx.text, ()))]
    starts = sorted({s for s in starts if 0 <= s < len(ctx.text)})
    return [(a, b) for a, b in zip(starts, starts[1:] + [len(ctx.text)]) if b > a]


def junction_levels(vectors: np.ndarray, floor: float, levels: int) -> np.ndarray:
    """Stack count per junction between consecutive vectors (see module docstring)."""
    if len(vectors) < 2:
        return np.zeros(0, dtype=np.int64)
    sims = np.einsum("ij,ij->i", vectors[:-1], vectors[1:])
    scaled = np.clip((sims - floor) / max(1e-9, 1.0 - floor), 0.0, 1.0)
    return np.rint(levels * scaled).astype(np.int64)


@detectors.register("semantic.shift.v1")
class SemanticShiftDetector(Detector):
    """Junctions between similar neighbours, stacked by similarity (see module docstring)."""

    reads_metrics = ("embedder",)  # embedder None: the profile's metrics embedder

    class Params(DetectorParams):
        """Profile fields of ``semantic.shift.v1``."""

        units: Literal["blocks", "sentences"] = Field(
            default="blocks", description="what is compared: adjacent blocks (ICC's pieces) or adjacent sentences")
        embedder: dict[str, Any] | None = Field(
            default=None, description="embedder spec (None: the profile's metrics.embedder, sharing its span cache)")
        floor: float = Field(default=0.3, ge=-1.0, lt=1.0,
                             description="similarity at or below which a cut between two units costs nothing")
        levels: int = Field(default=10, ge=1, le=1000,
                            description="cost resolution: a junction between identical units is stacked this often")

    def spans(self, ctx: DetectContext) -> tuple[np.ndarray, np.ndarray]:
        """Junction spans, each repeated by its stack count (cached per document and settings)."""
        from ..models.embedders.spans import document_span_embeddings

        spec = self.params.embedder if self.params.embedder is not None else ctx.metrics.embedder
        key = ("semantic.shift", self.params.units, repr(spec), self.params.floor, self.params.levels)

        def compute():
            pieces = unit_spans(ctx, self.params.units)
            if len(pieces) < 2:
                return np.zeros(0, np.int64), np.zeros(0, np.int64)
            vecs = document_span_embeddings(ctx.document(), spec, ctx.memo).get(pieces)
            k = junction_levels(vecs, self.params.floor, self.params.levels)
            # a junction spans the gap between units: from the last visible character of one
            # (its trailing blank lines included) to the first character of the next, so every
            # cut between the two pays, wherever the tokens let it fall
            text = ctx.text
            lo = np.array([a + max(len(text[a:b].rstrip()), 1) - 1 for a, b in pieces[:-1]], dtype=np.int64)
            hi = np.array([b + 1 for _, b in pieces[:-1]], dtype=np.int64)
            return np.repeat(lo, k), np.repeat(hi, k)

        return ctx.memo(key, compute)

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """One structure per stacked junction (repeated spans are kept: rules stack)."""
        starts, ends = self.spans(ctx)
        return [Structure(int(a), int(b), self.name) for a, b in zip(starts, ends)]

    def detect_arrays(self, ctx: DetectContext) -> SpanArrays:
        """Starts and ends of :meth:`detect`'s spans."""
        starts, ends = self.spans(ctx)
        return starts.copy(), ends.copy()
