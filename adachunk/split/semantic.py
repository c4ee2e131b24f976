"""``semantic.v1``: the paper's semantic baseline (§3.4), with a hard size limit added.

As LangChain's ``SemanticChunker`` in gradient mode (the paper's configuration):

1. sentences from :func:`adachunk.detect.text_units.split_sentences`;
2. each sentence is embedded together with ``buffer_size`` neighbours on each side (the span
   from the first to the last of them, so no text is re-joined);
3. distance ``d_k = 1 − cos(e_k, e_{k+1})`` between consecutive sentences;
4. a breakpoint after sentence ``k`` wherever ``np.gradient(d)[k]`` exceeds its
   ``percentile``-th percentile (paper: 95); one or two sentences give one chunk per sentence.

Unlike the paper (whose semantic chunks reach SC 48.1), a group above ``max_tokens`` (default
1,100, the paper's post-processing limit) is cut at its best sentence boundary, the one with the
largest distance, recursively; a single sentence above the limit is cut at whitespace (token
boundaries as a last resort). Chunks tile the text: a chunk runs from its first sentence's start
to the next chunk's start.

The embedder is this splitter's ``embedder`` spec, else the profile's ``metrics.embedder``, else
the bundled all-MiniLM-L6-v2; ``hash.v1`` makes it deterministic and model-free for tests.
"""

from __future__ import annotations

import bisect
from typing import Any

import numpy as np
from pydantic import Field, field_validator

from ..detect.text_units import split_sentences
from ..errors import AdachunkError
from ..components.params import ComponentParams
from ..policy import Policy
from ..components.registry import splitters
from ..tokens import get_counter
from ..datatypes import Chunking, Document
from .assemble import build_chunks
from .base import Splitter
from .common import heading_index


class SemanticParams(ComponentParams):
    """Options of ``semantic.v1``."""

    percentile: float = Field(default=95.0, gt=0, le=100,
                              description="breakpoint where the distance gradient exceeds this percentile")
    buffer_size: int = Field(default=1, ge=0, le=16, description="neighbour sentences embedded with each sentence")
    max_tokens: int | None = Field(
        default=1100, ge=1, description="hard chunk limit in the solver's tokens (None: no limit, as the paper)")
    embedder: dict[str, Any] | None = Field(
        default=None, description="embedder spec {type: ..., ...} (None: metrics.embedder, else all-MiniLM-L6-v2)")

    @field_validator("embedder")
    @classmethod
    def _known_embedder(cls, v):
        if v is not None:
            from ..models.embedders import validate_spec

            try:
                validate_spec(v)
            except AdachunkError as err:  # pydantic reports ValueErrors with the key path
                allowed = f" (allowed: {', '.join(err.allowed)})" if err.allowed else ""
                raise ValueError(err.message + allowed) from None
        return v


def gradient_breaks(vectors: np.ndarray, percentile: float) -> tuple[list[int], np.ndarray, float]:
    """Sentences after which a chunk ends, the distances, and the gradient threshold."""
    dist = 1.0 - np.einsum("ij,ij->i", vectors[:-1], vectors[1:])
    if len(dist) < 2:
        return list(range(len(dist))), dist, float("nan")
    grad = np.gradient(dist)
    thr = float(np.percentile(grad, percentile))
    return [k for k in range(len(grad)) if grad[k] > thr], dist, thr


class _Sizer:
    """Enforces ``max_tokens`` on groups of sentences ``i..j`` (tile spans of the text)."""

    def __init__(self, text: str, tiles: list[int], dist: np.ndarray, counter, limit: int | None):
        self.text, self.tiles, self.dist, self.counter, self.limit = text, tiles, dist, counter, limit
        self.cuts = 0

    def span(self, i: int, j: int) -> tuple[int, int]:
        return self.tiles[i], self.tiles[j + 1]

    def fit(self, i: int, j: int) -> list[tuple[int, int]]:
        """Spans of group ``i..j`` cut so that each holds at most ``limit`` tokens."""
        a, b = self.span(i, j)
        if self.limit is None or self.counter.count(self.text[a:b]) <= self.limit:
            return [(a, b)]
        self.cuts += 1
        if i == j:
            return hard_split(self.text, a, b, self.limit, self.counter)
        k = i + int(np.argmax(self.dist[i:j]))  # the most dissimilar boundary inside the group
        return self.fit(i, k) + self.fit(k + 1, j)


def hard_split(text: str, a: int, b: int, limit: int, counter) -> list[tuple[int, int]]:
    """Cut ``[a, b)`` into spans of at most ``limit`` tokens, after whitespace where possible."""
    pos, size = counter.boundaries(text[a:b])
    pos = [int(p) + a for p in pos]
    size = [int(s) for s in size]
    out, cur = [], a
    while cur < b:
        i = bisect.bisect_right(pos, cur) - 1  # token boundary at or before cur
        far = pos[max(bisect.bisect_right(size, size[i] + limit) - 1, i + 1)]
        if far >= b and counter.count(text[cur:b]) <= limit:
            out.append((cur, b))
            break
        far = min(far, b)
        nxt = _last_word_start(text, cur + (far - cur) // 2, far) or far
        while nxt > cur + 1 and counter.count(text[cur:nxt]) > limit:
            j = bisect.bisect_left(pos, nxt) - 1  # a slice may count a token more at its edges
            nxt = pos[j] if pos[j] > cur else nxt - 1
        out.append((cur, nxt))
        cur = nxt
    return out


def _last_word_start(text: str, lo: int, hi: int) -> int | None:
    """The last position in ``(lo, hi]`` where a word starts after whitespace, if any."""
    for q in range(hi, lo, -1):
        if text[q - 1].isspace() and q < len(text) and not text[q].isspace():
            return q
    return None


@splitters.register("semantic.v1")
class SemanticSplitter(Splitter):
    """Breakpoints at high gradients of consecutive-sentence embedding distance."""

    Params = SemanticParams

    def embedder(self, policy: Policy):
        """The embedder for this candidate (see module docstring)."""
        from ..models.embedders import load_embedder

        return load_embedder(self.params.embedder or policy.metrics.embedder)

    def split(self, doc: Document, policy: Policy) -> Chunking:
        """Chunk ``doc``; meta records the sentence count, breakpoints and size cuts."""
        from ..models.embedders import SpanEmbeddings, block_starts

        text, p = doc.text, self.params
        meta: dict[str, Any] = {"percentile": p.percentile, "buffer_size": p.buffer_size, "max_tokens": p.max_tokens}
        if not text:
            return Chunking([], "semantic.v1", meta)
        sents = split_sentences(text) or [(0, len(text))]
        n = len(sents)
        tiles = [0] + [s for s, _ in sents[1:]] + [len(text)]
        breaks, dist = list(range(n - 1)), np.zeros(max(n - 1, 0))
        if n > 2:
            emb = self.embedder(policy)
            meta["embedder"] = emb.fingerprint
            spans = SpanEmbeddings(text, emb, lambda: block_starts(doc)[0])
            b = p.buffer_size
            vecs = spans.get([(sents[max(0, k - b)][0], sents[min(n - 1, k + b)][1]) for k in range(n)])
            breaks, dist, meta["threshold"] = gradient_breaks(vecs, p.percentile)
        counter = get_counter(policy.solver.tokenizer)
        sizer = _Sizer(text, tiles, dist, counter, p.max_tokens)
        groups = zip([0] + [k + 1 for k in breaks], [k for k in breaks] + [n - 1])
        cores = [s for i, j in groups for s in sizer.fit(i, j)]
        meta.update(sentences=n, breakpoints=len(breaks), size_cuts=sizer.cuts)
        if policy.solver.granularity == "chars":
            size_of = lambda s, e: e - s  # noqa: E731
        else:
            size_of = lambda s, e: counter.count(text[s:e])  # noqa: E731
        headings = heading_index(doc)
        chunks = build_chunks(doc, cores, fingerprint=policy.fingerprint, count_tokens=counter.count,
                              unit_size=size_of, headings=headings)
        return Chunking(chunks, "semantic.v1", meta)
