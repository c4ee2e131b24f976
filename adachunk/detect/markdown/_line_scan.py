"""The line scan for the text mistletoe cannot parse (the last resort of every engine).

:func:`adachunk.detect.markdown.parse_block_rows` hands a text to mistletoe's readers (directly or
through a fast path); when that fails (container nesting deeper than ``MAX_DEPTH``, a
``RecursionError`` or any other exception), the text is cut into pieces by :func:`segments`,
each piece is parsed again, and only the pieces that still fail get :func:`fallback_blocks`.
"""

from __future__ import annotations

import re

from ._offsets import _FENCE, LineMap, Row

_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_LIST_MARK = re.compile(r" {0,3}(?:[0-9]{1,9}[.)]|[-+*])(?:[ \t]|$)")


def fallback_blocks(lm: LineMap, lo: int, hi: int, wrappers: dict) -> list[Row]:
    """Line-based block scan of lines ``[lo, hi)`` used when mistletoe fails.

    Recognises fenced code, ATX headings, the HTML wrappers and groups of non-blank lines
    (a ``list`` when the group opens with a list marker, a ``blockquote`` when it opens with
    ``>``, else a ``paragraph``). Iterative, so arbitrarily deep nesting cannot hurt it.
    """
    text, out = lm.text, []
    i = lo
    while i < hi:
        s, e = lm.starts[i], lm.ends[i]
        if lm.is_blank(i):
            i += 1
            continue
        if i in wrappers and wrappers[i][0] < hi:
            close = wrappers[i][0]
            out.append(lm.span("html_block", i, close))
            if wrappers[i][1]:
                out.extend(fallback_blocks(lm, i + 1, close, {}))
            i = close + 1
            continue
        fm = _FENCE.match(text, s, e)
        if fm:
            j = i + 1
            while j < hi:
                m = _FENCE.match(text, lm.starts[j], lm.ends[j])
                if m and m.group(1)[0] == fm.group(1)[0] and len(m.group(1)) >= len(fm.group(1)):
                    break
                j += 1
            last = lm.last_nonblank(i, min(j + 1, hi))
            out.append(lm.span("code", i, last))
            i = last + 1
            continue
        if _ATX.match(text, s, e):
            level = len(text[s:e].lstrip(" ")) - len(text[s:e].lstrip(" ").lstrip("#"))
            out.append(lm.span("heading", i, i, level=level))
            i += 1
            continue
        j = i + 1
        while j < hi and not lm.is_blank(j) and j not in wrappers:
            if _ATX.match(text, lm.starts[j], lm.ends[j]) or _FENCE.match(
                text, lm.starts[j], lm.ends[j]
            ):
                break
            j += 1
        start = lm.content_start(i)
        if _LIST_MARK.match(text, s, e):
            label, level = "list", 1
        elif text.startswith(">", start):
            label, level = "blockquote", 1
        else:
            label, level = "paragraph", 0
        out.append((start, lm.ends[j - 1], label, level))
        i = j
    return out


def segments(lm: LineMap, lo: int, hi: int, wrappers: dict) -> list[tuple[int, int]]:
    """Split lines ``[lo, hi)`` at blank lines followed by an unindented line.

    Used only after mistletoe failed on the whole text: parsing the pieces separately confines
    the line-based fallback to the piece that really needs it. Fenced code and HTML wrappers
    are never split.
    """
    text, out, begin, fence, prev_blank, hold = lm.text, [], lo, None, False, -1
    for i in range(lo, hi):
        s, e = lm.starts[i], lm.ends[i]
        blank = lm.is_blank(i)
        free = fence is None and i > hold
        if free and prev_blank and not blank and i > begin and not text[s].isspace():
            out.append((begin, i))
            begin = i
        if i in wrappers:
            hold = max(hold, wrappers[i][0])
        m = _FENCE.match(text, s, e)
        if m and fence is None:
            fence = m.group(1)
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
            fence = None
        prev_blank = blank
    if begin < hi:
        out.append((begin, hi))
    return out
