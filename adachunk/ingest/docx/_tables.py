"""Word tables (``w:tbl``) → rows of cell texts for a Markdown pipe table.

Merged cells repeat their text in every grid cell they cover: a horizontal merge
(``w:gridSpan n``) fills n columns, a vertical merge (``w:vMerge`` restart, then continue) fills
the cells below. A pipe table has no merged cells, and repeating the text keeps every row
readable on its own (a chunk holding one row still says which group it belongs to), at the cost
of some duplicated text. ``w:gridBefore`` / ``w:gridAfter`` add empty cells. Rows deleted as a
tracked change (``w:trPr/w:del``) are dropped when accepting, inserted rows when rejecting.

Spans are clamped as the HTML reader clamps ``colspan`` (:data:`MAX_SPAN`, the HTML standard's
limit; Word's own grid holds at most 63 columns): a hostile ``gridSpan`` of 10^8 cannot allocate
a row of 10^8 cells.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ._xml import W, int_val, val
from ..html._tables import MAX_COLSPAN as MAX_SPAN

_WRAPPERS = (W + "sdt", W + "customXml")


def _children(el: Any, tag: str) -> Iterator[Any]:
    """Children ``tag`` of ``el``, looking through content controls and custom XML wrappers."""
    for ch in el:
        if ch.tag == tag:
            yield ch
        elif ch.tag in _WRAPPERS:
            inner = ch.find(W + "sdtContent") if ch.tag == W + "sdt" else ch
            if inner is not None:
                yield from _children(inner, tag)


def rows_of(tbl: Any, tracked: str = "accept") -> list[Any]:
    """The ``w:tr`` of a table that are shown under ``tracked`` ("accept" or "reject")."""
    out = []
    for tr in _children(tbl, W + "tr"):
        trpr = tr.find(W + "trPr")
        gone = W + ("del" if tracked == "accept" else "ins")
        if trpr is not None and trpr.find(gone) is not None:
            continue
        out.append(tr)
    return out


def cells_of(tr: Any) -> list[Any]:
    """The ``w:tc`` of a row."""
    return list(_children(tr, W + "tc"))


def _span(props: Any, name: str, default: int) -> int:
    """A span property (``w:gridSpan``, ``w:gridBefore``, ``w:gridAfter``) clamped to 0..MAX_SPAN."""
    return min(max(0, int_val(props, name, default) or 0), MAX_SPAN)


def table_grid(tbl: Any, cell_text: Callable[[Any], str], tracked: str = "accept") -> list[list[str]]:
    """Rows of cell texts, merged cells repeated over the grid cells they cover, all rows padded
    to the same width. ``cell_text`` renders one ``w:tc``; it is called once per cell, in document
    order, for every cell (so paragraph counters and list numbering advance as in Word), but a
    continuation cell of a vertical merge shows the text of the cell above."""
    grid: list[list[str]] = []
    above: dict[int, str] = {}
    for tr in rows_of(tbl, tracked):
        trpr = tr.find(W + "trPr")
        row = [""] * _span(trpr, "gridBefore", 0)
        for tc in cells_of(tr):
            tcpr = tc.find(W + "tcPr")
            span = max(1, _span(tcpr, "gridSpan", 1))
            merge = tcpr.find(W + "vMerge") if tcpr is not None else None
            text = cell_text(tc)
            if merge is not None and (val(merge) or "continue") == "continue":
                text = above.get(len(row), "")
            for _ in range(span):
                above[len(row)] = text
                row.append(text)
        row.extend([""] * _span(trpr, "gridAfter", 0))
        grid.append(row)
    width = max((len(r) for r in grid), default=0)
    return [r + [""] * (width - len(r)) for r in grid]


__all__ = ["cells_of", "rows_of", "table_grid"]
