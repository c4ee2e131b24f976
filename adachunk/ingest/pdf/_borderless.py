"""Tables without ruling lines ("stream" tables), the usual case in annual reports and filings.

1. **Rows.** The page's words (ruled tables already removed) are clustered by baseline; dot
   leaders (``Total . . . . .``, ``Total.......``) are dropped as the space they are, a nil
   marker (``...`` a cell gap from its neighbours) kept (:func:`without_leaders`); a row is *tabular* when a horizontal gap of at least ``CELL_GAP`` font sizes splits it
   (a word space is a quarter of one, a cell padding more than one).
2. **Regions.** Maximal runs of rows set close together (at most ``ROW_GAP`` line heights
   apart) that hold at least two tabular rows; short label-only rows may sit between them (a
   section label, the first line of a wrapped label), a long one (prose) ends the region, and
   it may end on the wrapped last line of a cell; the row just above that heads only the
   figure columns (a spanning label) is taken in. A statement's blank lines between row
   groups, wrapped and group labels, tight rows and a second statement printed under the
   first have rules of their own (:mod:`._regions`).
3. **Columns.** pdfplumber's text-alignment strategy (:func:`pdfplumber.table.words_to_edges_v`:
   the left edges, right edges or centres of three words at least that line up) gives the
   column boundaries, as its ``"text"`` table strategy does. A boundary that cuts through words
   in several rows, that falls in an ordinary word space, or that leaves a column empty is
   dropped: alignment by chance inside a label column is common. Each boundary is then moved
   to the middle of the body's gutter, so that the same table on the next page, whose widest
   cell differs, has the same columns.
4. **Validation.** Two columns and three rows at least, most rows with two filled cells, one
   column of short cells and at most one of long ones (a page of two text columns is not a
   table), not a hanging-indent list.
5. **Cells.** A phrase (words a word space apart) goes whole to one column: the one it lies
   in, or, when a boundary cuts it (a header "2024 EUR k" wider than the figures under it, a
   long label), the one whose other cells it overlaps most. Lines are grouped into rows by the
   row-label column and the vertical rhythm (:mod:`._table_rows`); leading header rows
   (empty first cell) are flattened into one header row, a spanning label ("Group" over "2024"
   and "2023") repeated on each column it spans.

The result is a :class:`RawTable` like a ruled one (``ruled=False``), so joining across pages,
the real header on every part and ``split_rows`` apply unchanged.
"""

from __future__ import annotations

import re
import statistics

from ._lines import cluster_rows
from ._model import RawTable, Word
from ._regions import CELL_GAP, ROW_GAP, Row, make_row, regions, restarts
from ._table_rows import is_anchor, join_cells, phrases, place, row_groups, strip_leader
from ._text import clean
from .._table_cells import is_figure, is_period_phrase

# the first column of a list set with a hanging indent: bullets, "1", "1.", "(a)", "iv)"
_LIST_MARK = re.compile(r"^(?:[\u2022\u2023\u25aa\u25cf\u25e6\u2043\u2219\u00b7\u2013\u2014*\u25a0\u25a1-]|"
                        r"\(?(?:\d{1,3}|[a-z]|[ivxlc]{1,6})[.)]?)$")

# a header cell: a word, or a year ("2024", "2011-12"), not a figure ("1,204.5")
_HEADING_CELL = re.compile(r"[^\W\d_]|^(?:19|20)\d\d(?:[-/]\d{2,4})?$")
_SHORT_CELL = 16    # characters: a column whose cells are mostly shorter is table-like
_PROSE_CELL = 30    # characters: two columns whose cells are mostly longer hold running text
_HEAD_ROWS = 4      # most header lines over a table ("13 Weeks Ended" / "January" / "28," / "2023")
_WORD_SPACE = 0.6   # font sizes: a boundary with a smaller gap beside it sits in a word space
_OVER = 0.25        # share of a header phrase's width over a column that makes it span that column


def _boundaries(region: list[Row]) -> list[float]:
    """Inner column boundaries from pdfplumber's text alignment, cleaned (module docstring)."""
    from pdfplumber.table import words_to_edges_v

    words = [w for r in region for w in r.words]
    edges = words_to_edges_v([{"x0": w.x0, "x1": w.x1, "top": w.top, "bottom": w.bottom} for w in words], 3)
    aligned = {round(e["x0"], 1) for e in edges}
    # a gutter no alignment edge bounds or crosses: a boundary that alignment missed
    missed = {round((a + b) / 2, 1) for a, b in _gutters(region) if not any(a - 1 <= x <= b + 1 for x in aligned)}
    xs = sorted(aligned | missed)
    inner = [x for x in xs if min(w.x0 for w in words) + 1 < x < max(w.x1 for w in words) - 1]
    body = _below_headers(region)
    return [b for b in inner if _real_boundary(b, body)]


def _below_headers(region: list[Row]) -> list[Row]:
    """The region from its first row with a figure on: header lines centred over a figure and its
    percentage ("January 29," over "2,729,388  100.0%") cross the boundary between them, which
    the body's rows do not."""
    first = next((i for i, r in enumerate(region)
                  if any(is_figure(w.text) and not is_period_phrase(w.text) for w in r.words)), 0)
    return region[first:] if len(region) - first >= 3 else region


def _gutters(region: list[Row]) -> list[tuple[float, float]]:
    """The vertical white gutters at least a font size wide that (nearly) every row
    leaves open: the column boundaries that text alignment misses when a text column is set
    right-aligned or centred. A spanning header may cross one (as in :func:`_real_boundary`)."""
    size = statistics.median(r.size for r in region)
    events: list[tuple[float, int]] = []
    for r in region:
        spans: list[list[float]] = []
        for w in r.words:  # the row's covered x-ranges: words closer than a cell gap merged
            if spans and w.x0 - spans[-1][1] < CELL_GAP * r.size:
                spans[-1][1] = max(spans[-1][1], w.x1)
            else:
                spans.append([w.x0, w.x1])
        events += [(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans]
    allowed = max(1, int(0.1 * len(region)))
    out: list[tuple[float, float]] = []
    depth, start = 0, None
    for x, d in sorted(events):
        depth += d
        if depth <= allowed and start is None:
            start = x
        elif depth > allowed and start is not None:
            if x - start >= CELL_GAP * size:
                out.append((start, x))
            start = None
    return out


def _real_boundary(b: float, region: list[Row]) -> bool:
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


def _assign(region: list[Row], inner: list[float], head: int = 0) -> None:
    """Fill each row's cells and the x-extent of each cell's text.

    A phrase (words a word space apart) goes whole to one column: by its centre when it sits
    inside one; when a boundary cuts it (a header "2024 EUR k" wider than the figures under
    it, a long label), to the column whose other cells it overlaps most. The ``head`` leading
    rows (header lines) go over the body's cells (:func:`place`).
    """
    placed = place([r.words for r in region], inner, [_WORD_SPACE * r.size for r in region], head)
    for r, parts in zip(region, placed):
        r.cells = [strip_leader(clean(" ".join(w.text for w in p))) for p in parts]
        r.spans = [(p[0].x0, p[-1].x1) if p else None for p in parts]


def _drop_empty_columns(region: list[Row], inner: list[float], head: int = 0) -> list[float]:
    """Boundaries without those of columns the body leaves empty (the header alone may fill
    one: a header line set beside its figures is not a column of its own)."""
    used = [any(r.cells[c] for r in region[head:]) for c in range(len(inner) + 1)]
    if all(used):
        return inner
    keep = [b for c, b in enumerate(inner) if used[c] and used[c + 1]
            or used[c + 1] and any(used[:c + 1])]
    _assign(region, keep, head)
    return _drop_empty_columns(region, keep, head) if len(keep) < len(inner) else keep


def _head_lines(region: list[Row]) -> int:
    """How many leading lines head the table: those above its first line with figures (four at
    most), or the first line of a table without figures."""
    first = next((i for i, r in enumerate(region) if is_anchor(r.cells)), None)
    return min(first, _HEAD_ROWS, len(region) - 2) if first is not None else 1


def _gutter_middles(region: list[Row], inner: list[float]) -> list[float]:
    """Each boundary moved to the middle of the empty gutter it lies in, among the body rows
    (the header row left out: a wide header narrows a gutter on its page only). Where the widest
    cell of a page puts the alignment edge varies from page to page, the body's gutter middle
    much less, so a table continued on the next page is recognised by its columns."""
    body = region[max(_header_count(region), 1):] if len(region) > 3 else region
    out = []
    for c, b in enumerate(inner):
        left = [s[1] for r in body if (s := r.spans[c]) is not None]
        right = [s[0] for r in body if (s := r.spans[c + 1]) is not None]
        lo, hi = max(left, default=b), min(right, default=b)
        out.append((lo + hi) / 2 if lo - 1 <= b <= hi + 1 else b)
    return out


def _is_table(region: list[Row]) -> bool:
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


def _merge_wrapped(rows: list[Row]) -> list[Row]:
    """Rows of the table from its lines: leading header lines (first cell empty) kept apart,
    the body's wrapped lines joined into their rows (:func:`row_groups`)."""
    k = _header_count(rows)
    body = rows[k:]
    groups = row_groups([r.cells for r in body], [r.top for r in body], [r.bottom for r in body])
    out = rows[:k]
    for g in groups:
        first, last = body[g[0]], body[g[-1]]
        first.cells = join_cells([body[i].cells for i in g])
        first.bottom = last.bottom
        out.append(first)
    return out


def _header_count(rows: list[Row]) -> int:
    """How many leading rows are header rows: first cell empty or a unit or period (at most four), and the row
    under a spanning label ("Actual" over two years) when it holds only headings ("Programme",
    "2022", "2023"): the stub's label often sits on the last header row."""
    k = 0
    while k < min(_HEAD_ROWS, len(rows) - 2) and _stub_free(rows[k]) and any(rows[k].cells):
        k += 1
    if 0 < k < len(rows) - 2 and not all(rows[k - 1].cells[1:]):
        if all(_HEADING_CELL.search(c) for c in rows[k].cells if c):
            k += 1
            # that row's column headers wrapped onto a line of their own under it ("Under 18" /
            # "years"): an empty stub, words only, headings in several columns
            while (k < min(_HEAD_ROWS, len(rows) - 2) and not rows[k].cells[0] and not is_anchor(rows[k].cells)
                   and sum(bool(c) for c in rows[k].cells) >= 2
                   and all(_HEADING_CELL.search(c) for c in rows[k].cells if c)):
                k += 1
    return k


def _stub_free(row: Row) -> bool:
    """A header line: nothing in the stub, or a unit or period ("(In millions)", "Fiscal 2022")
    beside column headers that hold no figure."""
    stub, rest = row.cells[0], row.cells[1:]
    if not stub:
        return True
    return (is_period_phrase(stub) and any(rest)
            and not any(is_figure(c) and not is_period_phrase(c) for c in rest))


def _header(rows: list[Row], bounds: list[float]) -> tuple[list[str], int]:
    """One header row from the leading header rows (at most four), spanning
    labels repeated over the columns they centre on; returns it and how many rows it used."""
    centres = [(a + b) / 2 for a, b in zip(bounds, bounds[1:])]
    k = max(_header_count(rows), 1)
    heads = [list(r.cells) for r in rows[:k]]
    for i, row in enumerate(heads[:-1]):
        below = [any(h[c] for h in heads[i + 1:]) for c in range(len(row))]
        phrases = [(c, sum(rows[i].spans[c]) / 2) for c in range(len(row)) if row[c]]
        filled = list(row)
        for c in range(len(row)):
            if c == 0 or row[c] or not below[c] or not phrases:  # a spanning label heads figures, not the stub
                continue
            src, _ = min(phrases, key=lambda p: abs(p[1] - centres[c]))
            if heads[i + 1][src][:1].islower() or not _spans(row, rows[i].spans, src, c, bounds):
                continue  # "Cost per" over "product", "American" over "Indian/Alaskan": a wrapped header
            if all(not row[j] for j in range(min(src, c) + 1, max(src, c))):
                filled[c] = row[src]
        heads[i] = filled
    return [" ".join(h[c] for h in heads if h[c]) for c in range(len(heads[0]))], k


def _spans(row: list[str], spans: list[tuple[float, float] | None], src: int, c: int, bounds: list[float]) -> bool:
    """Does the header phrase in column ``src`` span column ``c`` too? Never the stub's. The only
    label of its line spans when it reaches across a column edge, over the middle of the
    columns after the stub or sits in their middle column ("Year Ended December 31," over three
    years), not when it sits within one column off the middle ("American" over
    "Indian/Alaskan" over "Native": one column's header, wrapped). One of several labels spans
    the columns it overlaps by a quarter of its width, and those up to its neighbours when none
    is filled ("Total", "Male", "Female", each centred over its three columns)."""
    span = spans[src]
    if src == 0 or span is None:
        return False
    if sum(bool(x) for x in row[1:]) == 1:  # the line's one label: across a column edge, or centred on them all
        middle = src in (len(row) // 2, (len(row) + 1) // 2)  # the middle one of columns 1..n-1
        return middle or span[0] <= (bounds[1] + bounds[-1]) / 2 <= span[1] or any(span[0] < b < span[1]
                                                                                   for b in bounds[1:-1])
    overlap = min(span[1], bounds[c + 1]) - max(span[0], bounds[c])
    if overlap > _OVER * (span[1] - span[0]):
        return True
    return (src == 1 or not row[src - 1]) and (src + 1 == len(row) or not row[src + 1])


def _span_above(rows: list[Row], region: list[Row], first_boundary: float) -> None:
    """Take in the row just above a region when it only heads the figure columns: a single
    spanning label ("Year ended 31 December" over "2024  2023") has no cell gap of its own. A
    line centred on the whole table is its caption, not a spanning label."""
    at = next(i for i, r in enumerate(rows) if r is region[0])
    if at == 0:
        return
    above = rows[at - 1]
    x0, x1 = min(w.x0 for r in region for w in r.words), max(w.x1 for r in region for w in r.words)
    centre = (min(w.x0 for w in above.words) + max(w.x1 for w in above.words)) / 2
    if (not above.tabular and region[0].top - above.bottom <= ROW_GAP * (above.bottom - above.top)
            and all(w.x0 >= first_boundary - 1 for w in above.words)
            and abs(centre - (x0 + x1) / 2) > 0.05 * (x1 - x0)):
        region.insert(0, above)


def _without_titles(region: list[Row], inner: list[float]) -> list[Row]:
    """The region without the lines that lead into it and are not table rows: a running
    header or title running across three columns or more, then any line without a cell gap
    (a caption) up to the first tabular row."""
    k = 0
    while k < len(region) and (not region[k].tabular or _titled(region[k], inner)):
        k += 1
    return region[k:] if k and any(_titled(r, inner) for r in region[:k]) else region


def _titled(r: Row, inner: list[float]) -> bool:
    """A long phrase crossing two column boundaries or more: text across the table."""
    return any(len(text) > _PROSE_CELL and sum(p[0].x0 < b < p[-1].x1 for b in inner) >= 2
               for p in phrases(r.words, _WORD_SPACE * r.size) if (text := " ".join(w.text for w in p)))


def find_tables(words: list[Word]) -> list[RawTable]:
    """Borderless tables among ``words`` (see the module docstring), top to bottom."""
    if len(words) < 6:
        return []
    rows = sorted((make_row(ws) for ws in cluster_rows(words)), key=lambda r: r.top)
    if sum(r.tabular for r in rows) < 2:
        return []
    out = []
    for region in (part for whole in regions(rows) for part in restarts(whole)):
        inner = _boundaries(region)
        if not inner:
            continue
        region = _without_titles(region, inner)
        if len(region) < 3:
            continue
        _span_above(rows, region, inner[0])
        _assign(region, inner)
        head = _head_lines(region)
        _assign(region, inner, head)
        inner = _drop_empty_columns(region, inner, head)
        if not inner or not _is_table(region):
            continue
        x0 = min(w.x0 for r in region for w in r.words)
        x1 = max(w.x1 for r in region for w in r.words)
        bounds = [x0] + _gutter_middles(region, inner) + [x1]
        merged = _merge_wrapped(region)
        header, k = _header(merged, bounds)
        cells = [header] + [r.cells for r in merged[k:]]
        out.append(RawTable(region[0].top, region[-1].bottom, x0, x1, cells, bounds, ruled=False))
    return out
