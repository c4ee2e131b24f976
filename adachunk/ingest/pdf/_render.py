"""Pages of blocks → the paper's parsed format: Markdown text, page map, gold blocks, titles.

Layout of one page (as in the paper's ``full_text``)::

    <!-- PageHeader: ... -->\\n\\n      (when the page has a running header)
    block\\n\\n                          (headings, paragraphs, lists, tables, footnotes)
    <!-- PageFooter: ... -->\\n          (footer and page number)
    <!-- PageBreak -->\\n\\n             (closes every page, the last one included)

Gold blocks (``split_points``) start at every block, every furniture comment and every page
break, except where a binding holds: a heading is bound to the next content block (furniture
in between included), and a footnote to the block before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...datatypes import Page
from ._model import PageContent
from ._text import comment_text
from ..converted import title_ends

PAGE_BREAK = "<!-- PageBreak -->\n\n"


@dataclass
class Rendered:
    """The converted document in the paper's parsed format (offsets are code points)."""

    text: str
    pages: list[Page]
    split_points: list[int]
    titles: list[dict[str, Any]]


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.splits: list[int] = []
        self.bound = False  # the previous content block binds the next one (a heading)

    def emit(self, text: str, split: bool) -> int:
        start = self.pos
        if split and start > 0:
            self.splits.append(start)
        self.parts.append(text)
        self.pos += len(text)
        return start


def render(pages: list[PageContent], furniture: str = "comment") -> Rendered:
    """Render pages; ``furniture`` is ``"comment"`` (keep headers/footers as comments) or ``"drop"``."""
    b = _Builder()
    page_map: list[Page] = []
    titles: list[dict[str, Any]] = []
    for page in pages:
        start = b.pos
        if page.header and furniture == "comment":
            b.emit(f"<!-- PageHeader: {comment_text(' '.join(page.header))} -->\n\n", split=not b.bound)
        for block in page.blocks:
            at = b.emit(block.text + "\n\n", split=not (b.bound or block.bind_prev))
            if block.kind == "heading":
                titles.append({"title": block.text.strip(), "start": at, "level": block.level})
            b.bound = block.bind_next
        if page.footer and furniture == "comment":
            b.emit(f"<!-- PageFooter: {comment_text(' '.join(page.footer))} -->\n", split=not b.bound)
        b.emit(PAGE_BREAK, split=not b.bound)
        page_map.append(Page(page.number, start, b.pos))
    text = "".join(b.parts)
    title_ends(titles, len(text))
    splits = sorted({s for s in b.splits if 0 < s < len(text)})
    return Rendered(text, page_map, splits, titles)
