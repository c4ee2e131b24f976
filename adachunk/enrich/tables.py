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

from ..detect.tables import title_lines

_SEPARATOR_CHARS = set("|:- \t")


def table_contexts(text: str, spans: dict[str, list[tuple[int, int]]]) -> list[tuple[int, int, str]]:
    """``(body start, body end, context)`` of every table body, in document order."""
    bodies, lines = [], []
    for items in spans.values():
        for start, end in items:
            (bodies if text.find("\n", start, end) >= 0 and text[start:end].lstrip().startswith("|")
             else lines).append((start, end))
    lines.sort()
    out: list[tuple[int, int, str]] = []
    prev: tuple[int, list[str], list[str]] | None = None  # the last table: end, title, header
    for start, end in sorted(set(bodies)):
        header = _header(text, start, end)
        intro = _introduction(text, start, lines) or _title_above(text, start)
        if prev is not None and _continues(text, prev, start, header):
            # a statement the reader printed in two parts (a line such as "Adjustments to
            # reconcile net income..." between them, or a page break): the second part's
            # header row is empty, its columns are the first part's years
            intro, header = prev[1] + [x for x in intro if x not in prev[1]], prev[2]
        out.append((start, end, "\n".join(intro + header)))
        prev = (end, intro, header)
    return out


_CONTINUATION_GAP = 600  # characters between two parts of one statement: a line or two, a page break


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def _continues(text: str, prev: tuple[int, list[str], list[str]], start: int, header: list[str]) -> bool:
    """Whether the table at ``start`` continues the previous one: its header row has no text,
    it has as many columns, and little stands between them."""
    own = _cells(header[0])
    return (not any(own) and len(own) == len(_cells(prev[2][0])) and any(_cells(prev[2][0]))
            and start - prev[0] <= _CONTINUATION_GAP)


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


def _title_above(text: str, start: int) -> list[str]:
    """A table's own title where the profile declares no caption structure (the short one-line
    paragraphs right above it: :func:`adachunk.detect.tables.title_lines`)."""
    return [line for _, line in title_lines(text, start)]


class TableIndex:
    """Which table's context a chunk needs: the first table whose body rows the chunk holds
    while its text lacks that table's header row (the chunk starts inside the table, or the
    table continues one whose header row holds the years)."""

    def __init__(self, contexts: list[tuple[int, int, str]]):
        self.contexts = contexts
        self.ends = [c[1] for c in contexts]

    def context_for(self, text: str, start: int, end: int) -> str | None:
        """The context the chunk ``text[start:end]`` needs, or None."""
        i = bisect.bisect_right(self.ends, start)
        while i < len(self.contexts) and self.contexts[i][0] < end:
            t_start, t_end, ctx = self.contexts[i]
            header = next((ln for ln in ctx.split("\n") if ln.startswith("|")), "")
            body = t_start + sum(len(row) + 1 for row in _header(text, t_start, t_end))  # its first body row
            if end > body and header and header not in text[start:end]:
                return ctx
            i += 1
        return None
