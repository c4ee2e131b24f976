"""``sc.v1``: Size Compliance, the share of chunks whose own token count is within bounds.

Paper §1.2: ``1 − (#chunks with tokens < min or > max) / #chunks`` with inclusive bounds
(a chunk of exactly ``min`` or ``max`` tokens complies); an empty chunk has 0 tokens and does not
comply (unless ``min`` is 0). None only for an empty chunk list.

Token counts: a chunk carries its own count (``chunk.tokens``, from the profile's tokenizer).
When the metric tokenizer differs from the one that counted the chunks (the context setting
``chunk_tokenizer`` names the latter) or a count is missing (negative), the chunk is recounted
with ``ctx.counter``.
"""

from __future__ import annotations

from ..components.registry import metrics
from ..datatypes import Chunk
from .base import Metric, MetricContext, MetricResult


def chunk_tokens(chunk: Chunk, ctx: MetricContext) -> int:
    """The chunk's own token count under the metric tokenizer (see module docstring)."""
    counted_with = ctx.chunk_tokenizer
    same = counted_with is None or counted_with == getattr(ctx.counter, "name", counted_with)
    if same and chunk.tokens >= 0:
        return chunk.tokens
    return ctx.memo(("tokens", chunk.start, chunk.end),
                    lambda: ctx.counter.count(ctx.doc.text[chunk.start:chunk.end]))


@metrics.register("sc.v1")
class SizeCompliance(Metric):
    """Share of chunks with ``sc_min_tokens <= tokens <= sc_max_tokens`` (profile ``metrics``)."""

    key = "sc"

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
        """Score one chunking; detail lists every chunk with its count and compliance."""
        if not chunks:
            return MetricResult(None, "no chunks")
        lo, hi = ctx.settings.sc_min_tokens, ctx.settings.sc_max_tokens
        detail = []
        ok = 0
        for c in chunks:
            n = chunk_tokens(c, ctx)
            inside = lo <= n <= hi
            ok += inside
            detail.append({"index": c.index, "start": c.start, "end": c.end, "tokens": n, "compliant": inside})
        return MetricResult(ok / len(chunks), None, detail)
