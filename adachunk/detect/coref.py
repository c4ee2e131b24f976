"""``coref.pair.v1``: every entity→pronoun pair as a structure spanning the pair.

References Completeness counts a pair as missing when a chunk boundary ``x`` falls with
``a < x <= b`` (``a``: start of the earlier mention, ``b``: inclusive end of the later one).
This detector reports each pair as the span ``[a, b + 1)``, so a rule's ``on`` region (strictly
inside the span) is exactly the set of cuts that would break the pair; rules stack, so a cut
through k pairs costs k × scale.

The pairs come from the profile's coreference backend (``backend: metrics``, the default: the
``metrics.coref`` section, i.e. the document's precomputed pairs, the offline heuristic or
maverick), from the document alone (``backend: precomputed``: the pairs that ship with it, no
resolver ever runs, so chunking stays as fast as without pairs) or from a backend named here.
They are computed once per document and spec and shared with the RC metric (:func:`adachunk.models.coref.pairs_for`): the resolver never runs
twice. Pairs with offsets outside the text are dropped with a counted warning, as RC does; a
document without pairs has no structures.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..components.registry import detectors
from ..datatypes import Structure
from .base import DetectContext, Detector, DetectorParams


def pair_spans(pairs, max_chars: int | None = None) -> list[tuple[int, int]]:
    """``[a, b + 1)`` per pair (see module docstring), sorted; longer ones dropped if asked."""
    out = []
    for ent, pron in pairs:
        first, second = (pron, ent) if pron[0] < ent[0] else (ent, pron)
        a, end = int(first[0]), int(second[1]) + 1
        if end > a + 1 and (max_chars is None or end - a <= max_chars):
            out.append((a, end))
    out.sort()
    return out


@detectors.register("coref.pair.v1")
class CorefPairDetector(Detector):
    """Coreference pairs of the document (see module docstring)."""

    @property
    def reads_metrics(self) -> tuple[str, ...]:  # type: ignore[override]
        """``("coref",)`` for backend ``metrics`` (its pairs follow the profile's coreference
        spec); any other backend reads nothing there, so the analysis key leaves the metrics
        out and is computed once per detector, not once per document."""
        return ("coref",) if self.params.backend == "metrics" else ()

    class Params(DetectorParams):
        """Profile fields of ``coref.pair.v1``."""

        backend: Literal["metrics", "precomputed"] | dict[str, Any] = Field(
            default="metrics",
            description="'metrics': the profile's metrics.coref backend (the pairs RC counts; a resolver runs "
            "when the document carries no pairs); 'precomputed': only pairs that come with the document "
            "(parsed JSON, a .pairs.json side file), nothing runs; or a backend spec such as {type: heuristic.v1}")
        max_chars: int | None = Field(
            default=None, ge=1, le=10**9,
            description="ignore pairs spanning more characters than this (None: every pair)")

    def spans(self, ctx: DetectContext) -> list[tuple[int, int]]:
        """The pair spans (the pairs are computed once per document and backend)."""
        from ..models.coref import pairs_for

        backend = self.params.backend
        doc = ctx.document()
        if backend == "precomputed" and doc.entity_pron_pairs is None and not doc.source:
            return []  # in-memory text without pairs: no pairs and no side file to look for
        if backend == "metrics":
            spec = ctx.coref
        else:
            spec = {"type": "precomputed.v1"} if backend == "precomputed" else backend
        pairs = pairs_for(doc, spec, ctx.memo).pairs
        return pair_spans(pairs, self.params.max_chars)

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """One structure per pair, labelled with this structure's name."""
        return [Structure(a, b, self.name) for a, b in self.spans(ctx)]
