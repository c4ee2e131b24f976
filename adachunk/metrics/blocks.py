"""``bi.v1``: Block Integrity, the share of protected blocks that no cut breaks.

Paper §1.3. A block ``[L, R)`` is broken iff some cut ``p`` has ``L < p < R``, ``p − L > tol``
and ``R − p > tol`` (``metrics.bi_tolerance``, paper 5 characters: splitters that attach a
separator to the next chunk start a character or two before the gold split point).

Cuts are the core starts of chunks 2..n (exact offsets, never a text search) and, unlike the
paper, also the ends of chunks 1..n−1: with overlapping chunks an end inside a block breaks it
as surely as a start does. Without overlap both sets coincide; ``count_chunk_ends=False``
restores the paper's starts-only rule.

Protected blocks:

* the document's gold ``split_points`` when present (paper JSON): the intervals of
  ``[0] + sorted(split_points) + [len(text)]``;
* otherwise the top-level Markdown blocks of
  :func:`adachunk.detect.markdown.parse_blocks` (paragraphs, tables, lists, code, quotes, HTML
  blocks), where a run of headings forms one block with the first block after it, so cutting
  between a heading and its body counts as breaking it.

None for an empty chunk list (and when the document has no block at all); 1.0 for one chunk.
"""

from __future__ import annotations

import bisect
from typing import Sequence

from pydantic import Field

from ..components.params import ComponentParams
from ..components.registry import metrics
from ..datatypes import Chunk, Document
from .base import Metric, MetricContext, MetricResult


def cut_points(chunks: Sequence[Chunk], with_ends: bool = True) -> list[int]:
    """Sorted distinct interior boundaries: core starts of chunks 2..n (+ ends of 1..n−1)."""
    cuts = {c.core_span[0] for c in chunks[1:]}
    if with_ends:
        cuts.update(c.end for c in chunks[:-1])
    return sorted(cuts)


def gold_blocks(split_points: Sequence[int], n: int) -> list[tuple[int, int]]:
    """Paper blocks: consecutive intervals of ``[0] + sorted(split_points) + [n]``."""
    bounds = [0] + sorted(split_points) + [n]
    return list(zip(bounds, bounds[1:]))


def markdown_blocks(text: str) -> list[tuple[int, int]]:
    """Top-level Markdown blocks, each heading run glued to the block that follows it."""
    from ..detect.markdown import parse_blocks

    top = []
    for s in sorted(parse_blocks(text), key=lambda b: (b.start, -b.end)):
        if not top or s.start >= top[-1].end:  # not nested in the previous top-level block
            top.append(s)
    out: list[tuple[int, int]] = []
    start = None  # start of a pending heading run
    for b in top:
        if b.label == "heading":
            start = b.start if start is None else start
            continue
        out.append((b.start if start is None else start, b.end))
        start = None
    if start is not None:  # headings at the very end: their own block
        out.append((start, top[-1].end))
    return out


def protected_blocks(doc: Document) -> tuple[list[tuple[int, int]], str]:
    """The document's protected blocks and where they come from (``gold`` or ``markdown``)."""
    if doc.split_points is not None:
        return gold_blocks(doc.split_points, len(doc.text)), "gold"
    return markdown_blocks(doc.text), "markdown"


class BIParams(ComponentParams):
    """Block Integrity options."""

    count_chunk_ends: bool = Field(
        default=True, description="chunk ends count as cuts too (differs from the paper only with overlap)")


@metrics.register("bi.v1")
class BlockIntegrity(Metric):
    """Share of protected blocks with no cut strictly inside (beyond the tolerance)."""

    key = "bi"
    Params = BIParams

    def __init__(self, params: BIParams | None = None):
        self.params = params or BIParams()

    def score(self, chunks: list[Chunk], ctx: MetricContext) -> MetricResult:
        """Score one chunking; detail lists each broken block with the cuts inside it."""
        if not chunks:
            return MetricResult(None, "no chunks")
        blocks, source = ctx.memo(("bi.blocks",), lambda: protected_blocks(ctx.doc))
        if len(chunks) == 1:
            return MetricResult(1.0, None, [])
        if not blocks:
            return MetricResult(None, f"the document has no protected blocks ({source})")
        tol = ctx.settings.bi_tolerance
        cuts = cut_points(chunks, self.params.count_chunk_ends)
        detail = []
        for lo, hi in blocks:
            i = bisect.bisect_right(cuts, lo + tol)  # first cut with p − L > tol (hence p > L)
            j = bisect.bisect_left(cuts, hi - tol)  # cuts before j have R − p > tol (hence p < R)
            if i < j:
                detail.append({"block_start": lo, "block_end": hi, "source": source, "cuts": cuts[i:j]})
        return MetricResult(1.0 - len(detail) / len(blocks), None, detail)
