"""Rows and regions of a page's words, the first steps of the borderless table finder
(:mod:`._borderless`, steps 1 and 2 of its docstring).

A region is a run of rows set close together that holds two tabular rows at least. Filings make
it harder than a gap rule alone: they leave a blank line between groups of a statement's rows,
wrap a long row label over lines (the figures on its last line), open a group with a long label
ending in a colon, set a row's label a word space from its figures, and print a second statement
right under the first. Each has a rule here, and each keeps to a table's own alignment: the
rows after a blank line join only when their figures end where the table's do.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from ._model import Word
from ._table_rows import glue_signs, without_leaders
from .._table_cells import is_figure, is_period_phrase, is_unit_phrase

CELL_GAP = 1.0     # font sizes: a wider gap inside a row separates two cells
ROW_GAP = 1.6      # line heights: rows further apart than this do not belong to one table
_BLANK_GAP = 3.5    # line heights: ... unless the rows after the gap line up with it (a blank line)
_ALIGN = 1.5        # points: figures whose right edges are this close stand in one column
_PROSE_ROW = 60     # characters: a label-only row longer than this is prose, not a table row
_YEAR = re.compile(r"(19|20)\d\d")


@dataclass
class Row:
    words: list[Word]
    top: float
    bottom: float
    size: float
    tabular: bool
    cells: list[str] = field(default_factory=list)
    spans: list[tuple[float, float] | None] = field(default_factory=list)

    @property
    def text_len(self) -> int:
        return sum(len(w.text) + 1 for w in self.words)


def make_row(words: list[Word]) -> Row:
    words = sorted(words, key=lambda w: w.x0)
    words = glue_signs(without_leaders(words, CELL_GAP))  # "$ 1,184" one word: a sign is not a column
    size = statistics.median(w.size for w in words)
    tabular = any(b.x0 - a.x1 >= CELL_GAP * size for a, b in zip(words, words[1:]))
    return Row(words, min(w.top for w in words), max(w.bottom for w in words), size, tabular)


def regions(rows: list[Row]) -> list[list[Row]]:
    """Runs of close rows with two tabular rows at least, trimmed to start on one and to end on
    one or on the wrapped last line of one (set closer than the rows are to each other)."""
    out: list[list[Row]] = []
    cur: list[Row] = []

    def close() -> None:
        while cur and not cur[-1].tabular and not _wrapped_tail(cur):
            cur.pop()
        while cur and not cur[0].tabular:
            cur.pop(0)
        if sum(r.tabular for r in cur) >= 2 and len(cur) >= 3:
            out.append(list(cur))
        cur.clear()

    for i, r in enumerate(rows):
        prose = _prose(r, cur, rows[i + 1:i + 4])
        far = bool(cur) and r.top - cur[-1].bottom > ROW_GAP * (cur[-1].bottom - cur[-1].top)
        if far and not prose and _group_after_blank(cur, rows[i:]):
            far = False
        if cur and (prose or far):
            close()
        if not prose:
            cur.append(r)
    close()
    return out


def _figure_ends(rows: list[Row]) -> set[float]:
    """Right edges of the figures in ``rows`` (rounded to half a point)."""
    return {round(w.x1 * 2) / 2 for r in rows for w in r.words
            if is_figure(w.text) and not is_period_phrase(w.text)}


def _group_after_blank(cur: list[Row], rest: list[Row]) -> bool:
    """Does the row group after a blank line belong to the table above it? Statements set a
    blank line between groups of rows (after "Gross profit", before "Net income per share:").
    It does when it comes within ``_BLANK_GAP`` line heights, starts with a row of figures (or
    with one or two short label lines and then one, set close) and its figures end where the
    table's do."""
    last = cur[-1]
    if not any(r.tabular for r in cur) or rest[0].top - last.bottom > _BLANK_GAP * (last.bottom - last.top):
        return False
    first, k = rest[0], 0
    while not first.tabular:  # section labels ("LIABILITIES AND EQUITY" / "Current liabilities:")
        k += 1
        if first.text_len > _PROSE_ROW or k > 2 or k >= len(rest):
            return False
        if rest[k].top - first.bottom > _BLANK_GAP * (first.bottom - first.top):
            return False
        first = rest[k]
    ends, above = _figure_ends([first]), _figure_ends(cur[-6:])
    return len(ends) >= 1 and all(any(abs(x - y) <= _ALIGN for y in above) for x in ends)


def _has_figure(r: Row) -> bool:
    """A row holding a figure ("52 Weeks Ended" holds none: a period)."""
    return not is_period_phrase(row_text(r)) and any(is_figure(w.text) and not is_period_phrase(w.text) for w in r.words)


def restarts(region: list[Row]) -> list[list[Row]]:
    """The region cut where a second statement starts under the first with no gap to part
    them (an earnings release's "Exhibit 2" under "Exhibit 1"): after body rows with figures,
    header lines of years and periods ("52 Weeks Ended" / "January 28," / "2023") over rows of
    figures. The title lines above those headers go to neither table (they are text)."""
    for j in range(1, len(region)):
        if not _has_figure(region[j]) or _has_figure(region[j - 1]):
            continue
        h = j
        while h > 0 and not _has_figure(region[h - 1]) and is_period_phrase(row_text(region[h - 1])):
            h -= 1
        while h < j and is_unit_phrase(row_text(region[h])):  # "(In thousands)" centred: the title's
            h += 1
        if h == j or not any(_YEAR.search(row_text(r)) for r in region[h:j]):
            continue  # "At May 31," alone over the balance rows is a group label, not a new header
        t = h
        while t > 0 and not region[t - 1].tabular and not _label_and_figures(region[t - 1]):
            t -= 1
        if sum(_has_figure(r) for r in region[:t]) >= 2:
            return [region[:t]] + restarts(region[h:])
    return [region]


def row_text(r: Row) -> str:
    """The row's words, a space apart."""
    return " ".join(w.text for w in r.words)


def _label_and_figures(r: Row) -> bool:
    """A statement row set tight ("Selling, general and administrative expenses 762,706 23.6%
    649,968 23.8%": a word space between label and figures): words, then two figures or more."""
    k = len(r.words)
    while k > 0 and is_figure(r.words[k - 1].text) and not is_period_phrase(r.words[k - 1].text):
        k -= 1
    return 0 < k <= len(r.words) - 2


def _prose(r: Row, cur: list[Row], after: list[Row]) -> bool:
    """Does ``r`` end the table above it as text? A label-only line longer than a prose row that
    is no group label, tight row or wrapped label; or a lead-in to the next table, however
    short. ``after``: the next few rows."""
    if _lead_in(r, after[:1]):
        return True
    return (not r.tabular and r.text_len > _PROSE_ROW and not _group_label(r, cur, after[:1])
            and not _label_and_figures(r) and not _wrapped_label(r, cur, after))


def _wrapped_label(r: Row, cur: list[Row], after: list[Row]) -> bool:
    """A long row label wrapped over lines, inside a table: the lines run on, each set close
    under the one before, to a line that ends with the row's figures ("Federal funds sold ...
    (included $X and $Y at fair" / "value)  272,481  296,284") or to a group label ending with
    a colon over a row of figures ("Cash flow from changes in current assets and liabilities,
    excluding the effects of" / "acquisitions and divestitures:").

    A lead-in sentence under a table ("... are classified in our Consolidated Statements of
    Earnings as follows:") is no label: it ends with its own colon, and what follows it is the
    next table's header (a tabular line of words, or of years alone), not the label's last line."""
    if not any(x.tabular for x in cur[-4:]) or r.text_len > 3 * _PROSE_ROW or row_text(r).endswith(":"):
        return False
    prev = r
    for k, nxt in enumerate(after):
        if nxt.top - prev.bottom > ROW_GAP * (prev.bottom - prev.top) or nxt.words[0].x0 < r.words[0].x0 - _ALIGN:
            return False
        if _ends_in_figures(nxt):  # a share count inside the label's text is not its figures
            return not _years_only(nxt)
        if nxt.tabular or row_text(nxt).endswith(":"):
            return not nxt.tabular and k + 1 < len(after) and _ends_in_figures(after[k + 1])
        prev = nxt
    return False


def _years_only(r: Row) -> bool:
    """A header line of years ("In Millions  2020  2019  2018"): every figure in it is a year."""
    figures = [w.text for w in r.words if is_figure(w.text)]
    return bool(figures) and all(_YEAR.fullmatch(f) for f in figures)


def _ends_in_figures(r: Row) -> bool:
    """A table row's last line: its figures in cells of their own, at its end (a footnote's
    "... $140.8 million for the year ended December 31, 2017." holds figures in running text)."""
    last = r.words[-1].text
    return r.tabular and is_figure(last) and not is_period_phrase(last)


def _group_label(r: Row, cur: list[Row], after: list[Row]) -> bool:
    """A long label-only line that opens a group of rows inside a statement ("Adjustments to
    reconcile net income to net cash provided by operating activities:"), not prose: it ends
    with a colon, is at most two prose rows long and follows a row of figures (a numbered heading
    set with a gap, "8.   Accumulated Other Comprehensive Loss", is tabular but no table row, and
    the lead-in under it, "The following table summarizes ...:", is text), and opens rows: the
    line under it holds figures or is a label ending in a colon itself (under a lead-in set right
    after a table, "Joint venture earnings and cash flow activity is as follows:", comes the next
    table's header, "Fiscal Year" or a line of years)."""
    text = " ".join(w.text for w in r.words)
    opens = bool(after) and (row_text(after[0]).endswith(":") or (_has_figure(after[0]) and not _years_only(after[0])))
    return (text.endswith(":") and r.text_len <= 2 * _PROSE_ROW and bool(cur) and cur[-1].tabular
            and _has_figure(cur[-1]) and opens)


def _lead_in(r: Row, after: list[Row]) -> bool:
    """A short sentence introducing the next table ("Net sales by class of similar products were
    as follows:"), however short: it ends with a colon and the next line is that table's header
    (a period label such as "Fiscal Year", or a line of years), not a row of its group. Read as a
    group label, it would join two tables and block their column gutters."""
    if r.tabular or not row_text(r).endswith(":") or not after:
        return False
    nxt = after[0]
    if _years_only(nxt):
        return True
    return not _has_figure(nxt) and is_period_phrase(row_text(nxt)) and not row_text(nxt).endswith(":")


def _wrapped_tail(rows: list[Row]) -> bool:
    """The last row is the wrapped end of a cell: the tabular rows are set further apart than
    twice its distance to the row above (a cell's line spacing, not a row's)."""
    gaps = [b.top - a.bottom for a, b in zip(rows, rows[1:]) if b.tabular]
    if len(rows) < 2 or not gaps:
        return False
    tail = rows[-1].top - rows[-2].bottom
    return any(r.tabular for r in rows[-3:-1]) and tail < 0.5 * statistics.median(gaps)


__all__ = ["CELL_GAP", "ROW_GAP", "Row", "make_row", "regions", "restarts", "row_text"]
