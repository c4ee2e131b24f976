"""The line table of the compiled Markdown reader (plain Python, Numba-compiled; its own twin).

:func:`line_table` makes one pass over a text's code points and gives, per line, its start and
end (terminator excluded; ``\\r\\n``, ``\\r`` and ``\\n`` as :class:`~._offsets.LineMap`
splits them), its ATX heading level, its number of ``|``, what a list marker on it looks like,
and the bits below. Each bit is exactly the Python test named next to it, on the line as
mistletoe reads it (a leading BOM read as a space); :mod:`._block_reader` reads blocks from
them. ``tests/test_md_compiled_parity.py`` checks every bit against its test.

A *safe* line is one on which no block but a paragraph starts and which interrupts none
(checked there against every token type's ``start`` and ``check_interrupts_paragraph``): a
paragraph reads through safe lines as it does through plain ones.

Offsets are int64 indices into ``codes``; ``f`` is the property table of
:mod:`adachunk.detect.text_units._scan_tables` (bit 1 is ``str.isspace``). The loop and its helpers
stay in this file: Numba's disk cache watches the compiled function's own file only.
"""

from __future__ import annotations

import numpy as np

SPACE = 1  # _scan_tables.SPACE: str.isspace (re's \s, str.strip)

# line bits (uint16; _block_reader repeats them, checked equal by the tests)
PLAIN = 1  # _mistletoe._plain(line)
EMPTY = 2  # line == "\n"
MBLANK = 4  # not line.strip(): blank as mistletoe reads the line
COMMENT = 8  # _fast._HTML_OPEN.match(line) and the comment case of _html_one_line(line)
LBLANK = 16  # LineMap's blank: str.isspace of the original line with its "\n"
FORCED = 32  # set by the caller: an HTML wrapper's opening line (mistletoe reads it)
SAFE = 64  # a safe line (module docstring): PLAIN, and the cases of _safe_opening
PIPE = 128  # "|" in line
CSAFE = 256  # safe from its first character that is not a space on (a continuation line)
MSAFE = 512  # a list marker (``marker`` > 0) whose content is safe
THEMATIC = 1024  # ThematicBreak.start(line)
OPEN_COMMENT = 2048  # at most three spaces, then "<!--" (Html.start's kind 2)
# candidates for the pre-scans of _offsets (each a superset, confirmed there by its regex)
CLOSE_TAG = 4096  # "</" in line: _WRAP_CLOSE_ANY can start here
WRAP_SCAN = 8192  # " {0,3}" then "```", "~~~", or "<" and t, T, f or F: _WRAP_SCAN can match
DEEP = 16384  # the line opens with at least ``deep`` characters of _DEEP_CANDIDATE's class
# "|" in the line, and the next line may be a GFM delimiter row (it holds only "|", "-", ":" and
# whitespace, a "-" among them: a superset of _mistletoe._is_delimiter_row): a table may
# start or interrupt a paragraph here. A "|" line without it is read as any other line.
TABLE = 32768

NL, CR, SP, HASH, LT, BANG, DASH = 10, 13, 32, 35, 60, 33, 45


def _space(f, c):
    """``str.isspace`` of the character ``c``."""
    return (f[c] & SPACE) != 0


def _opens_block(c):
    """Whether ``c`` is one of ``#>`~-_*+0-9<=|``: the characters after which
    ``_PLAIN_LINE`` fails (``[^\\s#>`~\\-_*+0-9<=|]``, whitespace aside)."""
    return (c == 35 or c == 62 or c == 96 or c == 126 or c == 45 or c == 95 or c == 42
            or c == 43 or (48 <= c <= 57) or c == 60 or c == 61 or c == 124)


def _atx_level(codes, f, i, e):
    """The ATX heading level of a line whose first character (after at most three spaces) is
    at ``i`` (0: none): `` {0,3}(#{1,6})(?=\\s)``, the run of ``#`` 1-6 long then whitespace
    or the end."""
    k = i
    while k < e and codes[k] == HASH:
        k += 1
    if 1 <= k - i <= 6 and (k == e or _space(f, codes[k])):
        return k - i
    return 0


def _run_then_other(codes, f, i, e, c, c2):
    """Whether ``codes[i:e]`` holds a character that is neither ``c``, ``c2`` nor whitespace."""
    for k in range(i, e):
        d = codes[k]
        if d != c and d != c2 and not _space(f, d):
            return True
    return False


def _safe_opening(codes, f, i, e, first):
    """Whether a line without ``|`` whose first character ``first`` (at ``i``, after at most
    three spaces) opens a block in ``_PLAIN_LINE``'s class is still safe.

    * ``#`` that is no ATX heading: only ``Heading`` needs a ``#``.
    * an ASCII digit that opens no list marker (:func:`_marker`, ``ITEM_RE``): ``List.start``
      (``LIST_RE``) and ``List.check_interrupts_paragraph`` (``ITEM_RE``, which also takes
      Unicode whitespace after the marker) need one.
    * one of ``-+*_=`` followed by a character that is not whitespace (a list marker needs
      whitespace or the end after it), in a line holding a character that is neither itself
      nor whitespace, nor, after ``-`` or ``=``, the other of the two: a thematic break holds
      one of ``-_*`` and whitespace, a setext underline (`` {0,3}(=|-)+ *$``) ``=`` and ``-``
      mixed, then spaces.
    * a run of fewer than three backticks or tildes (a fence needs three).
    """
    if first == HASH:
        return _atx_level(codes, f, i, e) == 0
    if 48 <= first <= 57:
        return _marker(codes, f, i, e)[0] == 0
    if first == 45 or first == 43 or first == 42 or first == 95 or first == 61:
        other = 61 if first == 45 else (45 if first == 61 else first)
        return (i + 1 < e and not _space(f, codes[i + 1])
                and _run_then_other(codes, f, i + 1, e, first, other))
    if first == 96 or first == 126:
        k = i
        while k < e and codes[k] == first:
            k += 1
        return k - i < 3
    return False


def _safe_at(codes, f, i, e, pipe):
    """Whether the line read from ``i`` (its first character, not whitespace there) is safe."""
    if pipe or i >= e:
        return False
    c = codes[i]
    if _space(f, c):
        return False
    return not _opens_block(c) or _safe_opening(codes, f, i, e, c)


def _marker(codes, f, i, e):
    """``ListItem.parse_marker`` (``ITEM_RE``) at ``i`` (after at most three spaces):
    ``(content start, leader end)``; the content start is 0 for no marker, and -1 for a marker
    this reader leaves to mistletoe. A marker it reads has one to four spaces after its leader,
    then a character that is not whitespace (the content)."""
    if i >= e:
        return 0, 0
    c = codes[i]
    if 48 <= c <= 57:  # [0-9]{1,9}[.)]: ten digits or more fail
        k = i
        while k < e and 48 <= codes[k] <= 57:
            k += 1
        if k - i > 9 or k >= e or (codes[k] != 46 and codes[k] != 41):
            return 0, 0
        lead = k + 1
    elif c == 45 or c == 43 or c == 42:
        lead = i + 1
    else:
        return 0, 0
    if lead < e and not _space(f, codes[lead]):  # ($|\s+) fails
        return 0, 0
    k = lead
    while k < e and codes[k] == SP:
        k += 1
    if k == lead or k - lead > 4 or k >= e or _space(f, codes[k]):
        return -1, lead
    return k, lead


def _at(codes, j, bom):
    """The code point mistletoe reads at ``j``: its lines start with a space for a BOM."""
    if j == 0 and bom:
        return SP
    return codes[j]


def _count_lines(codes):
    """How many lines ``LineMap`` makes: one per terminator, plus an unterminated last line."""
    n = codes.shape[0]
    lines = 0
    i = 0
    while i < n:
        c = codes[i]
        if c == NL:
            lines += 1
        elif c == CR:
            lines += 1
            if i + 1 < n and codes[i + 1] == NL:
                i += 1
        i += 1
    if n and codes[n - 1] != NL and codes[n - 1] != CR:
        lines += 1
    return lines


def _deep_class(c):
    """Whether ``c`` is in ``_offsets._DEEP_CANDIDATE``'s class: space, tab, ``>*+-``,
    an ASCII digit, ``.`` or ``)``."""
    return (c == 32 or c == 9 or c == 62 or c == 42 or c == 43 or c == 45 or (48 <= c <= 57)
            or c == 46 or c == 41)


# Kept whole: it classifies one line in a single compiled pass (the tests of every block start
# read the same few code points), and returns seven values the line table stores side by side.
def _line_bits(codes, f, s, bom, deep, table):
    """``(end, bits, atx level, pipes, marker content, marker leader end, delimiter
    candidate)`` of the line that starts at ``s`` (offsets relative to ``s``; see
    :func:`line_table`). ``table``: whether a ``|`` on the line may open a table (the next line
    may be a delimiter row); when not, the line's safety bits are those of the line without
    its ``|`` (``PLAIN`` and ``PIPE`` still see them).

    One pass to the line's terminator; whitespace is looked up only up to the first character
    that is not, or while the line may still be a delimiter row (the rest of a line is only
    searched for ``|``).
    """
    n = codes.shape[0]
    e = s
    visible = -1  # first character that is not whitespace (mistletoe's reading)
    pipes = 0
    close_tag = False
    other = False  # a character that no delimiter row holds
    dash = False
    while e < n:
        c = codes[e]
        if c == NL or c == CR:
            break
        if not other:
            if c == 45:
                dash = True
            elif c != 124 and c != 58 and c != SP and not _space(f, c):
                other = True
        if c == 124:
            pipes += 1
        elif c == LT and e + 1 < n and codes[e + 1] == 47:
            close_tag = True
        if visible < 0 and not (c == SP or (e == 0 and bom)) and not _space(f, c):
            visible = e
        e += 1
    # " {0,3}" then the first character (a line that ends there has its "\n" next)
    i = s
    while i < s + 3 and i < e and _at(codes, i, bom) == SP:
        i += 1
    first = _at(codes, i, bom) if i < e else NL
    pipe = pipes > 0
    blocks = pipe and table  # the "|" may open a table: the line is no safe line
    bits = PIPE if pipe else 0
    if close_tag:
        bits |= CLOSE_TAG
    if first == LT and i + 1 < e:
        d = codes[i + 1]
        if d == 116 or d == 84 or d == 102 or d == 70:  # (?i)[tf]: no other code point
            bits |= WRAP_SCAN
    elif (first == 96 or first == 126) and i + 2 < e and codes[i + 1] == first \
            and codes[i + 2] == first:
        bits |= WRAP_SCAN
    k = s
    while k < e and k - s < deep and _deep_class(codes[k]):
        k += 1
    if k - s >= deep:
        bits |= DEEP
    if visible < 0:
        bits |= MBLANK
        if not (bom and s == 0 and e > 0):  # the BOM itself is not whitespace
            bits |= LBLANK
    if s == e:
        bits |= EMPTY
    ordinary = not _space(f, first) and not _opens_block(first)  # _PLAIN_LINE but for "|"
    if ordinary and not pipe:
        bits |= PLAIN
    level = _atx_level(codes, f, i, e) if first == HASH else 0
    if first == LT and i + 3 < e and codes[i + 1] == BANG and codes[i + 2] == DASH \
            and codes[i + 3] == DASH:
        bits |= OPEN_COMMENT
        # line.lstrip(" ").startswith("<!--") and "-->" in line (it may overlap the "<!--")
        for k in range(i + 2, e - 2):
            if codes[k] == DASH and codes[k + 1] == DASH and codes[k + 2] == 62:
                bits |= COMMENT
                break
    if not blocks and (ordinary or (i < e and _safe_opening(codes, f, i, e, first))):
        bits |= SAFE
    if not (s == 0 and bom):  # the reader leaves a BOM line to mistletoe: no marker, no CSAFE
        v = s
        while v < e and codes[v] == SP:
            v += 1
        if _safe_at(codes, f, v, e, blocks):
            bits |= CSAFE
        if (first == 45 or first == 42 or first == 95) and not _run_then_other(codes, f, i, e, first,
                                                                               first):
            k = 0
            for q in range(i, e):
                k += codes[q] == first
            if k >= 3:
                bits |= THEMATIC
    content, lead = _marker(codes, f, i, e) if i < e else (0, 0)
    if content > 0 and _safe_at(codes, f, content, e, blocks):
        bits |= MSAFE
    if blocks:
        bits |= TABLE
    cand = dash and not other
    if content == 0:
        return e, bits, level, pipes, 0, 0, cand
    return e, bits, level, pipes, (content - s if content > 0 else -1), lead - s, cand


def line_table(codes, f, bom, deep):
    """Every line's ``(starts, ends, bits, atx levels, pipes, markers, leads)``.

    ``pipes``: how many ``|`` the line holds (a line with one is safe, like any other, when
    the next line cannot be a delimiter row; :data:`TABLE` marks those that stay unsafe). ``markers``: where a list marker's content
    starts, from the line's start (0: no marker; -1: a marker of a shape left to mistletoe);
    ``leads``: where its leader ends.

    Args:
        codes: the text's code points.
        f: the property table (``str.isspace`` in bit 1).
        bom: whether the text opens with U+FEFF (mistletoe reads a space there).
        deep: the run of container-marker characters that makes a line :data:`DEEP`.
    """
    m = _count_lines(codes)
    n = codes.shape[0]
    starts = np.empty(m, np.int64)
    ends = np.empty(m, np.int64)
    bits = np.empty(m, np.uint16)
    levels = np.empty(m, np.int8)
    pipes = np.empty(m, np.int32)
    markers = np.empty(m, np.int8)
    leads = np.empty(m, np.int8)
    cand = np.zeros(m + 1, np.bool_)  # the line may be a delimiter row (one past the last: no)
    s = 0
    for k in range(m):
        e, b, lv, pp, mk, ld, cd = _line_bits(codes, f, s, bom, deep, False)
        starts[k] = s
        ends[k] = e
        bits[k] = b
        levels[k] = lv
        pipes[k] = pp
        markers[k] = mk
        leads[k] = ld
        cand[k] = cd
        if e < n and codes[e] == CR and e + 1 < n and codes[e + 1] == NL:
            e += 1
        s = e + 1
    # a "|" line whose next line is no delimiter row opens no table in any block the reader
    # reads (the top level, list items: their lines lose leading whitespace only, which makes
    # no delimiter row of a line that is none); the few whose next line may be one (a table's
    # header, mostly) are read again as lines that may open a table
    for k in range(m):
        if (bits[k] & PIPE) and cand[k + 1]:
            bits[k] = _line_bits(codes, f, starts[k], bom, deep, True)[1]
    return starts, ends, bits, levels, pipes, markers, leads


HELPERS = (_space, _opens_block, _atx_level, _run_then_other, _safe_opening, _safe_at, _marker,
           _at, _count_lines, _deep_class, _line_bits)
