"""Reading order of one page: XY-cut columns where the page has them, line order otherwise.

:func:`order_page` first tries the line-based order of :func:`._lines.reading_order`
(two columns whose gutter is wide enough to split lines, side notes, footnotes under both
columns), which the generated corpus is tuned on. Where that finds no gutter, the XY-cut
(:mod:`._xycut`) runs on the page's words and tables: narrow gutters and three or more
columns. A page without columns keeps its line order. A page with columns is read leaf by leaf; small lines below the body of
their column (footnotes) move to the end of the page, so that they stay the page's trailing run
and a paragraph running on into the next column is not cut by them. A page whose analysis
fails is read in line order and reported by the caller.
"""

from __future__ import annotations

import logging
from collections import Counter

from ._layout import FOOT_ZONE
from ._linenums import strip_line_numbers
from ._lines import anchor, group_lines, reading_order
from ._model import Line, RawTable, Word
from ._xycut import LayoutError, word_size, xy_cut

log = logging.getLogger("adachunk.ingest")


def order_page(words: list[Word], tables: list[RawTable], width: float,
               height: float) -> tuple[list[Line], bool]:
    """The page's body lines in reading order, each table's anchor set; and whether the layout
    analysis failed and the page fell back to line order."""
    fell_back = False
    words = strip_line_numbers(words)
    lines, gutter = reading_order(group_lines(words), width) if words else ([], None)
    if words and gutter is None:  # two columns with a wide gutter are read as before
        try:
            leaves, columns = xy_cut(list(words) + list(tables), word_size([w.bottom - w.top for w in words]), width)
        except LayoutError as exc:
            log.debug("layout analysis failed (%s): line order", exc)
            leaves, columns, fell_back = [], False, True
        if columns:
            return _column_order(leaves, tables, height), False
    for t in tables:
        t.anchor = anchor(lines, t.top, t.x0, t.x1, gutter)
    return lines, fell_back


def _column_order(leaves: list[list], tables: list[RawTable], height: float) -> list[Line]:
    """Lines leaf by leaf; a table is read before the line that follows it in its leaf (or the
    first line of the next leaves); footnotes last."""
    table_ids = {id(t) for t in tables}
    ordered: list[Line] = []
    waiting: list[RawTable] = []
    for leaf in leaves:
        leaf_tables = [b for b in leaf if id(b) in table_ids]
        leaf_lines = group_lines([b for b in leaf if id(b) not in table_ids]) if len(leaf_tables) < len(leaf) else []
        items = sorted(leaf_lines + leaf_tables, key=lambda b: (b.top, b.x0))
        for item in items:
            if isinstance(item, RawTable):
                waiting.append(item)
                continue
            for t in waiting:
                t.anchor = item
            waiting = []
            ordered.append(item)
    for t in waiting:
        t.anchor = None
    return _footnotes_last(ordered, height)


def _body_size(lines: list[Line]) -> float:
    """The size that sets most characters of these lines (footnotes may outnumber the body's
    lines on a gazette page, so it is taken above the footnote zone)."""
    weight: Counter[float] = Counter()
    for ln in lines:
        weight[round(ln.size, 1)] += len(ln.text)
    return max(weight, key=lambda s: (weight[s], s))


def _footnotes_last(lines: list[Line], height: float) -> list[Line]:
    """Small lines low on the page (below :data:`FOOT_ZONE`) with no body-size line below them in their
    column (footnotes under each column) moved to the end, in reading order."""
    if len(lines) < 5:
        return lines
    size = _body_size([ln for ln in lines if ln.top <= FOOT_ZONE * height] or lines)
    body = [ln for ln in lines if ln.size >= size - 0.6]

    def foot(ln: Line) -> bool:
        if ln.size >= size - 0.6 or ln.top <= FOOT_ZONE * height:
            return False
        return not any(b.top > ln.top and b.x0 < ln.x1 and ln.x0 < b.x1 for b in body)

    notes = [ln for ln in lines if foot(ln)]
    if not notes:
        return lines
    moved = {id(ln) for ln in notes}
    return [ln for ln in lines if id(ln) not in moved] + notes
