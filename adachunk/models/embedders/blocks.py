"""Parser block starts of a document: where ICC cuts chunks and where the pooling grid cuts.

The paper (§1.4) cuts each chunk at the parser's block split points (``split_points`` of its
parsed JSON). A document without them (Markdown or text input) uses the starts of its top-level
Markdown blocks from :func:`adachunk.detect.markdown.parse_blocks`: every paragraph, heading,
list, table, code block, quote or HTML block that is not nested inside another. As with the
paper's split points, a piece then runs from one block start to the next, so the blank lines
after a block belong to it.
"""

from __future__ import annotations

from typing import Any, Callable, Literal

from ...datatypes import Document
from ..structure import MARKDOWN_BLOCKS, lent

BlockSource = Literal["auto", "split_points", "markdown"]


def top_level_starts(blocks) -> list[int]:
    """Starts of the blocks that are not nested inside an earlier block."""
    starts: list[int] = []
    reach = -1
    for b in sorted(blocks, key=lambda s: (s.start, -s.end)):
        if b.start >= reach:
            starts.append(b.start)
        reach = max(reach, b.end)
    return starts


def block_starts(doc: Document, source: BlockSource = "auto",
                 memo: Callable[[Any, Callable[[], Any]], Any] | None = None) -> tuple[list[int], str]:
    """Sorted distinct block starts and their origin (``split_points`` or ``markdown``).

    Args:
        doc: the document.
        source: ``auto`` (split points when the document has them, else Markdown blocks),
            ``split_points`` (empty when the document has none) or ``markdown``.
        memo: a per-document memo (``MetricContext.memo``) to share the Markdown parse.
    """
    if source == "split_points" or (source == "auto" and doc.split_points is not None):
        return sorted(set(doc.split_points or ())), "split_points"
    parse_blocks = lent(MARKDOWN_BLOCKS)  # detect's Markdown reader (see adachunk.models.structure)

    def parse():
        return parse_blocks(doc.text)

    blocks = memo(("markdown.blocks",), parse) if memo else parse()
    return top_level_starts(blocks), "markdown"
