"""One chunk per page (``page.v1``), the paper's page baseline.

A document without a page map becomes one chunk (``meta["fallback"]`` says why). The paper's raw
page chunks include empty strings for empty pages; a chunk cannot be empty here, so an empty page
adds nothing (it is merged into its neighbour, which has the same text) and its number is listed
in ``meta["empty_pages"]`` so paper-compatible metrics can still count it. A page of nothing but
furniture (its header, footer and page break) joins the page before it unless
``furniture_pages: keep`` (:mod:`adachunk.split.furniture`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..components.params import ComponentParams
from ..policy import Policy
from ..components.registry import splitters
from ..datatypes import Chunking, Document
from .base import Splitter
from .common import make_chunking


class PageParams(ComponentParams):
    """How pages become chunks."""

    furniture_pages: Literal["merge", "keep"] = Field(
        "merge", description="a page of nothing but its running header, footer and page break (a full-page "
                             "figure): 'merge' it into the page before (no chunk of furniture alone), or "
                             "'keep' it as a chunk of its own (the paper's raw page chunks)")


@splitters.register("page.v1")
class PageSplitter(Splitter):
    """Chunks are exactly the document's pages."""

    Params = PageParams

    def split(self, doc: Document, policy: Policy) -> Chunking:
        """One chunk per non-empty page; the whole text when there is no page map."""
        meta: dict = {}
        if not doc.text:
            return Chunking([], "page.v1", meta)
        if not doc.pages:
            meta["fallback"] = "no page map: the whole document is one chunk"
            return make_chunking(doc, policy, [(0, len(doc.text))], "page.v1", meta)
        pages = sorted(doc.pages, key=lambda p: (p.start, p.number))
        spans, empty, pos = [], [], 0
        for page in pages:
            end = min(page.end, len(doc.text))
            if end <= max(page.start, pos):
                empty.append(page.number)
                continue
            # a page map that leaves gaps (hand-made documents) still tiles: text before a page
            # belongs to it
            spans.append((pos, end))
            pos = end
        if not spans:
            meta["fallback"] = "every page is empty"
            return make_chunking(doc, policy, [(0, len(doc.text))], "page.v1", meta)
        if pos < len(doc.text):
            spans[-1] = (spans[-1][0], len(doc.text))
        meta.update(pages=len(pages), empty_pages=empty)
        return make_chunking(doc, policy, spans, "page.v1", meta, absorb=self.params.furniture_pages == "merge")
