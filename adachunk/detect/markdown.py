"""Markdown block detector (``markdown.block.v1``) with exact code-point offsets.

:func:`parse_blocks` runs mistletoe's *block* tokenizer only (no inline parsing) and turns its
parse buffers into :class:`~adachunk.types.Structure` spans. mistletoe reports just the line on
which a block starts, so ends are derived: a block ends on the last non-blank line before its
next sibling (or before the end of its container), and starts at its first line's content once
the container prefixes (``>``, list markers, indentation) are skipped. Offsets always point into
the original text, whatever its line endings (``\\n``, ``\\r\\n``, ``\\r``).

Span convention: ``start`` is the first content character of the block's first line (a list
item starts at its marker, a blockquote at its ``>``); ``end`` is the end of its last non-blank
line, line terminator excluded. Containers (list, list item, blockquote, table, and the
``<Table>``/``<Figure>`` wrappers of the paper's parsed documents) span all their children.

Differences from plain mistletoe, on purpose:

* HTML blocks are recognised (mistletoe only does so while its HTML renderer is active).
* Ordered list markers need 1-9 digits as CommonMark says (mistletoe also accepts a bare
  ``.`` or ``)``, which turns the dotted leaders of tables of contents into lists).
* Link reference definitions are reported as paragraphs: they are text worth keeping with its
  neighbours, and mistletoe's reader for them is quadratic in the number of definitions.
* ``<Table>``…``</Table>`` and ``<Figure>``…``</Figure>`` on lines of their own are one
  ``html_block`` even across blank lines; Markdown inside them is parsed and nested.
* YAML front matter at the very start is one ``front_matter`` block.

If mistletoe fails (a 10,000-deep nested list exhausts the recursion limit), the text is
re-parsed piece by piece and only the failing pieces fall back to a line-based scan.
"""

from __future__ import annotations

import logging
import re
import threading
from bisect import bisect_left
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Iterator, Literal

from mistletoe import block_token as bt
from mistletoe import block_tokenizer as btz
from mistletoe import token as mtoken
from pydantic import Field

from ..registry import detectors
from ..types import Structure
from . import _md_offsets as mo
from .base import DetectContext, Detector, DetectorParams, finalize

log = logging.getLogger("adachunk.detect")

BlockLabel = Literal[
    "heading", "paragraph", "list", "list_item", "table", "table_row", "table_cell", "code",
    "blockquote", "thematic_break", "html_block", "front_matter",
]
BLOCK_LABELS: tuple[str, ...] = BlockLabel.__args__  # type: ignore[attr-defined]

# Deeper container nesting goes to the line scan: mistletoe needs several stack frames per
# level and fails near 300 levels from a shallow stack (fewer under a deep caller).
MAX_DEPTH = 100

# mistletoe keeps its parser configuration in module globals and class attributes; they are
# swapped in for one parse at a time under this lock and always restored.
_LOCK = threading.RLock()
_PIPE = re.compile(r"(?<!\\)\|")
_DELIMITER_CELL = re.compile(r":?-+:?")
_ATX_START = re.compile(r" {0,3}(#{1,6})(?=\s)")


def _n_cells(cells: list[str]) -> int:
    """Cells of a row split on pipes: GFM ignores an empty cell before a leading pipe/after a
    trailing one."""
    return len(cells) - (cells[0].strip() == "") - (len(cells) > 1 and cells[-1].strip() == "")


def _is_delimiter_row(line: str) -> bool:
    # mistletoe's delimiter regex backtracks quadratically on long runs of spaces.
    cells = line.strip().split("|")
    cells = cells[1 if cells[0].strip() == "" else 0 : -1 if cells[-1].strip() == "" else None]
    return bool(cells) and all(_DELIMITER_CELL.fullmatch(c.strip()) for c in cells)


class _GfmTable(bt.Table):
    """mistletoe's table with GFM's rules for where a table starts and ends.

    The header and delimiter rows must have as many cells (else ``Text | more`` over a ``---``
    setext underline would be a one-column table), and the body runs until a blank line or the
    start of another block, not merely while lines hold a pipe (GFM and markdown-it agree).
    """

    @classmethod
    def read(cls, lines, check_only=False):
        pos = lines.get_pos()
        if pos + 2 >= len(lines.lines):
            return None
        header, delimiter = lines.lines[pos + 1], lines.lines[pos + 2]
        if "|" not in header or not _is_delimiter_row(delimiter):
            return None
        if _n_cells(_PIPE.split(header.strip())) != _n_cells(delimiter.strip().split("|")):
            return None
        if check_only:
            return True
        next(lines)
        start_line = lines.line_number()
        rows = [header, next(lines)]
        while (line := lines.peek()) is not None and line.strip() and not _ends_table(lines):
            rows.append(next(lines))
        return rows, start_line


class _Heading(bt.Heading):
    """ATX heading without mistletoe's regex, which is quadratic in runs of whitespace."""

    @classmethod
    def start(cls, line):
        m = _ATX_START.match(line)
        if m is None:
            return False
        cls.level = len(m.group(1))
        cls.content, cls.closing_sequence = line[m.end() :].strip(), ""
        return True


class _Setext:
    """Stands in for mistletoe's SetextHeading, which would parse the inline content."""

    def __init__(self, lines: list[str]):
        self.level = 1 if lines[-1].rstrip().endswith("=") else 2


class _Html(bt.HtmlBlock):
    """mistletoe's HTML block behind a cheap test: its own start() runs six regexes per line."""

    _maybe = re.compile(r"\s{0,3}<")

    @classmethod
    def start(cls, line):
        return bool(cls._maybe.match(line)) and super().start(line)


def _ends_table(lines) -> bool:
    line = lines.peek()
    return any(t.start(line) for t in _TABLE_ENDERS) or bool(
        _Html.check_interrupts_paragraph(lines)
    )


def _tokenize_block(iterable, token_types, start_line=1):
    """mistletoe 1.6's ``block_tokenizer.tokenize_block`` with a fast path for empty lines.

    No block starts on an empty line, so probing every token type there only costs time (a
    third of the parse on text with many blank lines). Otherwise identical.
    """
    lines = btz.FileWrapper(iterable, start_line=start_line)
    parse_buffer = btz.ParseBuffer()
    line = lines.peek()
    while line is not None:
        if line != "\n":
            for token_type in token_types:
                if token_type.start(line):
                    line_number = lines.line_number() + 1
                    result = token_type.read(lines)
                    if result is not None:
                        parse_buffer.append((token_type, result, line_number))
                        break
            else:
                next(lines)
                parse_buffer.loose = True
        else:
            next(lines)
            parse_buffer.loose = True
        line = lines.peek()
    return parse_buffer


_TABLE_ENDERS = (bt.BlockCode, _Heading, bt.Quote, bt.CodeFence, bt.ThematicBreak, bt.List)
# HTML blocks go after the token types that cannot start with "<" (same result, fewer probes).
_TOKENS = [bt.BlockCode, _Heading, bt.Quote, bt.CodeFence, bt.ThematicBreak, bt.List, _Html,
           _GfmTable, bt.Paragraph]
_LIST_RE = re.compile(r" {0,3}(?:[0-9]{1,9}[.)]|[+\-*])(?:[ \t]*$|[ \t]+)")
_ITEM_RE = re.compile(r"( {0,3})([0-9]{1,9}[.)]|[+\-*])($|\s+)")
_EOL = re.compile(r"\r\n|\r|\n")
_ATX_OPEN = re.compile(r"#{1,6}(?=[ \t]|$)")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")


@contextmanager
def _mistletoe_state() -> Iterator[None]:
    """Configure mistletoe's globals for a block-only parse, restoring them afterwards."""
    with _LOCK:
        saved = (bt._token_types, mtoken._root_node, bt.List.pattern, bt.ListItem.pattern,
                 bt.Paragraph.parse_setext, btz.tokenize_block, bt.SetextHeading)
        try:
            bt._token_types = list(_TOKENS)
            btz.tokenize_block = _tokenize_block  # also used by Quote and ListItem
            bt.SetextHeading = _Setext  # looked up by Paragraph.read
            mtoken._root_node = SimpleNamespace(footnotes={})  # in case anything looks it up
            bt.List.pattern, bt.ListItem.pattern = _LIST_RE, _ITEM_RE
            bt.Paragraph.parse_setext = True
            yield
        finally:
            (bt._token_types, mtoken._root_node, bt.List.pattern, bt.ListItem.pattern,
             bt.Paragraph.parse_setext, btz.tokenize_block, bt.SetextHeading) = saved


class _Walker:
    """Turns mistletoe parse buffers into spans (see the module docstring for the rules)."""

    def __init__(self, lm: mo.LineMap, lines: tuple[list[str], list[str]], wrappers: dict):
        (self.lines, self.plain), self.lm, self.wrappers = lines, lm, wrappers
        self.out: list[Structure] = []

    def run(self, lo: int, hi: int) -> None:
        """Parse lines ``[lo, hi)`` and collect their blocks."""
        with _mistletoe_state():
            self.walk(self._tokenize(self.lines, lo, hi), hi)

    @staticmethod
    def _tokenize(lines: list[str], lo: int, hi: int) -> list:
        # tokenize_block stops before span parsing: buffers of (class, read result, line).
        return _tokenize_block(lines[lo:hi], bt._token_types, start_line=lo + 1)

    def walk(self, buf, bound: int, chain: tuple = (), lists: int = 0, quotes: int = 0,
             shift: int = 0) -> None:
        """Emit the blocks of one parse buffer whose container ends before line ``bound``.

        ``shift`` corrects mistletoe's line numbers inside list items whose marker line holds
        no content: it numbers their children from the marker line, one line too early.
        """
        lm, out = self.lm, self.out
        for k, (kind, res, ln) in enumerate(buf):
            first = ln - 1 + shift
            stop = buf[k + 1][2] - 1 + shift if k + 1 < len(buf) else bound
            last = lm.last_nonblank(first, stop, quotes)
            if kind is _Heading:
                out.append(lm.span("heading", first, first, chain, res[0]))
            elif kind is bt.Paragraph and isinstance(res, _Setext):
                out.append(lm.span("heading", first, last, chain, res.level))
            elif kind is bt.Paragraph:
                out.append(lm.span("paragraph", first, last, chain))
            elif kind is bt.BlockCode or kind is bt.CodeFence:
                out.append(lm.span("code", first, last, chain))
            elif kind is bt.ThematicBreak:
                out.append(lm.span("thematic_break", first, first, chain))
            elif kind is _Html:
                self._html(first, last, chain, lists, quotes)
            elif kind is _GfmTable:
                self._table(len(res[0]), first, last, chain)
            elif kind is bt.Quote:
                out.append(lm.span("blockquote", first, last, chain, quotes + 1))
                self.walk(res, last + 1, chain + ((mo.QUOTE,),), lists, quotes + 1, shift)
            elif kind is bt.List:
                self._list(res, first, last, chain, lists, quotes, shift)

    def _list(self, items, first, last, chain, lists, quotes, shift) -> None:
        lm, depth = self.lm, lists + 1
        self.out.append(lm.span("list", first, last, chain, depth))
        starts = [item[4] - 1 + shift for item in items]
        for k, (buf, _indent, _prepend, leader, _line) in enumerate(items):
            ifirst = starts[k]
            ilast = lm.last_nonblank(ifirst, starts[k + 1] if k + 1 < len(items) else last + 1,
                                     quotes)
            self.out.append(lm.span("list_item", ifirst, ilast, chain, depth))
            inner = chain + ((mo.ITEM, ifirst, leader),)
            blank_marker_line = lm.content_start(ifirst, inner) >= lm.ends[ifirst]
            self.walk(buf, ilast + 1, inner, depth, quotes, shift + (1 if blank_marker_line else 0))

    def _table(self, n_lines: int, first: int, last: int, chain: tuple) -> None:
        lm = self.lm
        last = min(last, first + n_lines - 1)
        self.out.append(lm.span("table", first, last, chain))
        # a body line of only pipes and dashes can still be a row; only line first+1 is the
        # delimiter row
        for row in [first] + list(range(first + 2, last + 1)):
            start = lm.content_start(row, chain)
            self.out.append(Structure(start, lm.ends[row], "table_row", 0))
            self.out.extend(mo.table_cells(lm, row, start))

    def _html(self, first, last, chain, lists, quotes) -> None:
        wrap = self.wrappers.get(first)
        if wrap is None:
            self.out.append(self.lm.span("html_block", first, last, chain))
            return
        close, inside = wrap
        self.out.append(self.lm.span("html_block", first, close, chain))
        if inside and close > first + 1:
            self.walk(self._tokenize(self.plain, first + 1, close), close, chain, lists, quotes)


def parse_blocks(text: str) -> list[Structure]:
    """Parse ``text`` into Markdown blocks with exact code-point offsets.

    Args:
        text: the document text, any line endings.

    Returns:
        Every block (containers and their children) as ``Structure(start, end, label, level)``,
        sorted; labels are those of :data:`BLOCK_LABELS`. ``level`` is the heading level, the
        nesting depth for ``list``/``list_item``/``blockquote`` (1 = outermost), else 0.
    """
    lm = mo.LineMap(text)
    out: list[Structure] = []
    lo = 0
    fm = mo.front_matter_end(lm)
    if fm >= 0:
        out.append(lm.span("front_matter", 0, fm))
        lo = fm + 1
    wrappers = mo.find_wrappers(lm, lo)
    walker = _Walker(lm, mo.mistletoe_lines(lm, lo, wrappers), wrappers)
    deep = mo.deep_lines(lm, lo, MAX_DEPTH)
    if not deep:
        try:
            walker.run(lo, len(lm))
        except Exception as exc:  # RecursionError despite the depth check, or a mistletoe bug
            log.debug("mistletoe failed on the whole text (%r); parsing it piece by piece", exc)
            walker.out, deep = [], [len(lm)]
    if deep:  # pieces holding a too deep line, or failing in mistletoe, get the line scan
        for a, b in mo.segments(lm, lo, len(lm), wrappers):
            mark, k = len(walker.out), bisect_left(deep, a)
            try:
                if k < len(deep) and deep[k] < b:
                    raise RecursionError(f"container nesting deeper than {MAX_DEPTH}")
                walker.run(a, b)
            except Exception as exc:
                log.debug("lines %d-%d fall back to the line scan (%r)", a + 1, b, exc)
                del walker.out[mark:]
                walker.out.extend(mo.fallback_blocks(lm, a, b, wrappers))
    out.extend(walker.out)
    return sorted(s for s in out if s.end > s.start)


def heading_title(text: str, s: Structure) -> str:
    """The title of the heading ``s``: no ``#`` markers or closing sequence, no setext underline.

    Args:
        text: the text the span points into.
        s: a ``heading`` span from :func:`parse_blocks` (or a detector relabelling of one).

    Returns:
        The heading text, stripped; the lines of a multi-line setext heading joined by spaces.
    """
    lines = _EOL.split(text[s.start : s.end])
    if len(lines) > 1:  # setext: ATX headings are single lines
        return " ".join(line.strip() for line in lines[:-1] if line.strip())
    body = lines[0].strip()
    m = _ATX_OPEN.match(body)
    if m is None:
        return body
    return _ATX_CLOSE.sub("", body[m.end() :]).strip()


@detectors.register("markdown.block.v1")
class MarkdownBlockDetector(Detector):
    """Markdown blocks of one kind (headings, list items, tables, ...) parsed by mistletoe."""

    class Params(DetectorParams):
        """Profile fields of ``markdown.block.v1``."""

        block: BlockLabel = Field(
            description="Which Markdown block to report: heading, paragraph, list, list_item, "
            "table, table_row, table_cell, code, blockquote, thematic_break, html_block or "
            "front_matter."
        )
        levels: list[int] | None = Field(
            default=None,
            description="Keep only these levels: heading levels 1-6 for headings, nesting "
            "depths (1 = outermost) for lists, list items and blockquotes. Null keeps all.",
        )

    def detect(self, ctx: DetectContext) -> list[Structure]:
        """Spans of the configured block kind, labelled with this structure's name."""
        blocks = ctx.memo(("markdown.blocks",), lambda: parse_blocks(ctx.text))
        block, levels = self.params.block, self.params.levels
        keep = None if levels is None else set(levels)
        return finalize(
            [
                Structure(s.start, s.end, self.name, s.level)
                for s in blocks
                if s.label == block and (keep is None or s.level in keep)
            ]
        )
