"""mistletoe's block tokenizer, adapted for :mod:`adachunk.detect.markdown`.

Token classes that follow GFM/CommonMark where mistletoe does not, or that avoid its
quadratic regexes, plus two fast paths that change no result:

* **Empty lines** start no block, so no token type is probed on them.
* **Plain lines** (at most three spaces, then a character that opens no block, and no ``|``
  anywhere) are what most of a document is made of. No block but a paragraph can start on
  one, and none can interrupt a paragraph there (nor is it a setext underline or a thematic
  break), so the tokenizer and :class:`Paragraph` skip the dozen ``start`` /
  ``check_interrupts_paragraph`` probes mistletoe would run on it, all of which return False.
  What each token type needs to start is the table of :mod:`._block_starts`.

mistletoe keeps its parser configuration in module globals and class attributes:
:func:`mistletoe_state` swaps ours in for one parse at a time, under a lock, and restores them.
"""

from __future__ import annotations

import re
import threading
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Iterator

from ._mistletoe_import import import_lazily

import_lazily()  # before the imports below: skips mistletoe's import-time Unicode scan

from mistletoe import block_token as bt  # noqa: E402
from mistletoe import block_tokenizer as btz  # noqa: E402
from mistletoe import token as mtoken  # noqa: E402

from ._block_starts import ANYWHERE, PLAIN_LINE, opening  # noqa: E402
from ._offsets import _PIPE  # noqa: E402  (the unescaped pipe: the one cell delimiter of both)

_LOCK = threading.RLock()
_DELIMITER_CELL = re.compile(r":?-+:?")
_ATX_START = re.compile(r" {0,3}(#{1,6})(?=\s)")
# A line on which only a paragraph can start or go on (with no ANYWHERE character in it):
# made from what each token type needs to start (_block_starts.OPENERS).
_PLAIN_LINE = PLAIN_LINE
LIST_RE = re.compile(r" {0,3}(?:[0-9]{1,9}[.)]|[+\-*])(?:[ \t]*$|[ \t]+)")
ITEM_RE = re.compile(r"( {0,3})([0-9]{1,9}[.)]|[+\-*])($|\s+)")


def _plain(line: str) -> bool:
    return _PLAIN_LINE.match(line) is not None and ANYWHERE not in line


def _n_cells(cells: list[str]) -> int:
    """Cells of a row split on pipes: GFM ignores an empty cell before a leading pipe/after a
    trailing one."""
    return len(cells) - (cells[0].strip() == "") - (len(cells) > 1 and cells[-1].strip() == "")


def _is_delimiter_row(line: str) -> bool:
    # mistletoe's delimiter regex backtracks quadratically on long runs of spaces.
    cells = line.strip().split("|")
    cells = cells[1 if cells[0].strip() == "" else 0 : -1 if cells[-1].strip() == "" else None]
    return bool(cells) and all(_DELIMITER_CELL.fullmatch(c.strip()) for c in cells)


class GfmTable(bt.Table):
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


class Heading(bt.Heading):
    """ATX heading without mistletoe's regex, which is quadratic in runs of whitespace."""

    @classmethod
    def start(cls, line):
        m = _ATX_START.match(line)
        if m is None:
            return False
        cls.level = len(m.group(1))
        cls.content, cls.closing_sequence = line[m.end() :].strip(), ""
        return True


class Setext:
    """Stands in for mistletoe's SetextHeading, which would parse the inline content."""

    def __init__(self, lines: list[str]):
        self.level = 1 if lines[-1].rstrip().endswith("=") else 2


class Html(bt.HtmlBlock):
    """mistletoe's HTML block behind a cheap test: its own start() runs six regexes per line."""

    _maybe = opening("Html", lead=r"\s{0,3}")

    @classmethod
    def start(cls, line):
        return bool(cls._maybe.match(line)) and super().start(line)


class Paragraph(bt.Paragraph):
    """mistletoe 1.6's ``Paragraph.read`` with the plain-line fast path (same result).

    ``parse_setext`` is deliberately not redefined: ``Quote.read`` switches it on the base
    class, and this class must see that.
    """

    _breaking: tuple[list, list] = ([], [])  # (the _token_types they come from, the tokens)

    @classmethod
    def read(cls, lines):
        line_buffer = [next(lines)]
        next_line = lines.peek()
        types = bt._token_types
        if cls._breaking[0] is not types:  # mistletoe recomputes this for every paragraph
            cls._breaking = (types, [t for t in types if hasattr(t, "check_interrupts_paragraph")
                                     and not t == bt.ThematicBreak])
        breaking = cls._breaking[1]
        while next_line is not None and next_line.strip() != "":
            if _plain(next_line):
                _take_plain_run(lines, line_buffer)
                next_line = lines.peek()
                continue
            if any(token_type.check_interrupts_paragraph(lines) for token_type in breaking):
                break
            if cls.parse_setext and cls.is_setext_heading(next_line):
                line_buffer.append(next(lines))
                return bt.SetextHeading(line_buffer)
            if bt.ThematicBreak.check_interrupts_paragraph(lines):
                break
            line_buffer.append(next(lines))
            next_line = lines.peek()
        return line_buffer


def _take_plain_run(lines, line_buffer: list[str]) -> None:
    """Move the run of plain lines at the reading position into ``line_buffer``.

    The same as ``line_buffer.append(next(lines))`` while ``_plain(lines.peek())``, reading
    mistletoe's ``FileWrapper`` list directly (two method calls less per line).
    """
    buf, i = lines.lines, lines.get_pos() + 1
    j = i
    while j < len(buf) and _plain(buf[j]):
        j += 1
    line_buffer.extend(buf[i:j])
    lines.set_pos(j - 1)


# A row opening with "|" (after at most 3 spaces) starts none of the enders: "|" opens none of
# them (_block_starts.OPENERS; BlockCode needs four spaces or a tab).
_PIPE_ROW = opening("GfmTable")


def _ends_table(lines) -> bool:
    line = lines.peek()
    if _PIPE_ROW.match(line):
        return False
    return any(t.start(line) for t in TABLE_ENDERS) or bool(Html.check_interrupts_paragraph(lines))


def tokenize_block(iterable, token_types, start_line=1):
    """mistletoe 1.6's ``block_tokenizer.tokenize_block`` with the empty/plain-line fast paths.

    Otherwise identical: on any other line every token type is probed in order.
    """
    lines = btz.FileWrapper(iterable, start_line=start_line)
    parse_buffer = btz.ParseBuffer()
    plain_path = token_types == TOKENS  # the fast path knows only our token types
    line = lines.peek()
    while line is not None:
        if line == "\n":
            next(lines)
            parse_buffer.loose = True
        elif plain_path and _plain(line):
            line_number = lines.line_number() + 1
            parse_buffer.append((Paragraph, Paragraph.read(lines), line_number))
        else:
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
        line = lines.peek()
    return parse_buffer


TABLE_ENDERS = (bt.BlockCode, Heading, bt.Quote, bt.CodeFence, bt.ThematicBreak, bt.List)
# HTML blocks go after the token types that cannot start with "<" (same result, fewer probes).
TOKENS = [bt.BlockCode, Heading, bt.Quote, bt.CodeFence, bt.ThematicBreak, bt.List, Html,
          GfmTable, Paragraph]


@contextmanager
def mistletoe_state(tokenize=tokenize_block) -> Iterator[None]:
    """Configure mistletoe's globals for a block-only parse, restoring them afterwards.

    Args:
        tokenize: the block tokenizer ``Quote`` and ``ListItem`` call for their contents.
    """
    with _LOCK:
        saved = (bt._token_types, mtoken._root_node, bt.List.pattern, bt.ListItem.pattern,
                 bt.Paragraph.parse_setext, btz.tokenize_block, bt.SetextHeading)
        try:
            bt._token_types = list(TOKENS)
            btz.tokenize_block = tokenize  # also used by Quote and ListItem
            bt.SetextHeading = Setext  # looked up by Paragraph.read
            mtoken._root_node = SimpleNamespace(footnotes={})  # in case anything looks it up
            bt.List.pattern, bt.ListItem.pattern = LIST_RE, ITEM_RE
            bt.Paragraph.parse_setext = True
            yield
        finally:
            (bt._token_types, mtoken._root_node, bt.List.pattern, bt.ListItem.pattern,
             bt.Paragraph.parse_setext, btz.tokenize_block, bt.SetextHeading) = saved
