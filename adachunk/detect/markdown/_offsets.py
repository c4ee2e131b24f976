"""Line bookkeeping for the Markdown block detector: offsets, prefixes, pre-scans.

mistletoe reports only the 1-based line on which a block starts. Everything that turns such a
line number into exact code-point offsets into the *original* text lives here, so that
:mod:`adachunk.detect.markdown` only has to walk mistletoe's parse tree. All helpers are linear
in the size of the text (regexes run with ``pos``/``endpos`` instead of slicing long lines).
The line scan for the text mistletoe cannot parse is :mod:`._line_scan`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, repeat
from operator import add, sub


# Only CR LF, CR and LF end a line: str.splitlines() would also split on \v, \f, \x1c-\x1e,
# \x85, U+2028/2029, which Markdown treats as ordinary characters.
_EOL = re.compile(r"\r\n|\r|\n")
# \s is str.isspace(), the same notion of blank that mistletoe's ``line.strip() == ''`` uses.
_WS = re.compile(r"\s*")
_NONBLANK = re.compile(r"\S")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_FM_OPEN = re.compile(r"\ufeff?---[ \t]*$")
_FM_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*$")
_FM_KEY = re.compile(r"\s*(?:#|[^\s:#][^:]*:(?:\s|$))")
_WRAP_OPEN = re.compile(r" {0,3}<(table|figure)(?:\s[^>]*)?>\s*$", re.IGNORECASE)
_WRAP_CLOSE_ANY = re.compile(r"</(table|figure)\s*>", re.IGNORECASE)
_WRAP_SCAN = r" {0,3}(?:`{3}|~{3}|<(?:table|figure)[\s>])"  # after a line terminator
_WRAP_CLOSE_ALONE = re.compile(r"\s*</(table|figure)\s*>\s*$", re.IGNORECASE)
_PIPE = re.compile(r"(?<!\\)\|")
# A line opening with this many container-marker characters may nest deeply (checked exactly).
_DEEP_CANDIDATE = r"[ \t>*+\-0-9.)]{%d}"  # after a line terminator
_MARKER = re.compile(r"[ \t]*(?:>|(?:[0-9]{1,9}[.)]|[-+*])(?=[ \t]|$))")

QUOTE = "q"
ITEM = "i"

# A block as the parser makes it: ``(start, end, label, level)``, the fields of a Structure in
# its order (so tuples sort as Structures do). A document has tens of thousands of blocks and
# most consumers want arrays by label: a tuple costs 30 ns, a Structure 0.9 us.
Row = tuple[int, int, str, int]


@dataclass
class LineMap:
    """Start and content end (line terminator excluded) of every line of ``text``.

    A final line terminator does not open a further (empty) line, so ``len(starts)`` equals the
    number of lines mistletoe is given.
    """

    text: str
    starts: list[int] = field(init=False)
    ends: list[int] = field(init=False)

    def __post_init__(self) -> None:
        text = self.text
        self._blank: list[bool] | None = None
        self._lines: list[str] | None = None
        if "\r" not in text:
            # "\n" only (the usual case): the lines with their "\n" from one split (what
            # mistletoe reads: kept for mistletoe_lines), offsets by running sums of their
            # lengths, and which lines are blank (str.isspace is the regex \s of is_blank, and
            # a line holding only its "\n" is blank). C-level maps only: no Python per line.
            lines = _newline_lines(text)
            stops = list(accumulate(map(len, lines)))  # where the next line starts
            self.starts = [0, *stops[:-1]] if lines else []
            self.ends = list(map(sub, stops, repeat(1)))
            self._blank = list(map(str.isspace, lines))
            self._lines = lines
            return
        spans = [m.span() for m in _EOL.finditer(text)]
        self.ends = [a for a, _ in spans]
        self.starts = [0] + [b for _, b in spans]
        if self.starts[-1] < len(text):
            self.ends.append(len(text))
        else:
            self.starts.pop()

    def __len__(self) -> int:
        return len(self.starts)

    def take_lines(self) -> list[str] | None:
        """The ``\\n``-ended lines split on construction (texts without ``\\r``), handed over
        once: the caller may change them. None when there are none (left)."""
        lines, self._lines = self._lines, None
        return lines

    def line_of(self, offset: int) -> int:
        """Index of the line holding ``offset``."""
        return bisect_right(self.starts, offset) - 1

    def is_blank(self, i: int, quote_depth: int = 0) -> bool:
        """Whether line ``i`` is blank once up to ``quote_depth`` ``>`` markers are removed.

        Inside a blockquote a line holding only ``>`` separates blocks, so it must never end a
        child block although it is not blank in the original text.
        """
        if self._blank is not None and (quote_depth == 0 or self._blank[i]):
            return self._blank[i]  # blank stays blank whatever ">" markers are removed
        text, end = self.text, self.ends[i]
        pos = _WS.match(text, self.starts[i], end).end()
        for _ in range(quote_depth):
            if pos < end and text[pos] == ">":
                pos = _WS.match(text, pos + 1, end).end()
        return pos >= end

    def last_nonblank(self, first: int, stop: int, quote_depth: int = 0) -> int:
        """Last line in ``[first, stop)`` that is not blank (``first`` itself at least)."""
        last = min(stop, len(self.starts)) - 1
        blank = self._blank
        if blank is not None and quote_depth == 0:  # the common case, without a call per line
            while last > first and blank[last]:
                last -= 1
            return max(last, first)
        while last > first and self.is_blank(last, quote_depth):
            last -= 1
        return max(last, first)

    def content_start(self, i: int, chain: tuple = ()) -> int:
        """Offset of the first content character of line ``i`` inside container ``chain``.

        ``chain`` lists the enclosing containers outermost first: ``(QUOTE,)`` strips a ``>``
        when present (lazy continuation lines have none), ``(ITEM, line, leader)`` strips the
        list marker only on the item's own first line. Leading whitespace is always skipped.
        """
        text, end = self.text, self.ends[i]
        pos = self.starts[i]
        if pos == 0 and text.startswith("\ufeff"):
            pos = 1  # a byte-order mark is not content
        for link in chain:
            pos = _WS.match(text, pos, end).end()
            if link[0] == QUOTE:
                if pos < end and text[pos] == ">":
                    pos += 1
            elif link[1] == i and text.startswith(link[2], pos, end):
                pos += len(link[2])
        return _WS.match(text, pos, end).end()

    def span(self, label: str, first: int, last: int, chain: tuple = (), level: int = 0) -> Row:
        """The block from the content start of ``first`` to the end of line ``last``."""
        return (self.content_start(first, chain), self.ends[last], label, level)


@lru_cache(maxsize=16)
def _after_terminator(tail: str, flags: int) -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """``tail`` after a ``\\n``, after a ``\\r``, and at a line start (compiled once)."""
    return re.compile("\n" + tail, flags), re.compile("\r" + tail, flags), re.compile(tail, flags)


def _lines_opening_with(lm: LineMap, tail: str, lo: int, flags: int) -> list[int]:
    """Sorted lines from ``lo`` on whose text starts with a match of ``tail``.

    A search led by the literal ``\\n`` skips through the text in C; a class such as
    ``[\\r\\n]`` would be tried at every character (ten times slower). Lone ``\\r`` line
    ends are searched for only when the text has any.
    """
    if lo >= len(lm):
        return []
    text, begin = lm.text, lm.starts[lo]
    after_lf, after_cr, at_start = _after_terminator(tail, flags)
    hits = [lo] if at_start.match(text, begin) else []
    hits += [lm.line_of(m.end() - 1) for m in after_lf.finditer(text, begin)]
    if "\r" in text:
        hits += [lm.line_of(m.end() - 1) for m in after_cr.finditer(text, begin)]
        hits = sorted(set(hits))
    return hits


def deep_lines(lm: LineMap, lo: int, max_depth: int) -> list[int]:
    """Lines from ``lo`` on whose container prefix may nest deeper than ``max_depth``.

    mistletoe recurses once (several frames) per nesting level, so such lines would exhaust
    the recursion limit, and slowly: they go to the line scan without trying mistletoe. The
    estimate counts the ``>`` and list markers that open the line, plus one level per two
    columns of indentation before them (a nested list needs at least two more columns).
    """
    text, out = lm.text, []
    if lo >= len(lm):
        return out
    # A candidate is a line terminator followed by the long prefix (the first line: a "\n"
    # is pretended before it); terminators are matched by the regex, so no per-line loop.
    hits = _lines_opening_with(lm, _DEEP_CANDIDATE % max_depth, lo, 0)
    for i in hits:
        pos, end, markers, width = lm.starts[i], lm.ends[i], 0, 0
        while markers <= max_depth and (mk := _MARKER.match(text, pos, end)) is not None:
            width += len(mk.group().lstrip(" \t"))
            pos, markers = mk.end(), markers + 1
        # whitespace beyond the one separator space per marker is indentation
        spaces = len(text[lm.starts[i] : pos].expandtabs(4)) - width - markers
        if markers and markers + max(spaces, 0) // 2 > max_depth and (not out or out[-1] != i):
            out.append(i)
    return out


def mistletoe_lines(lm: LineMap, lo: int, wrappers: dict) -> tuple[list[str], list[str]]:
    """The lines mistletoe reads: one per line of the text, each ending in ``\\n``.

    Replacements keep every line's length (so columns still match the original): NUL becomes
    U+FFFD as CommonMark asks, a leading BOM a space, front matter blank lines. The first list
    returned also has each HTML wrapper masked as an HTML comment, so that mistletoe treats it
    as one block across blank lines; the second keeps the wrappers' insides for their own parse.
    """
    text = lm.text
    lines = lm.take_lines()  # the LineMap's own split, when the text needs no replacement
    if lines is None or "\0" in text or text.startswith("\ufeff"):
        lines = _replaced_lines(lm)
    for i in range(lo):
        lines[i] = "\n"
    plain = list(lines) if wrappers else lines
    for open_, (close, _inside) in wrappers.items():
        lines[open_] = " " * (lm.content_start(open_) - lm.starts[open_]) + "<!--\n"
        for i in range(open_ + 1, close):
            lines[i] = "x\n"
        lines[close] = "-->\n"
    return lines, plain


def _replaced_lines(lm: LineMap) -> list[str]:
    """:func:`mistletoe_lines` before masking: NUL and a leading BOM replaced, ``\\n`` ends."""
    text = lm.text
    if "\0" in text:
        text = text.replace("\0", "\ufffd")
    if text.startswith("\ufeff"):
        text = " " + text[1:]
    if "\r" in text:
        return [text[s:e] + "\n" for s, e in zip(lm.starts, lm.ends)]
    return _newline_lines(text)  # replacements keep every line feed where it was


def _newline_lines(text: str) -> list[str]:
    """The lines of a text without ``\\r``, each ending in ``\\n`` (one split and a C-level
    map); a final ``\\n`` does not open a further (empty) line."""
    pieces = text.split("\n")
    if not pieces[-1]:
        pieces.pop()
    return list(map(add, pieces, repeat("\n")))


def table_cells(lm: LineMap, row: int, start: int) -> list[Row]:
    """Cells of the table row on line ``row`` whose content starts at ``start``.

    Splits on unescaped pipes like mistletoe's ``TableRow``; each cell is stripped of
    surrounding whitespace and empty cells are skipped.
    """
    text, end = lm.text, lm.ends[row]
    cells: list[Row] = []
    pos = start
    for stop in [m.start() for m in _PIPE.finditer(text, start, end)] + [end]:
        m = _NONBLANK.search(text, pos, stop)
        if m is not None:
            last = stop
            while text[last - 1].isspace():
                last -= 1
            cells.append((m.start(), last, "table_cell", 0))
        pos = stop + 1
    return cells


def front_matter_end(lm: LineMap) -> int:
    """Index of the closing ``---``/``...`` line of YAML front matter, or -1 when there is none.

    Requires the first inner non-blank line to look like YAML (``key:`` or a comment): a
    document that merely opens with a thematic break is not front matter.
    """
    if not lm or not _FM_OPEN.match(lm.text, 0, lm.ends[0]):
        return -1
    checked = False
    for i in range(1, len(lm)):
        s, e = lm.starts[i], lm.ends[i]
        if _FM_CLOSE.match(lm.text, s, e):
            return i
        if not checked and not lm.is_blank(i):
            if not _FM_KEY.match(lm.text, s, e):
                return -1
            checked = True
    return -1


def find_wrappers(lm: LineMap, first_line: int = 0) -> dict[int, tuple[int, bool]]:
    """Find ``<Table>``…``</Table>`` and ``<Figure>``…``</Figure>`` wrappers (parsed-PDF format).

    CommonMark ends such an HTML block at the first blank line; the paper's documents use them
    as one unit that may hold blank lines and a Markdown table, so each becomes one block.

    Returns:
        ``{open_line: (close_line, parse_inside)}``. ``parse_inside`` is False when the closing
        tag shares its line with other content, so the inside is treated as raw HTML.
    """
    text = lm.text
    if first_line >= len(lm):
        return {}
    closes: dict[str, list[int]] = {"table": [], "figure": []}
    for m in _WRAP_CLOSE_ANY.finditer(text, lm.starts[first_line]):
        line = lm.line_of(m.start())
        bucket = closes[m.group(1).lower()]
        if not bucket or bucket[-1] != line:
            bucket.append(line)
    found: dict[int, tuple[int, bool]] = {}
    if not closes["table"] and not closes["figure"]:
        return found
    # Only fence lines and opening tags matter: find them with one regex over the text (a
    # line terminator, or a pretended one before the first line, then the line's opening).
    hits = _lines_opening_with(lm, _WRAP_SCAN, first_line, re.IGNORECASE)
    fence, skip_to = None, -1
    for i in hits:
        if i <= skip_to:
            continue
        s, e = lm.starts[i], lm.ends[i]
        m = _FENCE.match(text, s, e)
        if fence is not None:  # wrappers inside fenced code are code, not HTML
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                if _WS.match(text, m.end(), e).end() == e:
                    fence = None
        elif m:
            fence = m.group(1)
        elif (mo := _WRAP_OPEN.match(text, s, e)) is not None:
            bucket = closes[mo.group(1).lower()]
            k = bisect_right(bucket, i)
            if k < len(bucket):
                close = bucket[k]
                alone = _WRAP_CLOSE_ALONE.match(text, lm.starts[close], lm.ends[close])
                found[i] = (close, bool(alone and alone.end() == lm.ends[close]))
                skip_to = close
    return found

