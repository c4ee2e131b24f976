"""Fast top-level block tokenizer for :mod:`adachunk.detect.markdown` (``engine: auto``).

:func:`tokenize_top` returns what :func:`._mistletoe.tokenize_block` returns for a parse of
``lines[lo:hi]`` at the top level of a document (or inside a ``<Table>`` wrapper), entry for entry:
the same token class at the same line. It *is* mistletoe's top-level loop, run on one
:class:`~mistletoe.block_tokenizer.FileWrapper`, except that four kinds of top-level block, which
make up almost all of a parsed-PDF document, are read from a line classification made once for all
lines (C-level ``map``s) instead of through mistletoe's readers:

* **a paragraph of plain lines ended by a blank line or the end**: ``Paragraph.read`` on a plain
  line takes the run of plain lines (no block can start on or interrupt at a plain line, see
  :data:`~adachunk.detect.markdown._block_starts.PLAIN_LINE`) and stops at the first line whose
  ``strip()`` is empty. When the run ends on any other line, mistletoe reads it.
* **an ATX heading** (``Heading`` is probed right after ``BlockCode``, which cannot start on a
  line holding a ``#`` in its first four characters); ``Heading.read`` takes one line.
* **an HTML block of kind 1-5 whose end condition is on its first line** (``<!-- ... -->``):
  with at most three spaces before the ``<``, none of the token types probed before ``Html``
  can start, and ``Html.read`` stops on the line that holds the end condition.
* **a list whose every item is one paragraph of plain lines**, replayed by
  :func:`._fast_list.read_list` with mistletoe's own marker, continuation and interruption helpers
  (``BlockCode``, ``Heading``, ``Quote`` and ``CodeFence`` cannot start on a line that
  ``List.start`` accepts; ``ThematicBreak`` is probed first, as mistletoe does).

Every other line (quotes, fences, indented code, tables, thematic breaks, multi-line HTML,
setext headings, a paragraph interrupted by another block, a list with any other item...) is
handed to mistletoe's own probes and readers *at the same position of the
same wrapper*, so they see exactly the lines they would see in a full parse. Correctness does
not rest on splitting the document into independent regions: there is no split.

The entries carry only what the walker reads: ``(Paragraph, None, line)`` for a paragraph
(``None`` is not a setext heading), ``(Heading, (level,), line)``, ``(Html, None, line)``, and
``(List, SimpleItems, line)``. :func:`walk_top` turns a top-level buffer into the spans that
``_Walker.walk`` gives, with those entries inlined. ``tests/parity/test_md_fast_parity.py`` checks
entry-for-entry equality with mistletoe's buffer, and span-for-span equality of the result.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import contains, not_, or_

from . import _mistletoe as mm
from ._block_starts import ANYWHERE, opening
from ._mistletoe import bt, btz
from ._fast_list import SimpleItems, read_list
from ._offsets import _WS, ITEM

_ATX = mm._ATX_START
_HTML_OPEN = opening("Html")  # "<" opens nothing probed before Html (_block_starts.OPENERS)


def nonplain_lines(lines: list[str], lo: int, hi: int) -> list[int]:
    """Indices in ``[lo, hi)`` of the lines that are not plain, ``hi`` appended as a sentinel.

    ``not _mistletoe._plain(line)`` for every line, computed by C-level ``map``s (a regex
    scan for ``|`` would be ten times slower than ``str.__contains__``).
    """
    sub = lines[lo:hi]
    no_opening = map(not_, map(mm._PLAIN_LINE.match, sub))
    flags = map(or_, no_opening, map(contains, sub, repeat(ANYWHERE)))
    return [*compress(range(lo, hi), flags), hi]


def tokenize_top(lines: list[str], lo: int, hi: int) -> list[tuple]:
    """mistletoe's top-level parse buffer for ``lines[lo:hi]`` (line numbers 1-based, global).

    Must run inside :func:`._mistletoe.mistletoe_state`, like the tokenizer it replaces. See the
    module docstring for which blocks are read here.
    """
    buf: list[tuple] = []
    nonplain = nonplain_lines(lines, lo, hi)
    reader = _Reader(lines, lo, hi, buf)
    append = buf.append
    Paragraph, Heading, Html = mm.Paragraph, mm.Heading, mm.Html
    List, ThematicBreak = bt.List, bt.ThematicBreak
    k, pos = 0, lo
    while pos < hi:
        while nonplain[k] < pos:
            k += 1
        nxt = nonplain[k]
        if nxt != pos:  # a plain line: a paragraph starts here
            if nxt == hi or not lines[nxt].strip():
                append((Paragraph, None, pos + 1))
                pos = nxt
            else:
                pos = reader.paragraph(pos)
            continue
        line = lines[pos]
        if line == "\n":
            pos += 1
            continue
        m = _ATX.match(line)
        if m is not None:
            append((Heading, (len(m.group(1)),), pos + 1))
            pos += 1
            continue
        if _HTML_OPEN.match(line) and _html_one_line(line):
            append((Html, None, pos + 1))
            pos += 1
            continue
        if not ThematicBreak.start(line) and List.start(line):
            got = read_list(reader, pos)
            if got is not None:
                append((List, got[0], pos + 1))
                pos = got[1]
                continue
        pos = reader.probe(pos)
    return buf


def _html_one_line(line: str) -> bool:
    """Whether ``Html`` starts on ``line`` with an end condition (kinds 1-5) that ``line`` meets.

    ``line`` opens with at most three spaces and ``<``. A comment (kind 2: no kind-1 tag starts
    with ``!``) that closes on its line is the usual case, answered without the six regexes of
    ``HtmlBlock.start`` (casefolding maps ``-`` and ``>`` to themselves).
    """
    if line.lstrip(" ").startswith("<!--") and "-->" in line:
        return True
    if not mm.Html.start(line):
        return False
    cond = mm.Html._end_cond
    return cond is not None and cond in line.casefold()


class _Reader:
    """mistletoe's readers at one position of a ``FileWrapper`` over ``lines[lo:hi]``."""

    def __init__(self, lines: list[str], lo: int, hi: int, buf: list):
        self.lines, self.lo, self.hi, self.buf = lines, lo, hi, buf
        self._fw = None

    def _at(self, pos: int):
        if self._fw is None:  # made on first use: most documents never need one
            self._fw = btz.FileWrapper(self.lines[self.lo : self.hi], start_line=self.lo + 1)
        self._fw.set_pos(pos - self.lo - 1)
        return self._fw

    def paragraph(self, pos: int) -> int:
        """``tokenize_block``'s plain-line branch at ``pos``; returns the next position."""
        fw = self._at(pos)
        line_number = fw.line_number() + 1
        self.buf.append((mm.Paragraph, mm.Paragraph.read(fw), line_number))
        return fw.get_pos() + 1 + self.lo

    def probe(self, pos: int) -> int:
        """``tokenize_block``'s probe of every token type at ``pos``; returns the next position."""
        fw = self._at(pos)
        line = self.lines[pos]
        for token_type in bt._token_types:
            if token_type.start(line):
                line_number = fw.line_number() + 1
                result = token_type.read(fw)
                if result is not None:
                    self.buf.append((token_type, result, line_number))
                    break
        else:
            next(fw)
        return fw.get_pos() + 1 + self.lo


def walk_top(walker, buf: list, bound: int) -> None:
    """``walker.walk(buf, bound)`` for a buffer outside any container, the same spans faster.

    Paragraphs, ATX headings and HTML blocks other than wrappers, which are most of a document,
    get their span here with ``LineMap.span``'s arithmetic inlined (no container prefix to skip
    at the top level); every other entry goes to ``walker.walk`` alone with the same bound.
    """
    lm, out, wrappers = walker.lm, walker.out, walker.wrappers
    text, starts, ends, last_nonblank = lm.text, lm.starts, lm.ends, lm.last_nonblank
    blank, n_lines = lm._blank, len(starts)
    skip_ws = _WS.match
    bom = text.startswith("\ufeff")
    Paragraph, Heading, Html, Setext = mm.Paragraph, mm.Heading, mm.Html, mm.Setext
    n = len(buf)
    for k, entry in enumerate(buf):
        kind, res, ln = entry
        first = ln - 1
        stop = buf[k + 1][2] - 1 if k + 1 < n else bound
        if kind is Heading:
            label, last, level = "heading", first, res[0]
        elif kind is Paragraph and not isinstance(res, Setext) or (
                kind is Html and first not in wrappers):
            label, level = ("paragraph" if kind is Paragraph else "html_block"), 0
            if blank is None:
                last = last_nonblank(first, stop)
            else:  # LineMap.last_nonblank inlined
                last = (stop if stop < n_lines else n_lines) - 1
                while last > first and blank[last]:
                    last -= 1
                if last < first:
                    last = first
        elif kind is bt.List and type(res) is SimpleItems:
            _simple_list(walker, res, first, last_nonblank(first, stop))
            continue
        else:
            walker.walk([entry], stop)
            continue
        start = starts[first]
        if start == 0 and bom:  # LineMap.content_start: a byte-order mark is not content
            start = 1
        if start < ends[first] and text[start].isspace():  # at most 3 spaces before the content
            start = skip_ws(text, start, ends[first]).end()
        out.append((start, ends[last], label, level))


def _simple_list(walker, items: SimpleItems, first: int, last: int) -> None:
    """``walker._list`` for a top-level list from :func:`read_list`: its items' one paragraph each.

    The same spans as ``_list`` then ``walk`` of each item's one-entry buffer, without the
    recursion: the paragraph runs from the item's content to the item's last non-blank line
    (an item whose marker line holds no content goes to ``walker.walk`` as ``_list`` would).
    """
    lm, out = walker.lm, walker.out
    ends, content_start, last_nonblank = lm.ends, lm.content_start, lm.last_nonblank
    out.append((content_start(first), ends[last], "list", 1))
    n = len(items)
    for k, item in enumerate(items):
        ifirst = item[4] - 1
        ilast = last_nonblank(ifirst, items[k + 1][4] - 1 if k + 1 < n else last + 1)
        out.append((content_start(ifirst), ends[ilast], "list_item", 1))
        inner = ((ITEM, ifirst, item[3]),)
        start = content_start(ifirst, inner)
        if start >= ends[ifirst]:  # _list's blank marker line: its children shift by a line
            walker.walk(item[0], ilast + 1, inner, 1, 0, 1)
        else:  # walk: the paragraph's last line is last_nonblank(ifirst, ilast + 1) == ilast
            out.append((start, ends[ilast], "paragraph", 0))
