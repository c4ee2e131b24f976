"""Tables: Markdown pipe tables with the real header, joined across pages, split by rows.

The paper's parser wrote a numeric header (``| 0 | 1 | ... |``) and did not repeat the real
header row when it split a table; here the first row of a table *is* the Markdown header, and
every part of a table (a continuation on the next page, or a slice of at most
``max_table_rows`` body rows) starts with it again. A table continues on the next page when the
previous page ends with a table and the next page's body starts with one of the same column
count and column positions; a header row the PDF repeated on the continuation is not doubled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ._model import Block, RawTable

_COLUMN_TOLERANCE = 3.0  # points between matching column boundaries on two pages


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub-style pipe table; ``|`` in cells is escaped, cell line breaks become spaces."""
    n = len(header)
    lines = ["| " + " | ".join(_cell(c) for c in header) + " |", "| " + " | ".join(["---"] * n) + " |"]
    for row in rows:
        row = (list(row) + [""] * n)[:n]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines)


def split_rows(rows: list[list[str]], max_rows: int) -> list[list[list[str]]]:
    """Balanced slices of at most ``max_rows`` rows (``max_rows`` 0: one slice)."""
    if max_rows <= 0 or len(rows) <= max_rows:
        return [rows]
    parts = math.ceil(len(rows) / max_rows)
    size = math.ceil(len(rows) / parts)
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def table_blocks(header: list[str], rows: list[list[str]], *, wrapper: bool, max_rows: int,
                 table_id: int, continued: bool) -> list[Block]:
    """The blocks of one table (or one page's part of it), each starting with the header."""
    out = []
    for j, part in enumerate(split_rows(rows, max_rows)):
        md = markdown_table(header, part)
        if wrapper:
            md = f"<Table>\n{md}\n</Table>"
        out.append(Block("table", md, meta={"table": table_id, "rows": len(part),
                                            "continued": continued or j > 0}))
    return out


def parse_markdown_table(md: str) -> tuple[list[str], list[list[str]]] | None:
    """Header and rows of a pipe table (as other converters write them), or None."""
    lines = [ln.strip() for ln in md.strip().splitlines()]
    if len(lines) < 2 or not all(ln.startswith("|") for ln in lines):
        return None

    def cells(line: str) -> list[str]:
        inner = line.strip().strip("|")
        return [c.strip().replace("<br>", " ") for c in inner.split("|")]

    if not set(lines[1].replace("|", "").replace(":", "").strip()) <= {"-", " "}:
        return None
    return cells(lines[0]), [cells(ln) for ln in lines[2:]]


@dataclass
class _Open:
    """A table that ends its page and may continue on the next."""

    columns: list[float]
    header: list[str]
    table_id: int
    ruled: bool = True


def _same_columns(a: list[float], b: list[float], ruled: bool = True) -> bool:
    """Same column count and boundaries; a borderless table's boundaries follow its widest cell
    on each page, so they may move by a third of the narrowest column."""
    if len(a) != len(b):
        return False
    tol = _COLUMN_TOLERANCE if ruled else max(_COLUMN_TOLERANCE, min(y - x for x, y in zip(a, a[1:])) / 3)
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def _norm(row: list[str]) -> list[str]:
    return [" ".join(c.lower().split()) for c in row]


def resolve_tables(pages: list[list[Any]], *, wrapper: bool = True, max_rows: int = 40,
                   join: bool = True) -> tuple[list[list[Block]], list[dict[str, Any]]]:
    """Replace every :class:`RawTable` by its Markdown blocks, joining tables across pages.

    Args:
        pages: per page, blocks and raw tables in reading order (footnotes last or after their
            paragraph).
        wrapper: wrap each table in ``<Table>`` ... ``</Table>`` (the paper's format).
        max_rows: most body rows per emitted table (0: no limit).
        join: recognise tables that continue on the next page.

    Returns:
        The pages' blocks, and one summary per logical table (id, pages, columns, rows, header).
    """
    out_pages: list[list[Block]] = []
    summaries: list[dict[str, Any]] = []
    open_: _Open | None = None
    for k, items in enumerate(pages):
        body = [i for i, x in enumerate(items) if not (isinstance(x, Block) and x.kind == "footnote")]
        first, last = (body[0], body[-1]) if body else (None, None)
        out: list[Block] = []
        next_open: _Open | None = None
        for i, item in enumerate(items):
            if not isinstance(item, RawTable):
                out.append(item)
                continue
            cont = (join and open_ is not None and i == first
                    and _same_columns(open_.columns, item.columns, open_.ruled and item.ruled))
            if cont:
                header, tid = open_.header, open_.table_id
                # the header the PDF repeated, or the empty one of a part without its own, goes
                rows = item.rows[1:] if not any(item.rows[0]) or _norm(item.rows[0]) == _norm(header) else item.rows
                summaries[tid]["pages"].append(k + 1)
                summaries[tid]["rows"] += len(rows)
            else:
                header, rows, tid = item.rows[0], item.rows[1:], len(summaries)
                summaries.append({"id": tid, "pages": [k + 1], "columns": len(header), "rows": len(rows),
                                  "header": list(header)})
            if rows or not cont:
                out += table_blocks(header, rows, wrapper=wrapper, max_rows=max_rows, table_id=tid, continued=cont)
            if i == last:
                next_open = _Open(item.columns, header, tid, item.ruled)
        open_ = next_open
        out_pages.append(out)
    return out_pages, summaries
