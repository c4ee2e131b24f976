"""``rc.v1``: References Completeness = 1 − the paper's "filtered missing reference error".

Paper §1.5. Each entity→pronoun pair ``[[e_start, e_end], [p_start, p_end]]`` (inclusive ends)
is reordered so the span that starts first comes first (about 10% are cataphoric); with ``a``
the start of the first span and ``b`` the inclusive end of the second, the pair is *missing*
iff some boundary ``x`` has ``a < x ≤ b``. Boundaries are the core starts of chunks 2..n plus
the ends of chunks 1..n−1 (equal sets without overlap), taken from the chunks' exact offsets.
The paper located chunks by text search, which misplaces empty or repeated chunks (§9).

Pairs come from the coreference backend chosen by :func:`adachunk.models.coref.get_backend`;
it runs once per document (memoised in the :class:`MetricContext`) and every candidate chunking
of the document reuses the pairs. Pairs outside the text are dropped and reported in
``reason``. None when there are no chunks, no backend, or no pairs.
"""

from __future__ import annotations

import bisect
from typing import Any

from ..components.registry import metrics
from ..datatypes import Chunk
from .base import Metric, MetricContext, MetricResult
from .blocks import cut_points
from ..models.coref import PairSet, pairs_for, spec_key


def _spec(ctx: MetricContext) -> tuple[Any, str]:
    spec = ctx.settings.coref
    return spec, spec_key(spec)


def document_pairs(ctx: MetricContext) -> PairSet:
    """The document's pairs under the profile's ``metrics.coref`` spec (computed once per
    document and spec, shared with the DP's ``coref.pair.v1`` structures)."""
    return pairs_for(ctx.doc, ctx.settings.coref, ctx.memo)


def pair_extents(ps: PairSet) -> list[tuple[int, int, int]]:
    """``(a, b, i)`` per pair: start of the earlier span, inclusive end of the later one, index."""
    out = []
    for i, (ent, pron) in enumerate(ps.pairs):
        first, second = (pron, ent) if pron[0] < ent[0] else (ent, pron)
        out.append((first[0], second[1], i))
    return out


@metrics.register("rc.v1")
class ReferencesCompleteness(Metric):
    """1 − share of entity→pronoun pairs that a chunk boundary separates."""

    key = "rc"

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
        """Score one chunking; detail lists every missing pair with the boundary that cuts it."""
        if not chunks:
            return MetricResult(None, "no chunks")
        ps = document_pairs(ctx)
        if not ps.pairs:
            return MetricResult(None, ps.reason or "no entity→pronoun pairs")
        extents = ctx.memo(("rc.extents", _spec(ctx)[1]), lambda: pair_extents(ps))
        bounds = cut_points(chunks, with_ends=True)
        detail = []
        for a, b, i in extents:
            k = bisect.bisect_right(bounds, a)  # first boundary x > a
            if k < len(bounds) and bounds[k] <= b:
                ent, pron = ps.pairs[i]
                detail.append({"entity": list(ent), "pronoun": list(pron), "boundary": bounds[k]})
        note = ps.reason if ps.dropped else None
        return MetricResult(1.0 - len(detail) / len(ps.pairs), note, detail)
