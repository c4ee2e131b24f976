"""A PDF table's cells as printed, and its column headers taken in from the lines above it.

Two things keep a statement's figures tied to their columns (the issue "A figure never loses
its column"):

* **Signs in their figures' cells.** :func:`tidy_table` applies
  :func:`~._table_cells.tidy_rows` to a found table (a lattice cell or an aligned column of
  ``$`` signs, a ``%`` or ``)`` column; a header cell spanning a sign's column and its
  figure's) and merges the column boundaries the same way, so the table still joins its
  continuation on the next page.
* **Header lines above the table.** Filings shade or rule a statement's body rows and set its
  column headers (``Year Ended December 31,`` over ``2022 2021 2020``, ``(In millions)``) above
  the shading, often in bold: the lattice finder leaves them out, and read as lines they become
  headings ("2022") and paragraphs ("2019 2018 2017"); or the finders make a table of the
  header alone. :func:`take_heads` takes the lines set just above a table over its figure
  columns (or a header-only table set just above it) into the table as its header row,
  spanning labels repeated over the columns under them. A table whose first row holds figures
  (it has no header) takes any such lines; a table with a header row only those that are
  years, periods or units, stacked over it.
"""

from __future__ import annotations

import statistics

from ._lines import cluster_rows
from ._model import RawTable, Word
from ._table_rows import phrases
from ._text import clean
from .._table_cells import is_figure, is_period_phrase, is_unit_phrase, stack_header, tidy_rows

_HEAD_GAP = 2.0     # line heights: a header line further above the table (or the line under it) is not its own
_HEAD_LINES = 4     # most header lines taken in above a table
_EDGE = 2.0         # points of slack at the table's edges and its first column boundary
_WORD_SPACE = 0.6   # font sizes: words closer than this form one phrase (one header cell)
_PROSE = 60         # characters: a longer phrase is running text, not a column header


def tidy_table(t: RawTable) -> RawTable:
    """The table with its leading header rows stacked into one (a lattice's two-level header,
    :func:`~._table_cells.stack_header`), every sign in its figure's cell and the emptied
    columns dropped (:func:`~._table_cells.tidy_rows`); column boundaries merged alike."""
    stacked = stack_header(t.rows, fill=True)  # a lattice's two-level header: one header row
    rows, keep, into = tidy_rows(stacked, head=1)
    n = max((len(r) for r in stacked), default=0)
    if len(keep) != n and len(t.columns) == n + 1:
        t.columns = _merged_bounds(t.columns, keep, into)
    t.rows = _name_shares(rows)
    return t


def _share_column(rows: list[list[str]], c: int) -> bool:
    cells = [r[c].strip() for r in rows[1:] if c < len(r) and r[c].strip()]
    return len(cells) >= 2 and all(x.endswith("%") or x.endswith("%)") for x in cells)


def _name_shares(rows: list[list[str]]) -> list[list[str]]:
    """A column of percentages printed beside each amount column ("$ 3,226,773  100.0%") under
    the amount's date alone: it gets that header and a ``%`` ("... 2023 %"), not a bare or a
    truncated one (the spanning label alone), so that its figures keep their year."""
    if len(rows) < 3:
        return rows
    head = rows[0]
    for c in range(2, len(head)):
        left = head[c - 1].strip()
        own = head[c].strip()
        if (left and (not own or (left.startswith(own) and own != left)) and _share_column(rows, c)
                and not _share_column(rows, c - 1)):
            head[c] = f"{left} %"
    return rows


def _merged_bounds(bounds: list[float], keep: list[int], into: dict[int, int]) -> list[float]:
    """Boundaries of the kept columns: a dropped column goes to the column that took its signs,
    else to the kept column on its left (the first column: on its right)."""
    owner = []
    for c in range(len(bounds) - 1):
        if c in keep:
            owner.append(c)
        elif c in into:
            owner.append(into[c])
        else:
            owner.append(max((k for k in keep if k < c), default=min(keep)))
    for c in range(1, len(owner)):  # owners run left to right
        owner[c] = max(owner[c], owner[c - 1])
    return [bounds[0]] + [bounds[c] for c in range(1, len(owner)) if owner[c] != owner[c - 1]] + [bounds[-1]]


def holds_figures(row: list[str]) -> bool:
    """A body row: a figure right of the stub (a year or a period there is a header's, and so is
    a share column's name, ``2022 %``, that :func:`_name_shares` gave it)."""
    return any(c and is_figure(c) and not is_period_phrase(c) and not _names_share(c) for c in row[1:])


def _names_share(cell: str) -> bool:
    return cell.endswith(" %") and is_period_phrase(cell[:-2])


def _rows_above(t: RawTable, words: list[Word]) -> list[list[Word]]:
    """The lines of ``words`` set closely above the table, nearest first."""
    near = [w for w in words if w.bottom <= t.top + 1 and w.top >= t.top - 120]
    rows = [sorted(ws, key=lambda w: w.x0) for ws in cluster_rows(near)]
    return sorted(rows, key=lambda ws: -max(w.bottom for w in ws))


def _heads_columns(ws: list[Word], t: RawTable, figures: bool, above: list[Word] | None) -> bool:
    """Is this line a header over the table's figure columns? Inside the table's width, right of
    its stub, no figure, no running text; when the table already has a header row (``figures``
    False), only years, periods and units. In the stub only a unit, or a period that does not end
    the paragraph above (``above``: the next line up, None when far or absent)."""
    if min(w.x0 for w in ws) < t.x0 - _EDGE or max(w.x1 for w in ws) > t.x1 + _EDGE:
        return False
    stub = t.columns[1] if len(t.columns) > 2 else t.x0
    for p in phrases(ws, _WORD_SPACE * statistics.median(w.size for w in ws)):
        text = clean(" ".join(w.text for w in p))
        period = is_period_phrase(text)
        if len(text) > _PROSE or (is_figure(text) and not period):
            return False
        if p[0].x0 < stub - _EDGE and not (p[-1].x1 <= stub + _EDGE and (
                is_unit_phrase(text) or period and not _ends_paragraph(ws, above))):
            return False
        if not figures and not period:
            return False
    return True


def _ends_paragraph(ws: list[Word], above: list[Word] | None) -> bool:
    """Is this short line the end of the paragraph above it ("... ended January" / "29, 2022.")?
    The line above is running text starting where it starts."""
    if not above:
        return False
    text = " ".join(w.text for w in above)
    return len(text) > _PROSE and abs(above[0].x0 - ws[0].x0) <= _EDGE


def _levels(lines: list[list[Word]], bounds: list[float]) -> list[list[tuple[str, float]]]:
    """Per header line, per column: its text and centre ("" and the column's centre: none)."""
    n = len(bounds) - 1
    centres = [(a + b) / 2 for a, b in zip(bounds, bounds[1:])]
    out = []
    for ws in lines:
        cells: list[list[Word]] = [[] for _ in range(n)]
        for p in phrases(ws, _WORD_SPACE * statistics.median(w.size for w in ws)):
            x0, x1 = p[0].x0, p[-1].x1
            if _whole_table_unit(p):  # "(in thousands)" over the figures: it says so of every column
                cells[0] += p
                continue
            overlap = [max(0.0, min(x1, b) - max(x0, a)) for a, b in zip(bounds, bounds[1:])]
            c = max(range(n), key=lambda k: (overlap[k], -abs(centres[k] - (x0 + x1) / 2)))
            cells[c] += p
        out.append([(clean(" ".join(w.text for w in cell)), (cell[0].x0 + cell[-1].x1) / 2) if cell
                    else ("", centres[c]) for c, cell in enumerate(cells)])
    return out


def _whole_table_unit(p: list[Word]) -> bool:
    """A unit phrase (``(In millions)``), which applies to the whole table."""
    text = " ".join(w.text for w in p)
    return is_unit_phrase(text) and "unaudited" not in text.lower()


def _flatten(levels: list[list[tuple[str, float]]], bounds: list[float]) -> list[str]:
    """One header row: each level's texts top to bottom, a level's label spread over the figure
    columns that the levels below head and it leaves empty (the nearest label of that level)."""
    centres = [(a + b) / 2 for a, b in zip(bounds, bounds[1:])]
    n = len(centres)
    texts = [[text for text, _ in level] for level in levels]
    for i, level in enumerate(levels[:-1]):
        labels = [(text, x) for c, (text, x) in enumerate(level) if text and c > 0]
        for c in range(1, n):
            below = any(texts[j][c] for j in range(i + 1, len(levels)))
            if not texts[i][c] and below and labels:
                texts[i][c] = min(labels, key=lambda lab: abs(lab[1] - centres[c]))[0]
    return [" ".join(level[c] for level in texts if level[c]) for c in range(n)]


def _header_table(t: RawTable, tables: list[RawTable], top: float) -> RawTable | None:
    """A table of header rows only (no figures) set just above ``top`` within ``t``'s width: the
    finders cut a statement's header off its body where a rule or a gap parts them."""
    pitch = (t.bottom - t.top) / max(len(t.rows), 1)
    best = None
    for u in tables:
        if u is t or not u.rows or u.bottom > top + 1 or top - u.bottom > _HEAD_GAP * pitch:
            continue
        if min(u.x1, t.x1) - max(u.x0, t.x0) < 0.8 * (u.x1 - u.x0) or len(u.columns) != len(u.rows[0]) + 1:
            continue  # it stands over the table (over its figure columns, often)
        if not any(holds_figures(r) for r in u.rows) and (best is None or u.bottom > best.bottom):
            best = u
    return best


def _table_levels(u: RawTable, bounds: list[float]) -> list[list[tuple[str, float]]]:
    """Per row of the header table ``u``, per column of ``bounds``: the texts of ``u``'s cells
    that overlap that column most, and their centre (as :func:`_levels`)."""
    n = len(bounds) - 1
    centres = [(a + b) / 2 for a, b in zip(bounds, bounds[1:])]
    out = []
    for row in u.rows:
        texts: list[list[str]] = [[] for _ in range(n)]
        xs: list[list[float]] = [[] for _ in range(n)]
        for c, text in enumerate(row):
            a, b = u.columns[c], u.columns[c + 1]
            overlap = [max(0.0, min(b, y) - max(a, x)) for x, y in zip(bounds, bounds[1:])]
            k = max(range(n), key=lambda j: (overlap[j], -abs(centres[j] - (a + b) / 2)))
            if text and text not in texts[k]:
                texts[k].append(text)
                xs[k].append((a + b) / 2)
        out.append([(" ".join(ts), sum(x) / len(x)) if ts else ("", centres[k]) for k, (ts, x) in
                    enumerate(zip(texts, xs))])
    return out


def _lines_above(t: RawTable, words: list[Word], figures: bool) -> list[list[Word]]:
    """The header lines set above ``t`` (module docstring), nearest first."""
    taken: list[list[Word]] = []
    edge = t.top
    rows = _rows_above(t, words)
    for i, ws in enumerate(rows):
        height = max(w.bottom for w in ws) - min(w.top for w in ws)
        if len(taken) == _HEAD_LINES or edge - max(w.bottom for w in ws) > _HEAD_GAP * height:
            break
        up = rows[i + 1] if i + 1 < len(rows) else None
        if up and min(w.top for w in ws) - max(w.bottom for w in up) > _HEAD_GAP * height:
            up = None
        if not _heads_columns(ws, t, figures, up):
            break
        taken.append(ws)
        edge = min(w.top for w in ws)
    return taken


def _take_head(t: RawTable, words: list[Word], tables: list[RawTable]) -> tuple[set[int], RawTable | None]:
    """Take the header above ``t`` into it (module docstring): the header lines set above it, and
    a header-only table set just above those. Returns the ids of the words taken and the table
    taken. A table whose first row holds figures and that finds no header gets an empty header
    row: a body row read as the header would be repeated over every part of the table."""
    figures = holds_figures(t.rows[0])
    if len(t.columns) != len(t.rows[0]) + 1 or len(t.rows[0]) < 2:
        if figures:
            t.rows = [[""] * len(t.rows[0])] + t.rows
        return set(), None
    taken = _lines_above(t, words, figures)
    top = min((w.top for ws in taken for w in ws), default=t.top)
    upper = _header_table(t, tables, top)
    if upper is not None and not figures and not all(not c or is_period_phrase(c) for r in upper.rows for c in r):
        upper = None  # over a table with a header row, only years, periods and units
    if not taken and upper is None:
        if figures:
            t.rows = [[""] * len(t.rows[0])] + t.rows
        return set(), None
    levels = (_table_levels(upper, t.columns) if upper else []) + _levels(taken[::-1], t.columns)
    if not figures:  # the table's own header row is the lowest level
        levels.append([(text, 0.0) for text in t.rows[0]])
    t.rows = [_flatten(levels, t.columns)] + (t.rows if figures else t.rows[1:])
    t.top = upper.top if upper else top
    return {id(w) for ws in taken for w in ws}, upper


def take_heads(tables: list[RawTable], words: list[Word]) -> tuple[list[RawTable], list[Word]]:
    """Give each table the header set above it (module docstring).

    Args:
        tables: the page's tables (their cells already tidied).
        words: the page's words outside the tables.

    Returns:
        The tables (a header-only table taken into the table under it left out) and the words
        left for the page's text (those taken into a header removed).
    """
    gone: list[RawTable] = []
    for t in sorted(tables, key=lambda t: t.top):
        if not t.rows or any(t is g for g in gone):
            continue
        taken, table = _take_head(t, words, [u for u in tables if not any(u is g for g in gone)])
        if taken:
            words = [w for w in words if id(w) not in taken]
        if table is not None:
            gone.append(table)
    return [t for t in tables if not any(t is g for g in gone)], words
