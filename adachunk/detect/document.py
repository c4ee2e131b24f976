"""``document.block.v1``: the blocks the ingester produced, as structures; ``page.end.v1``: the
end of each page.

Block Integrity counts the blocks a reader sees: the paper's parser binds a heading with its
first paragraph, a paragraph with its footnotes, a list run into one block; its ``split_points``
are those blocks' starts. The DP can only keep such a block whole if it sees it, so this
detector reports it:

* ``ingested``: the intervals of the document's ``split_points`` (the paper's parsed JSON; PDFs
  converted by adachunk, whose converter binds a heading to its first block, a body to its
  footnotes and a table to its caption and unit line), each trimmed of its trailing blank
  lines, so a cut in the blank lines between two blocks is free;
* ``markdown``: the reader's block model of a Markdown or text document (see
  :mod:`adachunk.detect._block_model`): top-level Markdown blocks with headings, lead-ins,
  point runs, captions and footnotes bound, paragraphs written one per line read as such;
* ``auto`` (default): ``ingested`` when the document has split points, else ``markdown``.

Split points outside the text are dropped, with a counted warning. A document without blocks
(an empty text) has no structures.

``page.end.v1`` reports, for every ``<!-- PageBreak -->`` marker of a converted document, the
span from the page's last visible character through its footer comments (``<!-- PageFooter:
… -->``, ``<!-- PageNumber: … -->``) to the marker: a cut inside it would open the next chunk
with the previous page's footer (and give that chunk a page it only has furniture of).
"""

from __future__ import annotations

import re
from typing import Literal

import numpy as np
from pydantic import Field

from ..errors import notice
from ..components.registry import detectors
from ..datatypes import SpanArrays, Structure, span_arrays
from ._block_model import BlockModel, FootnoteMode, bound_block_arrays
from .base import DetectContext, Detector, DetectorParams
from .markdown import shared_rows



def ingested_blocks(text: str, split_points, source: str = "document") -> list[tuple[int, int]]:
    """Blocks between consecutive split points, each without its trailing whitespace.

    Args:
        text: the document text.
        split_points: the ingester's block starts (any order, duplicates allowed).
        source: the document's name, for the warning about dropped points.
    """
    n = len(text)
    points = sorted({int(p) for p in split_points if 0 < int(p) < n})
    dropped = sum(1 for p in split_points if not 0 <= int(p) <= n)
    if dropped:
        notice("ADA401", f"{dropped} of {len(split_points)} split points outside the text dropped", source)
    out = []
    for lo, hi in zip([0, *points], [*points, n]):
        end = lo + len(text[lo:hi].rstrip())
        if end > lo:
            out.append((lo, end))
    return out


@detectors.register("document.block.v1")
class DocumentBlockDetector(Detector):
    """The document's bound blocks (see module docstring)."""

    class Params(DetectorParams):
        """Profile fields of ``document.block.v1``."""

        source: Literal["auto", "ingested", "markdown"] = Field(
            default="auto",
            description="where blocks come from: the ingester's split points (parsed JSON, PDF), "
            "the Markdown block model, or auto (split points when the document has them)")
        headings: bool = Field(default=True, description="Markdown model: a heading run is bound to the block after it")
        lead_in: bool = Field(
            default=True,
            description="Markdown model: a paragraph ending in ':' is bound to the list or table it introduces")
        points: bool = Field(
            default=True, description="Markdown model: consecutive (a), (b), ... paragraphs form one unit")
        captions: bool = Field(
            default=True, description="Markdown model: captions, unit lines and source notes are bound to their table")
        footnotes: FootnoteMode = Field(
            default="cite",
            description="Markdown model: footnote definitions are bound to the paragraph citing them (cite), "
            "to the block before them (previous: the end of their section), or not at all (none)")
        reach: int = Field(
            default=3000, ge=0, le=10**7,
            description="Markdown model, footnotes: cite: how far back (characters) the citing paragraph may lie; "
            "farther notes bind to the block before them")
        line_paragraphs: bool = Field(
            default=True,
            description="Markdown model: a paragraph written one paragraph per line (long lines that end "
            "sentences) is read as its lines")

    def _model(self) -> BlockModel:
        p = self.params
        return BlockModel(headings=p.headings, lead_in=p.lead_in, points=p.points, captions=p.captions,
                          footnotes=p.footnotes, reach=p.reach, line_paragraphs=p.line_paragraphs)

    def spans(self, ctx: DetectContext) -> list[tuple[int, int]]:
        """The blocks as ``(start, end)`` pairs (cached per document and settings)."""
        doc = ctx.doc
        if self._ingested(ctx):
            if doc is None or doc.split_points is None:
                return []  # nothing was ingested with blocks
            return ctx.memo(("document.block.ingested",),
                            lambda: ingested_blocks(ctx.text, doc.split_points, doc.id))
        starts, ends = self._markdown_arrays(ctx)
        return list(zip(starts.tolist(), ends.tolist()))

    def _markdown_arrays(self, ctx: DetectContext) -> tuple[np.ndarray, np.ndarray]:
        model = self._model()
        blocks = shared_rows(ctx)
        return ctx.memo(("document.block.markdown", model), lambda: bound_block_arrays(ctx.text, blocks, model))

    def _ingested(self, ctx: DetectContext) -> bool:
        doc = ctx.doc
        return self.params.source == "ingested" or (
            self.params.source == "auto" and doc is not None and doc.split_points is not None)

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """One structure per block, labelled with this structure's name."""
        return [Structure(a, b, self.name) for a, b in self.spans(ctx)]

    def detect_arrays(self, ctx: DetectContext) -> SpanArrays:
        """The blocks as start and end arrays, without a :class:`Structure` per block (the
        spans are sorted and non-empty, so these are :meth:`detect`'s arrays)."""
        if self._ingested(ctx):
            return _arrays(self.spans(ctx))
        return span_arrays(self._markdown_arrays(ctx))


def _arrays(spans: list[tuple[int, int]]) -> SpanArrays:
    arr = np.array(spans, dtype=np.int64).reshape(-1, 2)
    return span_arrays((arr[:, 0].copy(), arr[:, 1].copy()))


_PAGE_BREAK = re.compile(r"<!--[ \t]*PageBreak[ \t]*-->")
_FOOTER_LINE = re.compile(r"[ \t]*<!--[ \t]*Page(?:Footer|Number)\b[^\n]*-->[ \t]*\r?\Z")


def page_ends(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` per page break: from the page's last visible character, back over blank
    lines and footer comment lines, to the end of the ``PageBreak`` marker."""
    out = []
    for m in _PAGE_BREAK.finditer(text):
        i = m.start() - 1
        while True:
            while i >= 0 and text[i].isspace():
                i -= 1
            if i < 0:
                break
            line_start = text.rfind("\n", 0, i) + 1
            if not _FOOTER_LINE.match(text, line_start, i + 1):
                break  # i is the page's last visible character
            i = line_start - 1  # a footer line: keep looking above it
        if i >= 0:
            out.append((i, m.end()))
    return out


@detectors.register("page.end.v1")
class PageEndDetector(Detector):
    """The end of each page of a converted document (see module docstring)."""

    class Params(DetectorParams):
        """``page.end.v1`` has no fields."""

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """One structure per page break."""
        return [Structure(a, b, self.name) for a, b in self._spans(ctx)]

    def detect_arrays(self, ctx: DetectContext) -> SpanArrays:
        """:meth:`detect`'s spans as start and end arrays, without a Structure per page."""
        return _arrays(self._spans(ctx))

    def _spans(self, ctx: DetectContext) -> list[tuple[int, int]]:
        return ctx.memo(("page.end",), lambda: page_ends(ctx.text))
