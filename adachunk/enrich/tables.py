"""Table context: a chunk that starts inside a table gets the table's caption, unit line and
header row, so that "| Germany | 118,760 | 28.8% |" still says which table, which unit and which
column it is.

Structures marked ``emit: table`` are either table bodies (multi-line spans: the Markdown
``table``) or the one-line captions and unit lines that introduce them (``table_caption``,
``unit_line``). The context is only ever *embedded* (``embed_text``); the chunk's ``text`` stays
the exact source slice.
"""

from __future__ import annotations

import bisect

_SEPARATOR_CHARS = set("|:- \t")


def table_contexts(text: str, spans: dict[str, list[tuple[int, int]]]) -> list[tuple[int, int, str]]:
    """``(body start, body end, context)`` of every table body, in document order."""
    bodies, lines = [], []
    for items in spans.values():
        for start, end in items:
            (bodies if text.find("\n", start, end) >= 0 and text[start:end].lstrip().startswith("|")
             else lines).append((start, end))
    lines.sort()
    out = []
    for start, end in sorted(set(bodies)):
        header = _header(text, start, end)
        intro = _introduction(text, start, lines)
        out.append((start, end, "\n".join(intro + header)))
    return out


def _header(text: str, start: int, end: int) -> list[str]:
    """The header row of a pipe table, with its separator row when there is one."""
    rows = text[start:end].split("\n", 2)
    head = [rows[0].rstrip()]
    if len(rows) > 1 and rows[1].strip() and set(rows[1].strip()) <= _SEPARATOR_CHARS:
        head.append(rows[1].rstrip())
    return head


def _introduction(text: str, start: int, lines: list[tuple[int, int]]) -> list[str]:
    """Caption and unit lines right above a table (only blank lines or other such lines between)."""
    out = []
    pos = start
    i = bisect.bisect_left(lines, (start, -1)) - 1
    while i >= 0:
        a, b = lines[i]
        if text[b:pos].strip():  # some other text stands between: not this table's caption
            break
        out.insert(0, text[a:b].strip())
        pos = a
        i -= 1
    return out


class TableIndex:
    """Which table a position lies strictly inside (after its first row)."""

    def __init__(self, contexts: list[tuple[int, int, str]]):
        self.contexts = contexts
        self.starts = [c[0] for c in contexts]

    def context_at(self, pos: int) -> str | None:
        """The context of the table ``pos`` continues, or None when ``pos`` is not inside one."""
        i = bisect.bisect_right(self.starts, pos) - 1
        if i < 0:
            return None
        start, end, ctx = self.contexts[i]
        return ctx if start < pos < end else None
