"""Ruled tables whose rulings mislead: read them as borderless tables instead.

Two shapes seen in public statistical reports, where the lattice finder's table holds the
right words in the wrong cells:

* **Column groups.** Thin rules set off the *groups* of a statistical table (Total / Male /
  Female, three columns each), not its columns: each lattice cell holds a row of figures
  ("11,062.6 1,540.0 9,522.6") and the label column, outside the rules, is lost to it
  (:func:`undivided`: such a table is dropped before the borderless finder runs, which finds
  the columns by alignment).
* **Shaded rows.** Boxes shading some rows of a results summary (label and sign cells, a
  margin) make a grid whose rows are not the text's: one cell takes the figures of every other
  row (:func:`undivided` too).
* **Partial grids.** A table drawn with rules between its figure columns only (R's ``mtcars``
  print: no rule closes the label column or the last column): the finder returns the figure
  columns, and the labels and the last column come out as a borderless table beside it.
  :func:`mend_beside` reads the two as one borderless table when that finds one table covering
  both with their columns and rows.
"""

from __future__ import annotations

from typing import Callable

from ._model import RawTable, Word
from .._table_cells import is_figure

_SIGNS = {"", "$", "€", "£", "¥", "%"}
_SAME_ROWS = 0.8  # a table beside another covers this share of its height at least


def undivided(t: RawTable) -> bool:
    """A ruled table whose cells mostly each hold a row of figures, or one of whose cells holds
    the figures of many rows (module docstring)."""
    cells = [c for r in t.rows[1:] for c in r if c]
    if len(t.rows) < 4 or not cells:
        return False
    packed = sum(len(parts := c.split()) >= 2 and all(is_figure(x) for x in parts) for c in cells)
    return packed > 0.5 * len(cells) or _swallowed(t)


def _swallowed(t: RawTable) -> bool:
    """A cell holding little but figures, more of them than two per column of the table: the
    shading boxes of some rows made the grid, and one of its cells took the figures of all the
    other rows (General Mills 10-K 2020's results summary: "17,626.6 5 % 2,953.9 17 % ...")."""
    for cell in (c for r in t.rows for c in r):
        parts = [x for x in cell.split() if x not in _SIGNS]
        figures = sum(is_figure(x) for x in parts)
        if figures > 2 * len(t.rows[0]) and figures >= 0.8 * len(parts):
            return True
    return False


def _beside(a: RawTable, b: RawTable) -> bool:
    """``b`` reaches out left or right of ``a`` on (nearly) the same rows: beside it, or on both
    sides at once (the label column left of a grid and its last column right of it, read as one
    table whose middle the grid's words, already taken, leave empty)."""
    overlap = min(a.bottom, b.bottom) - max(a.top, b.top)
    height = max(a.bottom - a.top, 1.0)
    return (b.x0 < a.x0 - 1 or b.x1 > a.x1 + 1) and overlap >= _SAME_ROWS * height


def _filled_columns(t: RawTable) -> int:
    """Columns of ``t`` holding more than currency signs: a shaded column drawn as narrow boxes
    (a sign's box, the figures' box, a margin's box) is one column of the table beside it."""
    return sum(any(c.strip() not in _SIGNS for c in col) for col in zip(*t.rows))


def mend_beside(ruled: list[RawTable], borderless: list[RawTable], words: list[Word],
                find: Callable[[list[Word]], list[RawTable]]) -> tuple[list[RawTable], list[RawTable]]:
    """Ruled and borderless tables with each partial grid and the table beside it read again as
    one borderless table (module docstring).

    Args:
        ruled: the page's ruled tables.
        borderless: the borderless tables found among the words the ruled ones left.
        words: all the page's words (those of the ruled tables included).
        find: the borderless finder (:func:`._borderless.find_tables`).

    Returns:
        The ruled tables kept, and the borderless tables (a mended one replacing its parts).
    """
    kept: list[RawTable] = []
    for t in ruled:
        side = [b for b in borderless if _beside(t, b)]
        if not side:
            kept.append(t)
            continue
        x0, x1 = min(t.x0, *(b.x0 for b in side)), max(t.x1, *(b.x1 for b in side))
        top, bottom = min(t.top, *(b.top for b in side)), max(t.bottom, *(b.bottom for b in side))
        inside = [w for w in words if x0 - 1 <= (w.x0 + w.x1) / 2 <= x1 + 1 and top - 1 <= (w.top + w.bottom) / 2 <= bottom + 1]
        found = find(inside)
        columns = _filled_columns(t) + sum(len(b.rows[0]) for b in side) - len(side)
        if len(found) == 1 and len(found[0].rows[0]) >= columns and len(found[0].rows) >= _SAME_ROWS * len(t.rows):
            borderless = [b for b in borderless if not any(b is s for s in side)] + found
        else:
            kept.append(t)
    return kept, borderless
