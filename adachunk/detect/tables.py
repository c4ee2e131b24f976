"""``table.titled.v1``: a pipe table together with the title lines printed above it.

A filing's statement reads, as adachunk's PDF reader and most converters write it::

    COSTCO WHOLESALE CORPORATION CONSOLIDATED BALANCE SHEETS   <- title line(s)
    (amounts in millions, except par value and share data)

    <Table>                                                    <- the PDF reader's marker
    | ASSETS | August 29, 2021 | August 30, 2020 |             <- header row: the columns' years
    | --- | --- | --- |
    | Cash and cash equivalents | $ 11,258 | $ 12,277 |
    ...

Two parts of one such table are structures (``part``):

* ``whole``: from the first title line (else the ``<Table>`` marker, else the first row) to the
  end of the last row. ``solver.grow`` lets the DP keep it in larger pieces than the candidate's
  chunks (a statement's rows together, as a reader of the filing sees them). A heading right
  above (a statement titled "#### CONSOLIDATED BALANCE SHEETS") starts it, and a closing line
  that ends its page ("See accompanying notes to consolidated financial statements.") ends it
  (:func:`headings_above`, :func:`closing_line`).
* ``head``: from the same start to the end of the header row (and its separator row): a cut
  inside it leaves a statement's name at the end of one chunk and its figures in the next, or
  its rows without the years of their columns.

A table is two or more consecutive lines starting with ``|`` (the Markdown pipe table, with or
without its separator row: PDF readers often print none). A title line is a short one-line
paragraph right above the table (:func:`title_lines`): at most two, a heading is not one (the
heading path says it), nor is the last line of a longer paragraph.
"""

from __future__ import annotations

import re
from typing import Literal

import numpy as np
from pydantic import Field

from ..components.registry import detectors
from ..datatypes import SpanArrays, Structure, span_arrays
from .base import DetectContext, Detector, DetectorParams
from .document import _PAGE_BREAK

_TITLE_CHARS = 160  # a statement's title or unit line, not a paragraph of prose
_TITLE_LINES = 2  # "Consolidated Statements of Cash Flows" and "(in millions)"
_MARKER = re.compile(r"<[^<>\n]{1,40}>|<!--[^\n]*-->")
_ROWS = re.compile(r"(?m)(?:^[ \t]*\|[^\n]*(?:\n|\Z)){2,}")
# A row's line start, found from its newline: a pattern that opens with a literal lets the regex
# engine skip to each newline, where ``(?m)^`` is tried at every character (7x slower on CLAIR).
_ROW_LINE = re.compile(r"\n[ \t]*\|")
_TABLE_MARKER = re.compile(r"[ \t]*<Table>[ \t]*\n\Z")
_TABLE_CLOSE = re.compile(r"\r?\n[ \t]*</Table>[ \t]*(?=\r?\n|\Z)")
_SEPARATOR = re.compile(r"[ \t]*\|?[ \t:|-]*-[ \t:|-]*")
_HEADING = re.compile(r"#{1,6}[ \t]")  # an ATX heading line (stripped)
# What may follow a table's closing line: the page's furniture comments (footer, break) or the end
_PAGE_END = re.compile(r"\s*(?:<!--[ \t]*Page(?:Footer|Number|Break)\b|\Z)")


def title_lines(text: str, start: int) -> list[tuple[int, str]]:
    """A table's own title above ``start`` (where its marker or first row begins): the short
    one-line paragraphs right above it (at most two, only blank lines between, markers such as
    ``<Table>`` or a page header comment looked past, never a page break), each as ``(line start, stripped line)``,
    top first. A heading is left out (the heading path already says it), and so is a line of
    another table or the last line of a longer paragraph."""
    out: list[tuple[int, str]] = []
    pos = start
    while len(out) < _TITLE_LINES:
        gap_start, line_start, line = _line_above(text, pos)
        if gap_start == pos and out:  # no blank line between two title lines: a paragraph
            break
        if _PAGE_BREAK.fullmatch(line):  # a title is printed on its table's page
            break
        if _MARKER.fullmatch(line):  # the PDF reader's <Table>, a page header comment: look past it
            pos = line_start
            continue
        above = text[text.rfind("\n", 0, max(line_start - 1, 0)) + 1:max(line_start - 1, 0)]
        if (not line or len(line) > _TITLE_CHARS or line.startswith(("|", "#"))
                or (line_start > 0 and above.strip())):
            break  # blank, long, a table row or heading, or the last line of a longer paragraph
        out.insert(0, (line_start, line))
        pos = line_start
    return out


def _line_above(text: str, pos: int) -> tuple[int, int, str]:
    """The line above ``pos``, white space between skipped: ``(where that white space starts,
    the line's start, the stripped line)``."""
    gap_start = pos
    while gap_start > 0 and text[gap_start - 1] in " \t\r\n":
        gap_start -= 1
    line_start = text.rfind("\n", 0, gap_start) + 1
    return gap_start, line_start, text[line_start:gap_start].strip()


def closing_line(text: str, end: int) -> int:
    """Where a table ends with its closing line: past a short one-line paragraph right below it
    that is the last text of its page ("See accompanying notes to consolidated financial
    statements.", "The accompanying notes are an integral part of this statement."), else
    ``end``. A statement's page ends so; cut before that line, the next statement's first chunk
    would open with it and the page's furniture instead of its own title."""
    pos = end
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    if pos == end or text.count("\n", end, pos) < 2:  # a blank line between: its own paragraph
        return end
    line_end = text.find("\n", pos)
    line_end = len(text) if line_end < 0 else line_end
    line = text[pos:line_end].strip()
    if (not line or len(line) > _TITLE_CHARS or line.startswith(("|", "#", "<", "-", "*"))
            or line.endswith(":") or not _PAGE_END.match(text, line_end)):
        return end
    return line_end


def is_separator_row(line: str) -> bool:
    """Whether ``line`` is a pipe table's separator row (``| --- | :-: |``)."""
    return _SEPARATOR.fullmatch(line.rstrip("\r")) is not None


def _row_runs(text: str):
    """The matches of ``_ROWS`` in ``text`` (runs of two or more lines that start with ``|``), in
    order, as ``_ROWS.finditer`` finds them: tried only at the start of a line that is a row."""
    if "|" not in text:
        return
    pos: int | None = 0
    while pos is not None:
        m = _ROWS.match(text, pos)
        if m:
            yield m
            # The line after a maximal run is no row: the next run starts at a later newline.
            pos = m.end()
        hit = _ROW_LINE.search(text, pos) if pos < len(text) else None
        pos = hit.start() + 1 if hit else None


def titled_tables(text: str) -> list[tuple[int, int, int]]:
    """``(start, head end, end)`` of every pipe table: ``start`` its first title line (else its
    ``<Table>`` marker, else its first row), ``head end`` the end of its header row (and separator
    row), ``end`` the end of its last row (or of the ``</Table>`` line after it)."""
    out = []
    for m in _row_runs(text):
        rows_start, end = m.start(), m.end()
        while end > rows_start and text[end - 1] in "\r\n":
            end -= 1
        first_end = text.find("\n", rows_start, end)
        head_end = end if first_end < 0 else first_end
        if first_end >= 0:
            second_end = text.find("\n", first_end + 1, end)
            second = text[first_end + 1: end if second_end < 0 else second_end]
            if is_separator_row(second):
                head_end = end if second_end < 0 else second_end
        while head_end > rows_start and text[head_end - 1] == "\r":
            head_end -= 1
        marker = text.rfind("\n", 0, max(rows_start - 1, 0)) + 1 if rows_start else 0
        start = marker if rows_start and _TABLE_MARKER.fullmatch(text, marker, rows_start) else rows_start
        close = _TABLE_CLOSE.match(text, end)
        if close:  # the PDF reader's closing marker belongs to its table
            end = close.end()
        end = closing_line(text, end)
        title = title_lines(text, start)
        out.append((headings_above(text, title[0][0] if title else start), head_end, end))
    return out


def headings_above(text: str, start: int) -> int:
    """``start`` moved up over the headings printed right above it (only blank lines and markers
    between, never a page break): a statement titled by a heading ("#### CONSOLIDATED BALANCE
    SHEETS") starts at it, as the rules keep a heading with what follows; a table's title lines
    leave the heading out, the heading path says it."""
    pos = start
    for _ in range(_TITLE_LINES + 1):
        above, line_start, line = _line_above(text, pos)
        while _MARKER.fullmatch(line) and not _PAGE_BREAK.fullmatch(line) and line_start > 0:
            above, line_start, line = _line_above(text, line_start)
        if above == pos or not _HEADING.match(line):
            break
        start = pos = line_start
    return start


@detectors.register("table.titled.v1")
class TitledTableDetector(Detector):
    """Pipe tables with their title lines (see module docstring)."""

    class Params(DetectorParams):
        """``table.titled.v1`` parameters."""

        part: Literal["whole", "head"] = Field(
            default="whole",
            description="whole: title lines through the last row (what solver.grow keeps together); "
            "head: title lines through the header row (a cut inside separates a statement's name or "
            "its columns' years from its figures)")

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """One structure per table."""
        starts, ends = self.detect_arrays(ctx)
        return [Structure(int(a), int(b), self.name) for a, b in zip(starts, ends)]

    def detect_arrays(self, ctx: DetectContext) -> SpanArrays:
        """The tables' spans (``part``) as start and end arrays."""
        found = ctx.memo(("table.titled",), lambda: titled_tables(ctx.text))
        col = 1 if self.params.part == "head" else 2
        arr = np.array([(t[0], t[col]) for t in found if t[col] > t[0]], dtype=np.int64).reshape(-1, 2)
        return span_arrays((arr[:, 0].copy(), arr[:, 1].copy()))
