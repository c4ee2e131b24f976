"""Plain objects passed between the PDF stages: extraction → layout → tables → rendering.

Coordinates are PDF points with the origin at the top left of the page (pdfplumber's ``top`` /
``bottom`` convention), so "further down the page" means a larger ``top``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Word:
    """One word as extracted: its text, box, font size and weight.

    ``sup`` marks a superscript (smaller, raised, attached to the previous word), the shape of a
    footnote reference; ``glued`` a word that touches the previous one (split from it only by a
    change of font, as the colon after a small-caps label "AGENCY:").
    """

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool
    sup: bool = False
    glued: bool = False


@dataclass(slots=True)
class Line:
    """Words that share a baseline, left to right; ``size`` is the dominant font size."""

    words: list[Word]
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool

    @property
    def text(self) -> str:
        """Words joined by single spaces, superscripts attached to the word before them."""
        out: list[str] = []
        for w in self.words:
            if (w.sup or w.glued) and out:
                out[-1] += w.text
            else:
                out.append(w.text)
        return " ".join(out)


@dataclass(slots=True)
class RawTable:
    """A ruled table found on a page.

    Attributes:
        top, bottom, x0, x1: its bounding box.
        rows: cell texts, row by row ("" for empty or merged cells).
        columns: x positions of the column boundaries (``len(rows[0]) + 1`` values).
        anchor: the line the table is read before, in reading order (None: after every line).
        ruled: found from ruling lines (True) or from text alignment alone (a borderless table,
            whose column boundaries move a little from page to page with the widest cell).
    """

    top: float
    bottom: float
    x0: float
    x1: float
    rows: list[list[str]]
    columns: list[float]
    anchor: Line | None = None  # the first body line read after the table (None: after all)
    ruled: bool = True


@dataclass
class RawPage:
    """What a geometric backend extracted from one page (``has_image``: it draws an image;
    ``layout_fallback``: its layout analysis failed and its lines are in plain line order;
    ``unmapped``: glyphs dropped because the font maps them to no character)."""

    number: int
    width: float
    height: float
    lines: list[Line]
    tables: list[RawTable]
    has_text: bool
    has_image: bool = False
    layout_fallback: bool = False
    unmapped: int = 0


@dataclass
class Block:
    """One rendered block of a page's body.

    Attributes:
        kind: ``heading``, ``paragraph``, ``list``, ``table`` or ``footnote``.
        text: its Markdown, without the blank line that follows it.
        level: heading level (1 = largest).
        bind_prev: no gold-block boundary before it (a footnote after its parent paragraph).
        meta: extra facts (table id and part for tables).
    """

    kind: str
    text: str
    level: int = 0
    bind_prev: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def bind_next(self) -> bool:
        """A heading is bound to the block that follows it."""
        return self.kind == "heading"


@dataclass
class PageContent:
    """A page ready to render: body blocks plus its running header and footer texts."""

    number: int
    blocks: list[Block]
    header: list[str] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)
