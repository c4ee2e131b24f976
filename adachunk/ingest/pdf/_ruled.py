"""Ruled tables whose rulings do not separate every row, and frames that are not tables.

pdfplumber's lattice finder sees the cells the rulings draw. Two common layouts defeat a
one-cell-one-value reading:

* **Ruled header, open body.** The header is gridded, the body is one box (a Senate
  expenditure report): the body's single cell spans every column and holds whole columns of
  names, dates and amounts. Its words are put back into the header's columns and its lines
  grouped into rows (:func:`~._table_rows.row_groups`: a description's second line joins
  its row).
* **Rules every few rows.** Statistical tables rule a line every five rows (the FBI's NICS
  report): each cell holds five values, one per line. When most filled cells of a ruled row
  hold the same lines and at least two of them carry figures, each line is a row.

A wrapped cell (a drug's name over three lines beside a one-line dose) is neither: its other
cells hold one line, so the row stays one row; nor is a row with a cell reaching down into the
next rows (the lattice did separate them there), nor the first row (the header).

A two-level header ("OBLIGATION/SERVICE DATES" over "START" and "END") becomes one header row,
each spanning cell's text over every column it spans ("OBLIGATION/SERVICE DATES START"), so
the chunker's table rule repeats a header that names every column.

:func:`drop_frames` removes a "table" that only frames another one (a page border drawn around
the real table and the page's furniture), so its text is read as lines again.
"""

from __future__ import annotations

import statistics
from typing import Callable

from ._lines import cluster_rows
from ._model import RawTable, Word
from ._table_rows import glue_signs, is_anchor, join_cells, place, row_groups
from ._text import clean

Box = tuple[float, float, float, float]
_WORD_SPACE = 0.6  # font sizes: words closer than this belong to one phrase (one cell)
_SAME_LINES = 0.75  # share of filled cells holding a word on every line of a multi-record row


def _column_edges(grid: list[list[Box | None]]) -> list[float]:
    """Left edge of each grid column (the lattice's columns), from any cell that starts there."""
    n = max(len(r) for r in grid)
    edges = []
    for j in range(n):
        xs = [r[j][0] for r in grid if j < len(r) and r[j] is not None]
        edges.append(min(xs) if xs else (edges[-1] if edges else 0.0))
    return edges


def _lines(words: list[Word], inner: list[float]) -> list[tuple[list[str], float, float]]:
    """The words of a band as lines, each line's words put into the columns (phrases whole)."""
    rows = sorted(cluster_rows(words), key=lambda ws: min(w.top for w in ws))
    rows = [glue_signs(sorted(ws, key=lambda w: w.x0)) for ws in rows]
    placed = place(rows, inner, [_WORD_SPACE * statistics.median(w.size for w in ws) for ws in rows])
    return [([clean(" ".join(w.text for w in p)) for p in parts], min(w.top for w in ws), max(w.bottom for w in ws))
            for parts, ws in zip(placed, rows)]


def _multi_record(row: list[Box | None], lines: list[tuple[list[str], float, float]], edges: list[float]) -> bool:
    """Does one ruled row hold several table rows (module docstring)?"""
    if len(lines) < 2 or sum(is_anchor(c) for c, _, _ in lines) < 2:
        return False
    spans = any(c is not None and j + 1 < len(edges) and c[2] > edges[j + 1] + 1 for j, c in enumerate(row))
    multi = [c for c, _, _ in lines if sum(1 for x in c if x) >= 2]
    if spans:
        return len(multi) >= 2
    filled = [j for j in range(len(edges)) if any(c[j] for c, _, _ in lines)]
    every = [j for j in filled if all(c[j] for c, _, _ in lines)]
    return len(every) >= 2 and len(every) >= _SAME_LINES * len(filled)


def ruled_rows(grid: list[list[Box | None]], words: list[Word],
               cell_text: Callable[[Box | None, list[Word]], str]) -> list[list[str]]:
    """Cell texts of a lattice table, row by row, a ruled row holding several rows split.

    Args:
        grid: the lattice's cell boxes ``(x0, top, x1, bottom)`` row by row (None: merged).
        words: the words inside the table.
        cell_text: how one cell's text is read (its lines re-flowed) when a row is not split.
    """
    edges = _column_edges(grid)
    inner, n = edges[1:], len(edges)
    k = _header_rows(grid, edges)
    out: list[list[str]] = [flat_header(grid[:k], edges, words, cell_text)] if k else []
    for i, row in enumerate(grid[k:], k):
        boxes = [c for c in row if c is not None]
        if not boxes:
            out.append([""] * len(row))
            continue
        top, bottom = min(c[1] for c in boxes), max(c[3] for c in boxes)
        band = [w for w in words if top <= (w.top + w.bottom) / 2 <= bottom]
        lines = _lines(band, inner)
        # the first row heads the table; a cell spanning rows below (taller than its row's
        # other cells) means the lattice did separate the rows
        uneven = max(c[3] for c in boxes) - min(c[3] for c in boxes) > 1
        if i == 0 or uneven or not _multi_record(row, lines, edges):
            out.append(_in_their_columns(row, [cell_text(c, words) for c in row], words, edges))
            continue
        cells = [c for c, _, _ in lines]
        for group in row_groups(cells, [t for _, t, _ in lines], [b for _, _, b in lines]):
            out.append(join_cells([cells[i] for i in group]) + [""] * (len(row) - n))
    return out


def _in_their_columns(row: list[Box | None], texts: list[str], words: list[Word], edges: list[float]) -> list[str]:
    """A row's cell texts, each spanning cell's text in the grid column its words lie over.

    A statement's lattice draws a "$" cell before the figure's only in rows that print a "$";
    elsewhere one cell spans both, and its right-aligned figure would land in the sign's column.
    """
    out = list(texts)
    right = max((c[2] for c in row if c is not None), default=0.0)
    for j, c in enumerate(row):
        end = j + 1
        while end < len(row) and row[end] is None:
            end += 1
        if c is None or not texts[j] or end == j + 1 or c[2] <= edges[j + 1] + 1:
            continue
        inside = [w for w in words if c[0] <= (w.x0 + w.x1) / 2 <= c[2] and c[1] <= (w.top + w.bottom) / 2 <= c[3]]
        if not inside:
            continue
        x0, x1 = min(w.x0 for w in inside), max(w.x1 for w in inside)
        bounds = edges[j:end] + [edges[end] if end < len(edges) else right]
        k = max(range(end - j), key=lambda i: (min(x1, bounds[i + 1]) - max(x0, bounds[i]), -i))
        out[j], out[j + k] = "", texts[j]
    return out


def _spans_columns(row: list[Box | None], edges: list[float]) -> bool:
    return any(c is not None and j + 1 < len(row) and row[j + 1] is None and c[2] > edges[j + 1] + 1
               for j, c in enumerate(row))


def _header_rows(grid: list[list[Box | None]], edges: list[float]) -> int:
    """How many leading rows form a two-level header: rows with a cell spanning columns
    ("OBLIGATION/SERVICE DATES" over "START" and "END"), then the row of sub-headers under them,
    which has merged cells (the first level's cells reaching down). 0 when there is none, or
    when the first row is one cell across the table (a title: kept as it is)."""
    if len(grid) < 3 or sum(c is not None for c in grid[0]) == 1:
        return 0
    k = 0
    while k < len(grid) - 2 and _spans_columns(grid[k], edges):
        k += 1
    return k + 1 if k and any(c is None for c in grid[k]) else 0


def flat_header(rows: list[list[Box | None]], edges: list[float], words: list[Word],
                cell_text: Callable[[Box | None, list[Word]], str]) -> list[str]:
    """One header row from a multi-level one: a spanning cell's text repeated over each column
    it spans, the levels joined top to bottom ("OBLIGATION/SERVICE DATES START")."""
    levels = []
    for row in rows:
        texts = [cell_text(c, words) if c is not None else "" for c in row]
        for j, c in enumerate(row):
            if c is None:  # covered from the left (a span) or from above (already said there)
                left = next((i for i in range(j - 1, -1, -1) if row[i] is not None), None)
                if left is not None and row[left][2] > edges[j] + 1:
                    texts[j] = texts[left]
        levels.append(texts)
    return [" ".join(t for t in col if t) for col in zip(*levels)]


def drop_frames(tables: list[RawTable]) -> list[RawTable]:
    """Tables without those that enclose another table (a frame drawn round a page's content)."""
    def encloses(a: RawTable, b: RawTable) -> bool:
        area = (a.x1 - a.x0) * (a.bottom - a.top) > (b.x1 - b.x0) * (b.bottom - b.top)
        return area and a.x0 <= b.x0 + 1 and a.x1 >= b.x1 - 1 and a.top <= b.top + 1 and a.bottom >= b.bottom - 1
    return [t for t in tables if not any(encloses(t, u) for u in tables)]
