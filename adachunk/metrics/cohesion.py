"""``icc.v1``: Intrachunk Cohesion (paper §1.4).

Each chunk ``[start, end)`` (exact offsets, never a text search) is cut at the parser's block
starts ``s`` with ``start <= s < end`` (the document's ``split_points``, else its top-level
Markdown blocks, see :mod:`adachunk.models.embedders.blocks`); empty pieces are dropped, so
the first and last pieces may be partial blocks. A chunk with fewer than 2 pieces is skipped.
A chunk's cohesion is the mean cosine between each piece's embedding and the whole chunk's
embedding; the score is the mean over the chunks that qualify, clipped to [0, 1].

None when the chunking has no piece at all, or when no chunk spans two blocks (every chunk
lies inside one block).

Like the paper, a whitespace-only piece (a chunk that starts on the blank line before a block)
is embedded like any other; ``skip_blank_pieces: true`` leaves such pieces out.

Embeddings come from the document's shared :class:`~adachunk.models.embedders.SpanEmbeddings`:
blocks and chunks that several candidates share are embedded once, and a chunk longer than the
model's input limit is pooled over the same blocks, so it costs no extra model call.
"""

from __future__ import annotations

import bisect
from typing import Sequence

import numpy as np
from pydantic import Field

from ..components.params import ComponentParams
from ..components.registry import metrics
from ..datatypes import Chunk
from .base import Metric, MetricContext, MetricResult
from ..models.embedders.blocks import BlockSource, block_starts
from ..models.embedders.spans import span_embeddings


class ICCParams(ComponentParams):
    """Intrachunk Cohesion options."""

    blocks: BlockSource = Field(
        default="auto",
        description="block boundaries: auto (split_points when the document has them, else Markdown "
        "top-level blocks), split_points, or markdown")
    skip_blank_pieces: bool = Field(
        default=False, description="leave whitespace-only pieces out (the paper embeds them)")


def chunk_pieces(start: int, end: int, starts: Sequence[int]) -> list[tuple[int, int]]:
    """Pieces of ``[start, end)`` cut at the block starts inside it (empty pieces dropped)."""
    i = bisect.bisect_left(starts, start)
    j = bisect.bisect_left(starts, end)
    bounds = [start, *starts[i:j], end]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


@metrics.register("icc.v1")
class IntrachunkCohesion(Metric):
    """Mean cosine of each chunk's blocks to the chunk, averaged over multi-block chunks."""

    key = "icc"
    embeds = True
    Params = ICCParams

    def __init__(self, params: ICCParams | None = None):
        self.params = params or ICCParams()

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
        """Score one chunking; detail holds each qualifying chunk's piece count and cohesion."""
        starts, source = ctx.memo(("icc.block_starts", self.params.blocks),
                                  lambda: block_starts(ctx.doc, self.params.blocks, ctx.memo))
        text = ctx.doc.text
        per_chunk = []
        for c in chunks:
            pieces = chunk_pieces(c.start, c.end, starts)
            if self.params.skip_blank_pieces:
                pieces = [(a, b) for a, b in pieces if text[a:b].strip()]
            per_chunk.append(pieces)
        if not any(per_chunk):
            return MetricResult(None, "no block piece in any chunk")
        multi = [(c, p) for c, p in zip(chunks, per_chunk) if len(p) >= 2]
        if not multi:
            return MetricResult(None, f"no chunk spans two blocks ({source}); every chunk lies inside one block")
        emb = span_embeddings(ctx)
        spans = [(c.start, c.end) for c, _ in multi] + [s for _, p in multi for s in p]
        vecs = emb.get(spans)
        chunk_vecs, piece_vecs = vecs[: len(multi)], vecs[len(multi):]
        detail, values, k = [], [], 0
        for (c, pieces), cv in zip(multi, chunk_vecs):
            sims = piece_vecs[k : k + len(pieces)] @ cv
            k += len(pieces)
            values.append(float(np.mean(sims)))
            detail.append({"index": c.index, "pieces": len(pieces), "cohesion": values[-1]})
        skipped = len(chunks) - len(multi)
        note = f"{skipped} single-block chunk(s) skipped" if skipped else None
        return MetricResult(float(np.clip(np.mean(values), 0.0, 1.0)), note, detail)
