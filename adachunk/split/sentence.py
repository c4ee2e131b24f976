"""Groups of N sentences (``sentence.v1``), the paper's sentence baseline.

Sentences come from the core detector :func:`adachunk.detect.text_units.split_sentences` (the
paper used Stanza, which needs a model download). The whitespace between two sentences belongs
to the group of the earlier one, and text before the first sentence to the first group, so the
chunks tile the document exactly.
"""

from __future__ import annotations

import itertools

from pydantic import Field

from ..detect.text_units import split_sentences
from ..components.params import ComponentParams
from ..policy import Policy
from ..components.registry import splitters
from ..datatypes import Chunking, Document
from .base import Splitter
from .common import make_chunking


class SentenceParams(ComponentParams):
    """Sentence grouping."""

    sentences_per_chunk: int = Field(default=5, ge=1, description="sentences per chunk (paper: 5)")
    extra_abbreviations: list[str] = Field(
        default_factory=list, description="abbreviations that never end a sentence, e.g. 'Cl.'")


@splitters.register("sentence.v1")
class SentenceSplitter(Splitter):
    """Consecutive groups of ``sentences_per_chunk`` sentences."""

    Params = SentenceParams

    def split(self, doc: Document, policy: Policy) -> Chunking:
        """Chunk ``doc`` into sentence groups tiling the text."""
        n = self.params.sentences_per_chunk
        sentences = split_sentences(doc.text, self.params.extra_abbreviations) if doc.text else []
        meta: dict = {"sentences": len(sentences), "sentences_per_chunk": n}
        if not doc.text:
            return Chunking([], "sentence.v1", meta)
        cuts = [sentences[k][0] for k in range(n, len(sentences), n)]
        bounds = [0, *cuts, len(doc.text)]
        spans = [(a, b) for a, b in itertools.pairwise(bounds) if b > a]
        if not sentences:
            meta["fallback"] = "no sentence found: the whole document is one chunk"
        return make_chunking(doc, policy, spans, "sentence.v1", meta)
