"""HTML tables: the cell grid with row and column spans, and the shapes that are not tables.

A spanned cell's text is repeated in every grid cell it covers, so that each Markdown row reads
on its own (a chunk holding one row still says which group it belongs to). Two shapes written
with ``<table>`` are not data: EUR-Lex lays out every point and recital as a two-column table
(``(a)`` | text), and old pages use one-column tables for layout; the converter reads both as
text (:func:`point_rows`, :func:`is_layout`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ._tree import Node

MAX_COLSPAN = 1000  # the HTML standard's own limits: a hostile value cannot allocate millions
_MAX_ROWSPAN = 65534
_SECTIONS = ("thead", "tbody", "tfoot")
# "(a)", "(1)", "(iv)", "1.", "a)", "—", "•": the first cell of a EUR-Lex point or recital
_POINT_LABEL = re.compile(r"^(?:\(?(?:\d{1,3}[a-z]?|[a-z]{1,3}|[ivxlc]{1,7})\)|\d{1,3}\.|[a-z]\.|[—–\-•·▪*])$",
                          re.IGNORECASE)


@dataclass
class Grid:
    """A table's cells on a grid: ``rows[r][c]`` is the cell node covering row r, column c
    (None where the row is short); ``header`` is the number of leading header rows (0 or 1)."""

    rows: list[list[Node | None]] = field(default_factory=list)
    header: int = 0

    @property
    def width(self) -> int:
        """The number of columns."""
        return max((len(r) for r in self.rows), default=0)


def table_grid(table: Node) -> Grid:
    """The grid of ``table``'s own rows (a nested table's rows stay inside its cell)."""
    head, body = _rows(table)
    grid = Grid()
    for section in (head, *body):
        grid.rows.extend(_place(section))
    # the <thead>'s first row, else the table's first row, is the one Markdown header row (a
    # pipe table has exactly one); further <thead> rows are read as body rows
    grid.header = 1 if grid.rows else 0
    return grid


def _rows(table: Node) -> tuple[list[Node], list[list[Node]]]:
    """The ``<thead>`` rows and the other row groups, in document order."""
    head: list[Node] = []
    body: list[list[Node]] = []
    loose: list[Node] = []
    for child in table.elements():
        if child.tag == "tr":
            loose.append(child)
        elif child.tag in _SECTIONS:
            if loose:
                body.append(loose)
                loose = []
            rows = [tr for tr in child.elements() if tr.tag == "tr"]
            if child.tag == "thead" and not head:
                head = rows
            else:
                body.append(rows)
    if loose:
        body.append(loose)
    return head, body


def _span(node: Node, name: str, limit: int) -> int:
    try:
        value = int(node.get(name).strip() or 1)
    except ValueError:
        return 1
    return max(0, min(value, limit))


def _place(rows: list[Node]) -> list[list[Node | None]]:
    """Lay out one row group's cells, honouring rowspan (0: to the group's end) and colspan."""
    out: list[list[Node | None]] = [[] for _ in rows]
    for r, tr in enumerate(rows):
        col = 0
        for cell in (c for c in tr.elements() if c.tag in ("td", "th")):
            line = out[r]
            while col < len(line) and line[col] is not None:
                col += 1
            colspan = max(1, _span(cell, "colspan", MAX_COLSPAN))
            rowspan = _span(cell, "rowspan", _MAX_ROWSPAN) or len(rows) - r
            for rr in range(r, min(len(rows), r + max(1, rowspan))):
                target = out[rr]
                if len(target) < col + colspan:
                    target.extend([None] * (col + colspan - len(target)))
                for cc in range(col, col + colspan):
                    if target[cc] is None:
                        target[cc] = cell
            col += colspan
    return out


def is_layout(grid: Grid) -> bool:
    """A one-column table: a layout device, read as the text of its cells."""
    return grid.width <= 1


def point_rows(grid: Grid, label_of) -> list[tuple[str, Node | None]] | None:
    """``[(label, text cell)]`` when ``grid`` is a EUR-Lex point/recital table (two columns,
    every first cell a label such as ``(a)``, ``(1)`` or ``—``), else None.

    Args:
        grid: the table's grid.
        label_of: the plain text of a cell node.
    """
    if grid.width != 2 or not grid.rows:
        return None
    out: list[tuple[str, Node | None]] = []
    for row in grid.rows:
        first = row[0] if row else None
        label = label_of(first) if first is not None else ""
        if not _POINT_LABEL.match(label):
            return None
        second = row[1] if len(row) > 1 and row[1] is not first else None
        out.append((label, second))
    return out
