"""Overprinted text: glyphs drawn twice, a fraction of a point apart, to fake a bold face.

Statistical and budget reports often embolden headings and total rows by drawing each string
twice with a tiny offset. Every glyph then reaches the reader twice, and the word grouping,
which orders a line's glyphs by their left edge, interleaves the two copies: "2012" comes out
"22001122", "Total" "TToottaall", and a table whose header and totals are doubled no longer
matches anything. pdfplumber's ``dedupe_chars`` removes such copies, but it is quadratic in the
page's glyphs and costs a sort of the whole page; it is also needed on few pages. So:

* :func:`looks_overprinted` asks the page's *words* (cheap: one string slice per word) whether
  any of them reads as doubled glyph by glyph ("22001122");
* only then :func:`dedupe` drops every glyph that repeats one of the same text, font and size
  within ``tolerance`` points in both directions (a real "11" is a glyph width apart).
"""

from __future__ import annotations

from typing import Iterable

_MIN_DOUBLED = 4  # characters: "33" may be a real figure, "2200" is not a doubled "20" by chance often


def doubled(text: str) -> bool:
    """Does ``text`` read as each glyph twice in a row ("22001122", "TToottaall") or as the
    word twice ("20122012")? A false alarm costs only the :func:`dedupe` pass."""
    if len(text) < _MIN_DOUBLED or len(text) % 2:
        return False
    half = len(text) // 2
    # interleaved (copies ordered by their left edges) or one after the other (in drawing order;
    # six characters at least: "2020" and "1010" are years and figures)
    return text[0::2] == text[1::2] or (half >= 3 and text[:half] == text[half:])


def looks_overprinted(texts: Iterable[str]) -> bool:
    """Does any word of the page read as doubled glyph by glyph (module docstring)?"""
    # the length test inline: most words are odd or short, and a call per word costs more than it
    return any(len(t) >= _MIN_DOUBLED and not len(t) % 2 and doubled(t) for t in texts)


def dedupe(chars: list[dict], tolerance: float = 1.0) -> list[dict]:
    """The glyphs without the copies overprinting them, in their order.

    A glyph is a copy when one kept before it has the same text, font and size and lies within
    ``tolerance`` points horizontally and vertically. Glyphs are bucketed by those facts and their
    whole-point top, so each is compared only with the few glyphs of its kind on its line.
    """
    seen: dict[tuple, list[tuple[float, float]]] = {}
    out = []
    for ch in chars:
        kind = (ch["text"], ch.get("fontname"), ch.get("size"))
        x, top = ch["x0"], ch["top"]
        row = int(top)
        if any(abs(x - x2) <= tolerance and abs(top - t2) <= tolerance
               for r in (row - 1, row, row + 1) for x2, t2 in seen.get((kind, r), ())):
            continue
        seen.setdefault((kind, row), []).append((x, top))
        out.append(ch)
    return out
