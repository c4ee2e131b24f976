"""Tables without ruling lines ("stream" tables), the usual case in annual reports and filings.

1. **Rows.** The page's words (ruled tables already removed) are clustered by baseline; a row
   is *tabular* when a horizontal gap of at least ``_CELL_GAP`` font sizes splits it (a word
   space is a quarter of one, a cell padding more than one).
2. **Regions.** Maximal runs of rows set close together (at most ``_ROW_GAP`` line heights
   apart) that hold at least two tabular rows; short label-only rows may sit between them (a
   section label, the first line of a wrapped label), a long one (prose) ends the region; the
   row just above that heads only the figure columns (a spanning label) is taken in.
3. **Columns.** pdfplumber's text-alignment strategy (:func:`pdfplumber.table.words_to_edges_v`:
   the left edges, right edges or centres of three words at least that line up) gives the
   column boundaries, as its ``"text"`` table strategy does. A boundary that cuts through words
   in several rows, that falls in an ordinary word space, or that leaves a column empty is
   dropped: alignment by chance inside a label column is common.
4. **Validation.** Two columns and three rows at least, most rows with two filled cells, one
   column of short cells and at most one of long ones (a page of two text columns is not a
   table), not a hanging-indent list.
5. **Cells.** Words go to the column holding their centre; a label wrapped onto a second line
   joins its row; leading header rows (empty first cell) are flattened into one header row,
   a spanning label ("Group" over "2024" and "2023") repeated on each column it spans.

The result is a :class:`RawTable` like a ruled one (``ruled=False``), so joining across pages,
the real header on every part and ``split_rows`` apply unchanged.
"""

from __future__ import annotations

import bisect
import re
import statistics
from dataclasses import dataclass, field

from ._pdf_lines import cluster_rows
from ._pdf_model import RawTable, Word
from ._pdf_text import clean

# the first column of a list set with a hanging indent: bullets, "1", "1.", "(a)", "iv)"
_LIST_MARK = re.compile(r"^(?:[\u2022\u2023\u25aa\u25cf\u25e6\u2043\u2219\u00b7\u2013\u2014*\u25a0\u25a1-]|"
                        r"\(?(?:\d{1,3}|[a-z]|[ivxlc]{1,6})[.)]?)$")

_CELL_GAP = 1.0     # font sizes: a wider gap inside a row separates two cells
_ROW_GAP = 1.6      # line heights: rows further apart than this do not belong to one table
_SHORT_CELL = 16    # characters: a column whose cells are mostly shorter is table-like
_PROSE_CELL = 30    # characters: two columns whose cells are mostly longer hold running text
_PROSE_ROW = 60     # characters: a label-only row longer than this is prose, not a table row
_WORD_SPACE = 0.6   # font sizes: a boundary with a smaller gap beside it sits in a word space


@dataclass
class _Row:
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


def _make_row(words: list[Word]) -> _Row:
    words = sorted(words, key=lambda w: w.x0)
    size = statistics.median(w.size for w in words)
    tabular = any(b.x0 - a.x1 >= _CELL_GAP * size for a, b in zip(words, words[1:]))
    return _Row(words, min(w.top for w in words), max(w.bottom for w in words), size, tabular)


def _regions(rows: list[_Row]) -> list[list[_Row]]:
    """Runs of close rows with two tabular rows at least, trimmed to start and end on one."""
    out: list[list[_Row]] = []
    cur: list[_Row] = []

    def close() -> None:
        while cur and not cur[-1].tabular:
            cur.pop()
        while cur and not cur[0].tabular:
            cur.pop(0)
        if sum(r.tabular for r in cur) >= 2 and len(cur) >= 3:
            out.append(list(cur))
        cur.clear()

    for r in rows:
        prose = not r.tabular and r.text_len > _PROSE_ROW
        if cur and (prose or r.top - cur[-1].bottom > _ROW_GAP * (cur[-1].bottom - cur[-1].top)):
            close()
        if not prose:
            cur.append(r)
    close()
    return out


def _boundaries(region: list[_Row]) -> list[float]:
    """Inner column boundaries from pdfplumber's text alignment, cleaned (module docstring)."""
    from pdfplumber.table import words_to_edges_v

    words = [w for r in region for w in r.words]
    edges = words_to_edges_v([{"x0": w.x0, "x1": w.x1, "top": w.top, "bottom": w.bottom} for w in words], 3)
    xs = sorted({round(e["x0"], 1) for e in edges})
    inner = [x for x in xs if min(w.x0 for w in words) + 1 < x < max(w.x1 for w in words) - 1]
    return [b for b in inner if _real_boundary(b, region)]


def _real_boundary(b: float, region: list[_Row]) -> bool:
    """A boundary crossed by words in at most one row, with a cell-sized gap in most rows."""
    crossing = tight = sided = 0
    for r in region:
        if any(w.x0 < b - 0.5 and w.x1 > b + 0.5 for w in r.words):
            crossing += 1
            continue
        left = [w.x1 for w in r.words if w.x1 <= b + 0.5]
        right = [w.x0 for w in r.words if w.x0 >= b - 0.5]
        if left and right:
            sided += 1
            tight += min(right) - max(left) < _WORD_SPACE * r.size
    return crossing <= max(1, 0.1 * len(region)) and tight <= 0.3 * max(sided, 1)


def _assign(region: list[_Row], inner: list[float]) -> None:
    """Fill each row's cells (words by centre) and the x-extent of each cell's text."""
    n = len(inner) + 1
    for r in region:
        parts: list[list[Word]] = [[] for _ in range(n)]
        for w in r.words:
            parts[bisect.bisect(inner, (w.x0 + w.x1) / 2)].append(w)
        r.cells = [clean(" ".join(w.text for w in p)) for p in parts]
        r.spans = [(p[0].x0, p[-1].x1) if p else None for p in parts]


def _drop_empty_columns(region: list[_Row], inner: list[float]) -> list[float]:
    used = [any(r.cells[c] for r in region) for c in range(len(inner) + 1)]
    if all(used):
        return inner
    keep = [b for c, b in enumerate(inner) if used[c] and used[c + 1]
            or used[c + 1] and any(used[:c + 1])]
    _assign(region, keep)
    return _drop_empty_columns(region, keep) if len(keep) < len(inner) else keep


def _is_table(region: list[_Row]) -> bool:
    """Module docstring, step 4."""
    n = len(region[0].cells)
    if n < 2 or len(region) < 3:
        return False
    if sum(sum(1 for c in r.cells if c) >= 2 for r in region) < 0.5 * len(region):
        return False
    short, prose = False, 0
    for c in range(n):
        cells = [r.cells[c] for r in region if r.cells[c]]
        median = statistics.median(len(x) for x in cells) if cells else 0
        if cells and median <= _SHORT_CELL:
            short = short or c > 0 or n > 2
        prose += median > _PROSE_CELL
    if prose >= 2:  # two columns of running text: a two-column page, not a table
        return False
    first = [r.cells[0] for r in region if r.cells[0]]
    listy = n == 2 and first and all(_LIST_MARK.match(x) for x in first)
    return short and not listy


def _only_label(r: _Row) -> bool:
    return bool(r.cells[0]) and not any(r.cells[1:])


def _merge_wrapped(rows: list[_Row]) -> list[_Row]:
    """A label wrapped onto two lines is one row: the lower-case continuation joins the label
    line, whichever of the two holds the figures (bottom- or top-aligned cells)."""
    out: list[_Row] = []
    for r in rows:
        cont = r.cells[0][:1].islower()
        if out and cont and _only_label(out[-1]) and not _only_label(r):
            r.cells[0] = out[-1].cells[0] + " " + r.cells[0]
            r.top = out[-1].top
            out[-1] = r
        elif out and cont and _only_label(r) and any(out[-1].cells[1:]):
            out[-1].cells[0] += " " + r.cells[0]
            out[-1].bottom = r.bottom
        else:
            out.append(r)
    return out


def _header(rows: list[_Row], centres: list[float]) -> tuple[list[str], int]:
    """One header row from the leading rows whose first cell is empty (at most three), spanning
    labels repeated over the columns they centre on; returns it and how many rows it used."""
    k = 0
    while k < min(3, len(rows) - 2) and not rows[k].cells[0] and any(rows[k].cells):
        k += 1
    k = max(k, 1)
    heads = [list(r.cells) for r in rows[:k]]
    for i, row in enumerate(heads[:-1]):
        below = [any(h[c] for h in heads[i + 1:]) for c in range(len(row))]
        phrases = [(c, sum(rows[i].spans[c]) / 2) for c in range(len(row)) if row[c]]
        filled = list(row)
        for c in range(len(row)):
            if row[c] or not below[c] or not phrases:
                continue
            src, _ = min(phrases, key=lambda p: abs(p[1] - centres[c]))
            if all(not row[j] for j in range(min(src, c) + 1, max(src, c))):
                filled[c] = row[src]
        heads[i] = filled
    return [" ".join(h[c] for h in heads if h[c]) for c in range(len(heads[0]))], k


def _span_above(rows: list[_Row], region: list[_Row], first_boundary: float) -> None:
    """Take in the row just above a region when it only heads the figure columns: a single
    spanning label ("Year ended 31 December" over "2024  2023") has no cell gap of its own."""
    at = next(i for i, r in enumerate(rows) if r is region[0])
    if at == 0:
        return
    above = rows[at - 1]
    if (not above.tabular and region[0].top - above.bottom <= _ROW_GAP * (above.bottom - above.top)
            and all(w.x0 >= first_boundary - 1 for w in above.words)):
        region.insert(0, above)


def find_tables(words: list[Word]) -> list[RawTable]:
    """Borderless tables among ``words`` (see the module docstring), top to bottom."""
    if len(words) < 6:
        return []
    rows = sorted((_make_row(ws) for ws in cluster_rows(words)), key=lambda r: r.top)
    if sum(r.tabular for r in rows) < 2:
        return []
    out = []
    for region in _regions(rows):
        inner = _boundaries(region)
        if not inner:
            continue
        _span_above(rows, region, inner[0])
        _assign(region, inner)
        inner = _drop_empty_columns(region, inner)
        if not inner or not _is_table(region):
            continue
        x0 = min(w.x0 for r in region for w in r.words)
        x1 = max(w.x1 for r in region for w in r.words)
        bounds = [x0] + inner + [x1]
        centres = [(a + b) / 2 for a, b in zip(bounds, bounds[1:])]
        merged = _merge_wrapped(region)
        header, k = _header(merged, centres)
        cells = [header] + [r.cells for r in merged[k:]]
        out.append(RawTable(region[0].top, region[-1].bottom, x0, x1, cells, bounds, ruled=False))
    return out
