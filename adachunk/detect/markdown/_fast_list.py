"""Fast reader of simple top-level lists for :mod:`adachunk.detect.markdown._fast`.

:func:`read_list` replays mistletoe 1.6's ``List.read`` / ``ListItem.read`` for a list whose
every item holds one paragraph of plain lines (what the lists of parsed-PDF documents are), and
returns the same ``(items, next position)`` without tokenizing each item's lines again: the
parse buffer of such an item is known to be one ``Paragraph`` on the item's first line.

It uses mistletoe's own helpers for every decision they make (``ListItem.parse_marker``,
``ListItem.parse_continuation``, ``List.same_marker_type``, the paragraph interrupters), and
gives up (returns None, and mistletoe reads the list) as soon as an item could hold anything
else: an empty first line, a first line or continuation line that is not plain, a line after a
blank one that belongs to the item, a non-plain lazy continuation line.
"""

from __future__ import annotations

from . import _mistletoe as mm
from ._block_starts import ANYWHERE, opening
from ._mistletoe import bt

_plain = mm._plain


# After at most three spaces, a list marker's first character: Heading, Quote, CodeFence and
# Html cannot start on such a line (their openers are other characters), GfmTable needs ANYWHERE.
_MARKER_OPEN = opening("List")
_breaking: tuple[list | None, list] = (None, [])  # (the _token_types they come from, tokens)


def _breaking_tokens() -> list:
    """``ListItem.read``'s list of what may end an item's paragraph (it recomputes it per item)."""
    global _breaking
    types = bt._token_types
    if _breaking[0] is not types:
        _breaking = (types, [t for t in types
                             if hasattr(t, "check_interrupts_paragraph") and not t == bt.List])
    return _breaking[1]


class SimpleItems(list):
    """``List.read``'s items, each known to hold one paragraph on its first line (read here)."""


def read_list(reader, pos: int) -> tuple[list, int] | None:
    """``List.read`` at line ``pos``, on which ``List.start`` is true; None to let mistletoe read.

    Args:
        reader: the :class:`._fast._Reader` of the parse (lines, bounds, and a
            ``FileWrapper`` for the interrupter checks).
        pos: the list's first line (0-based, global).

    Returns:
        ``(items, next_pos)``: ``items`` as ``List.read`` returns them (``(parse_buffer,
        indentation, prepend, leader, line_number)`` each), ``next_pos`` the line the top-level
        loop reads next.
    """
    lines, hi = reader.lines, reader.hi
    items = SimpleItems()
    leader0 = None
    marker = bt.ListItem.parse_marker(lines[pos])
    i = pos
    while True:
        indentation, prepend, leader, content = marker
        if not content.strip() or not _plain(content):
            return None  # an empty first line, or a first line that may open another block
        if leader0 is None:
            leader0 = leader
        elif not bt.List.same_marker_type(leader0, leader):
            return items, i  # List.read resets to before this item
        got = _read_item(reader, i, prepend)
        if got is None:
            return None
        j, newline_count, marker = got
        items.append(([(mm.Paragraph, None, i + 1)], indentation, prepend, leader, i + 1))
        if marker is None:
            # ListItem.read steps back one line (not one per blank line) before it returns
            return items, (j - 1 if newline_count else j)
        i = j
        if i >= hi:  # cannot happen: a marker was read on line j
            return None


def _read_item(reader, i: int, prepend: int) -> tuple[int, int, tuple | None] | None:
    """The loop of ``ListItem.read`` after the item's first line ``i``.

    Returns:
        ``(j, newline_count, next_marker)``: ``j`` the first line not taken into the item,
        ``newline_count`` how many blank lines end it, ``next_marker`` the parsed marker of
        line ``j`` when it starts the next item (else None); None when the item may hold more
        than one plain paragraph.
    """
    lines, hi = reader.lines, reader.hi
    j, newline_count = i + 1, 0
    while j < hi:
        nl = lines[j]
        cont = bt.ListItem.parse_continuation(nl, prepend)
        if cont:
            if cont == "\n":
                newline_count += 1
            elif newline_count or not _plain(cont):
                return None  # a second block in the item, or a line that may open one
            j += 1
            continue
        if _plain(nl):  # a plain line interrupts nothing and is no marker:
            if newline_count:
                return j, newline_count, None  # the item ended at the blank line
            j += 1  # lazy continuation
            continue
        if _interrupts(reader, j, nl):
            return j, newline_count, None
        marker = bt.ListItem.parse_marker(nl)
        if marker is not None:
            return j, newline_count, marker
        if newline_count:
            return j, newline_count, None
        return None  # a lazy continuation line that is not plain
    return j, newline_count, None


def _interrupts(reader, j: int, line: str) -> bool:
    """Whether a paragraph interrupter of ``ListItem.read`` starts on line ``j`` (``line``)."""
    if ANYWHERE not in line and _MARKER_OPEN.match(line):  # the next item's marker, usually
        return bool(bt.ThematicBreak.start(line))
    fw = reader._at(j)
    return any(t.check_interrupts_paragraph(fw) for t in _breaking_tokens())
